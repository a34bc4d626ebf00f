// The fuzzer's transport: node:http with the path sent byte for byte (so invalid percent-encoding
// reaches the server as written), and a JSON writer that can splice raw JSON text (numbers such as
// 1e309 or 9007199254740993 that a JS number cannot hold, nesting thousands of levels deep).
import http from 'node:http';

/** raw JSON text, written as is by toJson */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * JSON text of a value that may hold RawJson leaves. Keys are written from own properties, so an
 * own "__proto__" key (made with defineProperty) goes on the wire like any other.
 */
export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : toJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const parts: string[] = [];
    for (const k of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) parts.push(`${JSON.stringify(k)}:${toJson(v)}`);
    }
    return `{${parts.join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
  return JSON.stringify(value) ?? 'null';
}

/** a plain object that may hold own keys such as "__proto__" */
export function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

/** deep copy that keeps own "__proto__" keys and RawJson leaves */
export function clone<T>(value: T): T {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  return objectOf(Object.entries(value).map(([k, v]) => [k, clone(v)])) as T;
}

export interface WireRequest {
  method: string;
  /** path and query exactly as they go on the request line */
  path: string;
  headers: Record<string, string>;
  /** the body's bytes (JSON text or deliberately broken bytes) */
  body?: string | Buffer;
  /** which credentials the Authorization header holds, for reports (secrets are not printed) */
  authLabel?: string;
}

export interface WireResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  ms: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

export function send(baseUrl: string, req: WireRequest, timeoutMs = 20_000): Promise<WireResponse> {
  const url = new URL(baseUrl);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    const r = http.request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    });
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    r.on('error', reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

export function closeAgent() {
  agent.destroy();
}

/** a short, printable description of a request for failure reports */
export function describeRequest(req: WireRequest, max = 600): string {
  const auth = req.authLabel ?? (req.headers.authorization === undefined ? 'none' : 'given');
  const extra = Object.entries(req.headers)
    .filter(([k]) => k !== 'authorization' && k !== 'content-type')
    .map(([k, v]) => `${k}: ${JSON.stringify(v.slice(0, 60))}`);
  let body = '';
  if (req.body !== undefined) {
    const text = typeof req.body === 'string' ? req.body : `<bytes ${req.body.toString('hex').slice(0, 200)}>`;
    body = ` body(${Buffer.byteLength(req.body)} B${req.headers['content-type'] ? `, ${req.headers['content-type']}` : ''}): ${excerpt(text, max)}`;
  }
  return `${req.method} ${excerpt(req.path, 300)} [auth ${auth}${extra.length ? `; ${extra.join('; ')}` : ''}]${body}`;
}

/** head and tail of a long string, with runs of one character collapsed and escapes made visible */
export function excerpt(s: string, max = 600): string {
  const collapsed = s.replace(
    /(.)\1{15,}/gsu,
    (m, c: string) => `${c.repeat(3)}…(${c === '\\' ? 'backslash' : JSON.stringify(c)}×${m.length})…`,
  );
  const visible = JSON.stringify(collapsed).slice(1, -1);
  if (visible.length <= max) return visible;
  return `${visible.slice(0, Math.floor(max * 0.7))} …(${visible.length} chars)… ${visible.slice(-Math.floor(max * 0.25))}`;
}
