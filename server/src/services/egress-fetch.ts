// A `fetch` for provider SDKs that only connects where the egress policy allows. Node's global
// fetch (undici) takes no DNS lookup of ours without importing undici, so this one speaks
// node:http / node:https through an agent whose `lookup` is egressLookup: the address actually
// connected to is the one checked. Node skips `lookup` for an IP-literal host, so those are
// checked here before connecting.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { refusedHost, type AllowList } from '../domain/llm/egress.ts';
import { egressLookup } from './egress.ts';

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

export function egressFetch(list: AllowList): typeof fetch {
  const lookup = egressLookup(list) as unknown as http.AgentOptions['lookup'];
  const agents = { 'http:': new http.Agent({ lookup }), 'https:': new https.Agent({ lookup }) };

  return async (input, init) => {
    const request = input instanceof Request ? input : null;
    const url = new URL(request ? request.url : String(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`fetch failed: unsupported scheme ${url.protocol}`);
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host)) {
      const why = refusedHost(host, [host], list);
      if (why) throw new TypeError('fetch failed', { cause: Object.assign(new Error(`refused by the egress policy: ${why}`), { code: 'EGRESS_REFUSED' }) });
    }

    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const headers = new Headers(request?.headers);
    new Headers(init?.headers).forEach((v, k) => headers.set(k, v));
    const rawBody = init?.body ?? request?.body ?? null;
    let body: Buffer | undefined;
    if (rawBody != null) {
      const wrapped = new Response(rawBody as BodyInit);
      const type = wrapped.headers.get('content-type');
      if (type && !headers.has('content-type')) headers.set('content-type', type);
      body = Buffer.from(await wrapped.arrayBuffer());
      headers.set('content-length', String(body.length));
    }
    const signal = init?.signal ?? request?.signal ?? undefined;
    signal?.throwIfAborted();

    return new Promise<Response>((resolve, reject) => {
      const mod = url.protocol === 'https:' ? https : http;
      const req = mod.request(url, { method, headers: Object.fromEntries(headers), agent: agents[url.protocol as 'http:' | 'https:'], signal: signal ?? undefined }, (res) => {
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (Array.isArray(v)) for (const x of v) out.append(k, x);
          else if (v !== undefined) out.set(k, v);
        }
        const status = res.statusCode ?? 500;
        const stream = NULL_BODY_STATUS.has(status) || method === 'HEAD' ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        if (!stream) res.resume();
        resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: out }));
      });
      req.on('error', (err) => reject(err.name === 'AbortError' ? err : new TypeError('fetch failed', { cause: err })));
      req.end(body);
    });
  };
}
