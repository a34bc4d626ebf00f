// What every answer must satisfy, whatever was sent: no 5xx, a JSON body, a status the spec
// declares for the operation (or a generic one the HTTP shell documents), a body that validates
// against the spec's schema for that status, and nothing of the server's insides in it (stack
// frames, SQL, secret keys).
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { resolve } from './schema-arbitrary.ts';
import type { WireRequest, WireResponse } from './wire.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, opts: { mode: 'fast' | 'full' }) => Ajv2020;

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  /** JSON pointer of each declared status's response body schema */
  responses: Map<number, string | null>;
  /** statuses the spec may answer as server-sent events */
  eventStreams: Set<number>;
  parameters: { name: string; in: string; required: boolean; schema: any }[];
  bodySchema: any | null;
}

const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

export function operationsOf(spec: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, rawItem] of Object.entries<any>(spec.paths)) {
    const item = resolve(spec, rawItem);
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item[method];
      if (!op) continue;
      const responses = new Map<number, string | null>();
      const eventStreams = new Set<number>();
      for (const [status, raw] of Object.entries<any>(op.responses ?? {})) {
        // a response given by $ref: its schema's pointer goes through the referenced response
        const base = typeof raw.$ref === 'string' ? raw.$ref : pointer('paths', path, method, 'responses', status);
        const res = resolve(spec, raw);
        responses.set(Number(status), res.content?.['application/json']?.schema ? `${base}/content/application~1json/schema` : null);
        if (res.content?.['text/event-stream']) eventStreams.add(Number(status));
      }
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p: any) => resolve(spec, p))
        .map((p: any) => ({ name: p.name, in: p.in, required: !!p.required, schema: p.schema }));
      const bodySchema = op.requestBody ? (resolve(spec, op.requestBody).content?.['application/json']?.schema ?? null) : null;
      ops.push({ operationId: op.operationId, method: method.toUpperCase(), path, responses, eventStreams, parameters, bodySchema });
    }
  }
  return ops;
}

// statuses the HTTP shell answers for any operation (auth, routing, transport limits: 431 is to
// the request line and headers what 413 is to the body), with the spec's component for their body
const GENERIC_ANY: Record<number, string> = { 401: 'MessageResponse', 403: 'MessageResponse', 404: 'Error', 405: 'Error', 431: 'Error' };
const GENERIC_WITH_BODY: Record<number, string> = { 400: 'Error', 413: 'Error', 415: 'Error' };

const STACK = [
  / {2,}at \S/,
  /\bat [\w.<>$[\] ]+ \([^)]*:\d+:\d+\)/,
  /\.(?:ts|js|mjs|cjs):\d+/,
  /node_modules[\\/]/,
  /file:\/\//,
  /\/work\/|\/home\/|\/usr\/lib\//,
  /\b[A-Z]\w*Error: [^\n]*[\\/][\w.-]+\.(?:ts|js)\b/,
];
// the phrasing of statements and of PostgreSQL's errors, not bare words an echoed input could hold
const SQL = [
  /\bselect\b[\s\S]{0,400}?\bfrom\b/i,
  /\binsert into\b/i,
  /\bdelete from\b/i,
  /\bupdate\s+"?\w+"?\s+set\b/i,
  /\bwhere\s+"?\w+"?\."?\w+"?\s*(?:=|in\b|like\b)/i,
  /syntax error at or near/i,
  /relation "[^"]*" does not exist/,
  /column "[^"]*" (?:does not exist|of relation|is of type)/,
  /invalid input syntax for/i,
  /out of range for type/i,
  /violates [\w ]*constraint/i,
  /duplicate key value/i,
  /\bSQLSTATE\b/,
  /\bDriverException\b|\bMikroORM\b|\bQueryFailed/,
];

function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      stringsIn(v, out);
    }
  return out;
}

export interface Verdict {
  problems: string[];
  body: unknown;
}

export function createOracle(spec: any, secrets: string[]) {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }), { mode: 'full' });
  ajv.addSchema({ ...spec, $id: 'fuzz:openapi' });
  const cache = new Map<string, ValidateFunction>();
  const validator = (ptr: string) => {
    let v = cache.get(ptr);
    if (!v) cache.set(ptr, (v = ajv.compile({ $ref: `fuzz:openapi${ptr}` })));
    return v;
  };

  /** op: the operation the request was aimed at (null for a route the spec does not have) */
  return function judge(op: Operation | null, req: WireRequest, res: WireResponse): Verdict {
    const problems: string[] = [];
    // OPTIONS under /api/public is CORS's (http/cors.ts), before method dispatch, as Langfuse
    // answers it: 204, no body, the allowed methods named
    if (req.method.toUpperCase() === 'OPTIONS' && req.path.startsWith('/api/public') && res.status === 204) {
      if (res.text !== '') problems.push('a CORS preflight answer has a body');
      if (!res.headers['access-control-allow-methods']) problems.push('a CORS preflight answer names no allowed methods');
      return { problems, body: undefined };
    }
    // a 5xx the operation declares (502/504: the LLM provider failed or timed out) is an answer; 500 never is
    if (res.status >= 500 && (res.status === 500 || !op?.responses.has(res.status))) problems.push(`status ${res.status}`);
    let body: unknown;
    const type = String(res.headers['content-type'] ?? '');
    // an event stream the spec declares: every event's data is JSON, and nothing leaks in it
    if (/^text\/event-stream\b/.test(type) && op?.eventStreams.has(res.status)) {
      for (const block of res.text.split('\n\n').filter((b) => b.trim())) {
        const data = /^data: (.*)$/m.exec(block)?.[1];
        try {
          JSON.parse(data ?? '');
        } catch {
          problems.push(`an event's data is not JSON: ${JSON.stringify(block.slice(0, 200))}`);
        }
      }
      for (const re of STACK)
        if (re.test(res.text)) {
          problems.push(`stack trace or file path in an event (${re})`);
          break;
        }
      return { problems, body: undefined };
    }
    if (!/^application\/json\b/.test(type)) problems.push(`content-type ${JSON.stringify(type)} is not application/json`);
    try {
      body = JSON.parse(res.text);
    } catch {
      problems.push('body is not JSON');
    }

    let ptr: string | null | undefined = op?.responses.get(res.status);
    if (ptr === undefined) {
      // the spec's info documents the answer to a request line Node's parser refuses, on any path
      const transport = res.status === 400 && /"The request is not valid HTTP"/.test(res.text) ? 'Error' : undefined;
      const generic = GENERIC_ANY[res.status] ?? transport ?? (op?.bodySchema || !op ? GENERIC_WITH_BODY[res.status] : undefined);
      if (generic) ptr = pointer('components', 'schemas', generic);
      else if (res.status < 500)
        problems.push(
          `status ${res.status} is not declared for ${op?.operationId ?? 'an unknown route'} (declared: ${op ? [...op.responses.keys()].join(', ') : 'none'})`,
        );
    }
    if (ptr && body !== undefined) {
      const v = validator(ptr);
      if (!v(body))
        problems.push(`body violates the spec for ${res.status}: ${ajv.errorsText(v.errors, { separator: '; ' }).slice(0, 400)}`);
    }

    const texts = body === undefined ? [res.text] : stringsIn(body);
    const joined = texts.join('\n');
    for (const re of STACK)
      if (re.test(joined)) {
        problems.push(`stack trace or file path in body (${re})`);
        break;
      }
    for (const re of SQL)
      if (re.test(joined)) {
        problems.push(`SQL text in body (${re})`);
        break;
      }
    const sent = `${req.path}\n${typeof req.body === 'string' ? req.body : (req.body?.toString('latin1') ?? '')}`;
    for (const s of secrets) if (s.length >= 8 && !sent.includes(s) && res.text.includes(s)) problems.push('a secret key is in the body');
    const auth = req.headers.authorization ?? '';
    const basic = /^Basic (.*)$/is.exec(auth)?.[1];
    const decoded = basic !== undefined ? Buffer.from(basic, 'base64').toString('utf8') : '';
    const sentSecret = basic !== undefined ? decoded.slice(decoded.indexOf(':') + 1) : auth.replace(/^Bearer /i, '');
    if (sentSecret.length >= 8 && !sent.includes(sentSecret) && joined.includes(sentSecret))
      problems.push('the secret sent in the Authorization header is echoed in the body');
    return { problems, body };
  };
}
