// The SDK client against a local http server with scripted answers: typed errors, retries
// (503 then 200, 429 with Retry-After, a POST that must not be retried, ingestion that may) and
// pagination.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { type Model, Tally, TallyApiError, TallyNetworkError, paginate } from '../index.ts';
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

  it('throwOnError: false returns { data, error } with the spec-typed body, and always the response', async () => {
    script = [{ status: 404, body: { message: 'model not found' } }];
    const result = await tally().models.get({ path: { id: 'nope' }, throwOnError: false });
    expect(result.data).toBeUndefined();
    expect(result.error).toEqual({ message: 'model not found' });
    // no impossible undefined: a returned result has its response (no answer at all throws)
    expectTypeOf(result.response).toEqualTypeOf<Response>();
    expectTypeOf(result.request).toEqualTypeOf<Request>();
    expect(result.response.status).toBe(404);
    expect(result.response.headers.get('x-request-id')).toBe('req-1');
    if (result.error === undefined) expectTypeOf(result.data).toEqualTypeOf<Model>();
    // and by default: the body itself, typed, with no undefined
    script = [{ status: 200, body: { id: 'm1' } }];
    const ok = await tally().models.get({ path: { id: 'm1' } });
    expectTypeOf(ok.data).toEqualTypeOf<Model>();
    expectTypeOf(ok.response).toEqualTypeOf<Response>();
  });

  it('no answer at all throws TallyNetworkError even with throwOnError: false (there is no response to return)', async () => {
    const t = new Tally({ baseUrl: 'http://127.0.0.1:9', publicKey: 'pk', secretKey: 'sk', maxRetries: 0 });
    await expect(t.models.get({ path: { id: 'm1' }, throwOnError: false })).rejects.toBeInstanceOf(TallyNetworkError);
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

describe('readable names over the generated groups', () => {
  const from = '2026-11-01T00:00:00Z';
  const to = '2026-11-08T00:00:00Z';

  it('metrics.query(q) sends the query object as the v2 query parameter and answers its rows, typed from the query', async () => {
    const rows = [{ providedModelName: 'gpt-4o', time_dimension: '2026-11-01', sum_totalCost: 1.25, p95_latency: 830 }];
    script = [{ status: 200, body: { data: rows } }];
    const q = {
      view: 'observations',
      dimensions: [{ field: 'providedModelName' }],
      metrics: [
        { measure: 'totalCost', aggregation: 'sum' },
        { measure: 'latency', aggregation: 'p95' },
      ],
      timeDimension: { granularity: 'day' },
      fromTimestamp: from,
      toTimestamp: to,
    } as const;
    const answer = await tally().metrics.query(q);
    expect(answer).toEqual(rows);
    const url = new URL(seen[0]!.url, 'http://x');
    expect(url.pathname).toBe('/api/public/v2/metrics');
    expect(JSON.parse(url.searchParams.get('query')!)).toEqual(q);
    // the row type names exactly the query's keys
    expectTypeOf(answer[0]!.sum_totalCost).toEqualTypeOf<number | null>();
    expectTypeOf(answer[0]!.p95_latency).toEqualTypeOf<number | null>();
    expectTypeOf(answer[0]!.time_dimension).toEqualTypeOf<string>();
    expectTypeOf(answer[0]!).toHaveProperty('providedModelName');
    // @ts-expect-error: not a metric of this query
    answer[0]!.avg_totalCost;
  });

  it('metrics.query types a histogram as triples and a query without metrics as its count; a bad aggregation does not compile', async () => {
    script = [
      { status: 200, body: { data: [{ histogram_totalCost: [[0, 1, 3]] }] } },
      { status: 200, body: { data: [{ count: 7 }] } },
    ];
    const [h] = await tally().metrics.query({
      view: 'observations',
      metrics: [{ measure: 'totalCost', aggregation: 'histogram' }],
      fromTimestamp: from,
      toTimestamp: to,
    });
    expectTypeOf(h!.histogram_totalCost).toEqualTypeOf<Array<[lower: number, upper: number, count: number]>>();
    const [c] = await tally().metrics.query({ view: 'observations', metrics: [], fromTimestamp: from, toTimestamp: to });
    expect(c!.count).toBe(7);
    expectTypeOf(c!.count).toEqualTypeOf<number>();
    const wrong = () =>
      // @ts-expect-error: 'median' is not an aggregation
      tally().metrics.query({
        view: 'observations',
        metrics: [{ measure: 'latency', aggregation: 'median' }],
        fromTimestamp: from,
        toTimestamp: to,
      });
    expect(typeof wrong).toBe('function');
  });

  it('the generated form of metrics.query still works, and is metrics.v2', async () => {
    script = [
      { status: 200, body: { data: [] } },
      { status: 200, body: { data: [] } },
    ];
    const query = JSON.stringify({ view: 'observations', metrics: [], fromTimestamp: from, toTimestamp: to });
    const t = tally();
    expect((await t.metrics.query({ query: { query } })).data).toEqual({ data: [] });
    expect((await t.metrics.v2({ query: { query } })).data).toEqual({ data: [] });
    expect(seen.map((s) => new URL(s.url, 'http://x').searchParams.get('query'))).toEqual([query, query]);
  });

  it('aliases are the generated methods: health.check, observations.list/iterate, traces, evaluations.judge, opentelemetry.export', async () => {
    const t = tally();
    expect(t.health.check).toBe(t.health.health);
    expect(t.observations.list).toBe(t.observations.getMany);
    expect(t.traces).toBe(t.trace);
    expect(t.evaluations.judge).toBe(t.evaluations.llmAsAJudge);
    expect(t.opentelemetry.export).toBe(t.opentelemetry.exportTraces);
    expect(t.metrics.schema).toBe(t.metrics.querySchema);
    script = [page([{ id: 'o1' }, { id: 'o2' }], 1, 2), page([{ id: 'o3' }], 2, 2)];
    const ids: string[] = [];
    for await (const o of t.observations.iterate({ query: { limit: 2, type: 'GENERATION' } })) ids.push(o.id);
    expect(ids).toEqual(['o1', 'o2', 'o3']);
    expect(seen.map((s) => s.url)).toEqual([
      '/api/public/observations?limit=2&type=GENERATION&page=1',
      '/api/public/observations?limit=2&type=GENERATION&page=2',
    ]);
    script = [page([{ id: 't1' }], 1, 1)];
    const traces = [];
    for await (const tr of t.traces.iterate()) traces.push(tr.id);
    expect(traces).toEqual(['t1']);
  });

  it('ingestion.batcher() sends through the client: its auth, the ingestion path and the events as given', async () => {
    const t = tally();
    const ok = (ids: string[]) => ({ status: 207, body: { successes: ids.map((id) => ({ id, status: 201 })), errors: [] } });
    fallback = (_req, url) => (url.pathname === '/api/public/ingestion' ? ok(['e1', 'e2']) : { status: 404, body: { message: 'no' } });
    const batcher = t.ingestion.batcher({ flushIntervalMs: 10_000 });
    const now = new Date().toISOString();
    batcher.add({ id: 'e1', timestamp: now, type: 'trace-create', body: { id: 'tr-1', name: 'checkout' } });
    batcher.add({ id: 'e2', timestamp: now, type: 'trace-create', body: { id: 'tr-2', name: 'checkout' } });
    await batcher.shutdown();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.url).toBe('/api/public/ingestion');
    expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from('pk-lf-test:sk-lf-test').toString('base64')}`);
    expect(JSON.parse(seen[0]!.body).batch.map((e: { id: string }) => e.id)).toEqual(['e1', 'e2']);
    expect(batcher.stats).toEqual({ acknowledged: 2, dropped: 0, pending: 0 });
  });
});
