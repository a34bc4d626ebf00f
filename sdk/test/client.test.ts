// The SDK client against a local http server with scripted answers: typed errors, retries
// (503 then 200, 429 with Retry-After, a POST that must not be retried, ingestion that may) and
// pagination.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Tally, TallyApiError, TallyNetworkError, paginate } from '../index.ts';
import { backoffDelay, isRetryable, parseRetryAfter } from '../src/retry.ts';

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
  at: number;
}

let server: Server;
let baseUrl: string;
let script: Answer[] = [];
let fallback: (req: IncomingMessage, url: URL) => Answer = () => ({ status: 404, body: { message: 'no script' } });
let seen: Seen[] = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const url = new URL(req.url!, 'http://x');
    seen.push({ method: req.method!, url: url.pathname + url.search, authorization: req.headers.authorization, body, at: Date.now() });
    const answer = script.shift() ?? fallback(req, url);
    res.writeHead(answer.status, { 'content-type': 'application/json', 'x-request-id': `req-${seen.length}`, ...answer.headers });
    res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  script = [];
  seen = [];
  fallback = () => ({ status: 404, body: { message: 'no script' } });
});

const tally = (extra: Partial<ConstructorParameters<typeof Tally>[0]> = {}) =>
  new Tally({
    baseUrl: `${baseUrl}/`,
    publicKey: 'pk-lf-test',
    secretKey: 'sk-lf-test',
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 20,
    ...extra,
  });

const page = (items: unknown[], page: number, totalPages: number) => ({
  status: 200,
  body: { data: items, meta: { page, limit: 2, totalItems: totalPages * 2, totalPages } },
});

describe('construction', () => {
  it('sends Basic auth from the key pair to the base URL', async () => {
    script = [page([], 1, 0)];
    const { data } = await tally().models.list();
    expect(data.data).toEqual([]);
    expect(seen[0]!.url).toBe('/api/public/models');
    expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from('pk-lf-test:sk-lf-test').toString('base64')}`);
  });

  it('groups the generated operations the way provider SDKs do', () => {
    const t = tally();
    for (const fn of [t.models.list, t.models.create, t.metrics.query, t.llmConnections.upsert, t.ingestion.batch, t.scores.create]) {
      expect(typeof fn).toBe('function');
    }
    expect(typeof t.models.iterate).toBe('function');
  });

  it('refuses to start without keys', () => {
    expect(() => new Tally({ baseUrl, publicKey: '', secretKey: 'x' })).toThrow(/publicKey/);
  });
});

describe('errors', () => {
  it('a non-2xx throws TallyApiError with status, the spec body and the request id', async () => {
    script = [{ status: 400, body: { message: 'limit must be at most 100' }, headers: { 'x-request-id': 'abc-123' } }];
    const error = await tally()
      .models.list({ query: { limit: 1000 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TallyApiError);
    const apiError = error as TallyApiError<{ message: string }>;
    expect(apiError.status).toBe(400);
    expect(apiError.body).toEqual({ message: 'limit must be at most 100' });
    expect(apiError.requestId).toBe('abc-123');
    expect(apiError.method).toBe('GET');
    expect(apiError.message).toMatch(/400.*limit must be at most 100.*abc-123/);
  });

  it('throwOnError: false returns { data, error } with the spec-typed body', async () => {
    script = [{ status: 404, body: { message: 'model not found' } }];
    const result = await tally().models.get({ path: { id: 'nope' }, throwOnError: false });
    expect(result.data).toBeUndefined();
    expect(result.error).toEqual({ message: 'model not found' });
    expect(result.response?.status).toBe(404);
    expect(result.response?.headers.get('x-request-id')).toBe('req-1');
  });

  it('no response is a TallyNetworkError, distinct from TallyApiError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const t = new Tally({ baseUrl: `http://127.0.0.1:${port}`, publicKey: 'pk', secretKey: 'sk', maxRetries: 0 });
    const error = await t.models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TallyNetworkError);
    expect(error).not.toBeInstanceOf(TallyApiError);
    expect((error as TallyNetworkError).url).toContain('/api/public/models');
  });
});

describe('retries', () => {
  it('retries a GET answered 503, then returns the 200', async () => {
    script = [{ status: 503, body: { message: 'busy' } }, page([{ id: 'm1' }], 1, 1)];
    const { data } = await tally().models.list();
    expect(data.data).toEqual([{ id: 'm1' }]);
    expect(seen.map((s) => s.method)).toEqual(['GET', 'GET']);
  });

  it('honours Retry-After on a 429', async () => {
    script = [{ status: 429, body: { message: 'slow down' }, headers: { 'retry-after': '1' } }, page([], 1, 0)];
    await tally().models.list();
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('gives up after maxRetries and throws the last answer', async () => {
    fallback = () => ({ status: 500, body: { message: 'broken' } });
    const error = await tally({ maxRetries: 2 })
      .models.list()
      .catch((e: unknown) => e);
    expect((error as TallyApiError).status).toBe(500);
    expect(seen).toHaveLength(3);
  });

  it('maxRetries: 0 turns retrying off', async () => {
    fallback = () => ({ status: 503, body: { message: 'busy' } });
    await expect(tally({ maxRetries: 0 }).models.list()).rejects.toBeInstanceOf(TallyApiError);
    expect(seen).toHaveLength(1);
  });

  it('never retries a non-idempotent POST (creating a model)', async () => {
    script = [{ status: 503, body: { message: 'busy' } }];
    const error = await tally()
      .models.create({ body: { modelName: 'm', matchPattern: '(?i)^m$', unit: 'TOKENS', inputPrice: 1 } as never })
      .catch((e: unknown) => e);
    expect((error as TallyApiError).status).toBe(503);
    expect(seen).toHaveLength(1);
  });

  it('retries ingestion (event ids make the replay harmless), resending the same body', async () => {
    script = [
      { status: 502, body: { message: 'bad gateway' } },
      { status: 207, body: { successes: [{ id: 'e1', status: 201 }], errors: [] } },
    ];
    const batch = [{ id: 'e1', type: 'trace-create', timestamp: new Date().toISOString(), body: { id: 't1' } }];
    const { data } = await tally().ingestion.batch({ body: { batch } as never });
    expect(data).toEqual({ successes: [{ id: 'e1', status: 201 }], errors: [] });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(JSON.parse(seen[1]!.body).batch[0].id).toBe('e1');
  });

  it('decides retryability by method and path, and reads Retry-After both ways', () => {
    expect(isRetryable('PUT', 'http://h/api/public/llm-connections')).toBe(true);
    expect(isRetryable('POST', 'http://h/api/public/ingestion')).toBe(true);
    expect(isRetryable('POST', 'http://h/api/public/otel/v1/traces')).toBe(true);
    expect(isRetryable('POST', 'http://h/api/public/scores')).toBe(false);
    expect(isRetryable('PATCH', 'http://h/api/public/unstable/evaluation-rules/x')).toBe(false);
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(backoffDelay(3, 100, 10_000, () => 0.999)).toBeLessThan(800);
    expect(backoffDelay(10, 100, 1000, () => 0.999)).toBeLessThan(1000);
    expect(backoffDelay(0, 100, 1000, () => 0)).toBe(0);
  });
});

describe('pagination', () => {
  it('iterate() walks every page, passing the caller query along', async () => {
    fallback = (_req, url) => {
      const n = Number(url.searchParams.get('page'));
      return page([{ id: `m${2 * n - 1}` }, { id: `m${2 * n}` }], n, 3);
    };
    const ids: string[] = [];
    for await (const model of tally().models.iterate({ query: { limit: 2 } })) ids.push(model.id);
    expect(ids).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    expect(seen.map((s) => s.url)).toEqual([1, 2, 3].map((n) => `/api/public/models?limit=2&page=${n}`));
  });

  it('paginate(fn, params) works on any list method and stops on an empty page', async () => {
    script = [page([{ id: 's1' }], 1, 5), page([], 2, 5)];
    const t = tally();
    const ids: string[] = [];
    for await (const score of paginate(t.scores.list, { query: { name: 'quality' } })) ids.push(score.id);
    expect(ids).toEqual(['s1']);
    expect(seen[0]!.url).toBe('/api/public/scores?name=quality&page=1');
  });

  it('a failing page throws TallyApiError out of the loop', async () => {
    script = [page([{ id: 'm1' }], 1, 2), { status: 401, body: { message: 'bad keys' } }];
    const ids: string[] = [];
    const run = async () => {
      for await (const model of tally().models.iterate()) ids.push(model.id);
    };
    await expect(run()).rejects.toBeInstanceOf(TallyApiError);
    expect(ids).toEqual(['m1']);
  });
});
