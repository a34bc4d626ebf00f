import { AUTH_MESSAGES } from '../../src/http/auth.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { raw, unique } from '../support/client.ts';

const json = { 'content-type': 'application/json' };
const post = (body: unknown, init: { project?: 'projectA' | 'projectB' | null; headers?: Record<string, string> } = {}) =>
  raw('/api/public/scores', { method: 'POST', headers: { ...json, ...init.headers }, body: JSON.stringify(body), project: init.project });
const trace = unique('strace');
const otherTrace = unique('strace');
const name = unique('sname');
const now = () => new Date().toISOString();

beforeAll(async () => {
  const batch = [
    {
      id: unique('e'),
      timestamp: now(),
      type: 'trace-create',
      body: { id: trace, name: 'scored', userId: 'alice', tags: ['blue', 'red'], sessionId: 'sess-1' },
    },
    { id: unique('e'), timestamp: now(), type: 'trace-create', body: { id: otherTrace, name: 'scored', userId: 'bob', tags: ['red'] } },
  ];
  const res = await raw('/api/public/ingestion', { method: 'POST', headers: json, body: JSON.stringify({ batch }) });
  expect(res.body.errors).toEqual([]);
});

describe('POST /api/public/scores', () => {
  it('creates a score, answers its id, and an id reused overwrites it', async () => {
    const id = unique('score');
    const first = await post({ id, name, value: 0.5, traceId: trace, metadata: { a: 1 }, environment: 'Prod' });
    expect(first).toMatchObject({ status: 200, body: { id } });
    const got = await raw(`/api/public/v2/scores/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id,
      name,
      value: 0.5,
      dataType: 'NUMERIC',
      stringValue: null,
      source: 'API',
      traceId: trace,
      environment: 'prod',
      metadata: { a: 1 },
      sessionId: null,
      datasetRunId: null,
      authorUserId: null,
      queueId: null,
      executionTraceId: null,
      trace: { userId: 'alice', tags: ['blue', 'red'], sessionId: 'sess-1' },
    });
    expect((await post({ id, name, value: 0.75, traceId: trace, comment: 'again' })).status).toBe(200);
    const again = await raw(`/api/public/v2/scores/${id}`);
    expect(again.body).toMatchObject({ value: 0.75, comment: 'again', environment: 'default' });
    expect(again.body.createdAt).toBe(got.body.createdAt);
  });

  it('generates an id when none (or an empty one) is given', async () => {
    const res = await post({ id: '', name: unique('n'), value: 1, traceId: trace });
    expect(res.status).toBe(200);
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('stores each data type as Langfuse shows it', async () => {
    const ids = { bool: unique('b'), cat: unique('c'), text: unique('t'), corr: unique('k') };
    expect((await post({ id: ids.bool, name, value: 1, dataType: 'BOOLEAN', traceId: trace })).status).toBe(200);
    expect((await post({ id: ids.cat, name, value: 'good', traceId: trace })).status).toBe(200);
    expect((await post({ id: ids.text, name, value: 'Nice answer', dataType: 'TEXT', traceId: trace })).status).toBe(200);
    expect(
      (await post({ id: ids.corr, name, value: 'fixed output', dataType: 'CORRECTION', traceId: trace, observationId: 'o1' })).status,
    ).toBe(200);
    expect((await raw(`/api/public/v2/scores/${ids.bool}`)).body).toMatchObject({ dataType: 'BOOLEAN', value: 1, stringValue: 'True' });
    expect((await raw(`/api/public/v2/scores/${ids.cat}`)).body).toMatchObject({ dataType: 'CATEGORICAL', stringValue: 'good' });
    const text = (await raw(`/api/public/v2/scores/${ids.text}`)).body;
    expect(text).toMatchObject({ dataType: 'TEXT', stringValue: 'Nice answer' });
    expect(text).not.toHaveProperty('value');
    expect((await raw(`/api/public/v2/scores/${ids.corr}`)).body).toMatchObject({
      dataType: 'CORRECTION',
      stringValue: 'fixed output',
      observationId: 'o1',
    });
    // v1 hides CORRECTION scores
    expect((await raw(`/api/public/scores/${ids.corr}`)).body).toEqual({ message: 'Score not found', error: 'LangfuseNotFoundError' });
    expect((await raw(`/api/public/scores/${ids.text}`)).status).toBe(200);
  });

  it('refuses bodies Langfuse refuses, with its messages', async () => {
    const subject =
      'Provide exactly one of the following: traceId (with optional observationId), sessionId or datasetRunId. ObservationId requires traceId.';
    const cases: [unknown, { path: unknown[]; message: string }][] = [
      [
        { name, value: 1 },
        { path: [], message: subject },
      ],
      [
        { name, value: 1, traceId: trace, sessionId: 's' },
        { path: [], message: subject },
      ],
      [
        { name, value: 1, sessionId: 's', observationId: 'o' },
        { path: [], message: subject },
      ],
      [
        { name, value: 2, dataType: 'BOOLEAN', traceId: trace },
        { path: ['value'], message: 'Value must be a number equal to either 0 or 1 for data type BOOLEAN' },
      ],
      [
        { name, value: 'x', dataType: 'NUMERIC', traceId: trace },
        { path: ['value'], message: 'Invalid input: expected number, received string' },
      ],
      [
        { name, value: 3, dataType: 'CATEGORICAL', traceId: trace },
        { path: ['value'], message: 'Invalid input: expected string, received number' },
      ],
      [
        { name, value: '', dataType: 'TEXT', traceId: trace },
        { path: ['value'], message: 'Too small: expected string to have >=1 characters' },
      ],
      [
        { name, value: 'x'.repeat(501), dataType: 'TEXT', traceId: trace },
        { path: ['value'], message: 'Too big: expected string to have <=500 characters' },
      ],
      [
        { name, value: 1, traceId: trace, source: 'ANNOTATION' },
        { path: ['configId'], message: 'configId is required when source is ANNOTATION (except for CORRECTION scores).' },
      ],
      [
        { name, value: 'c', dataType: 'CORRECTION', traceId: trace, configId: 'cfg' },
        { path: ['configId'], message: 'configId is not allowed for data type CORRECTION' },
      ],
      [
        { name, value: 1, traceId: trace, metadata: null },
        { path: ['metadata'], message: 'Invalid input: expected JSON value other than null, received null' },
      ],
    ];
    for (const [body, issue] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(res.body.message).toBe('Invalid request data');
      expect(res.body.error).toContainEqual(expect.objectContaining(issue));
    }
    const evalSource = await post({ name, value: 1, traceId: trace, source: 'EVAL' });
    expect(evalSource.status).toBe(400);
    expect(evalSource.body.error[0].path).toEqual(['source']);
    // an ANNOTATION CORRECTION needs no config
    expect((await post({ name, value: 'c', dataType: 'CORRECTION', traceId: trace, source: 'ANNOTATION' })).status).toBe(200);
  });

  it('needs credentials; a Bearer public key may create a score (in its own project) and do nothing else', async () => {
    expect(await post({ name, value: 1, traceId: trace }, { project: null })).toMatchObject({
      status: 401,
      body: { message: AUTH_MESSAGES.missing },
    });
    const bearerHeaders = { authorization: `Bearer ${inject('projectB').publicKey}` };
    const bearer = await post({ name, value: 1, traceId: trace }, { project: null, headers: bearerHeaders });
    expect(bearer.status, JSON.stringify(bearer.body)).toBe(200);
    // it landed in project B, the public key's project, not A
    expect((await raw(`/api/public/scores/${bearer.body.id}`, { project: 'projectB' })).status).toBe(200);
    expect((await raw(`/api/public/scores/${bearer.body.id}`)).status).toBe(404);
    expect(
      await post({ name, value: 1, traceId: trace }, { project: null, headers: { authorization: 'Bearer pk-lf-nobody' } }),
    ).toMatchObject({ status: 401, body: { message: AUTH_MESSAGES.unknownPublic } });
    // everywhere else a public key alone is not enough
    expect((await raw('/api/public/scores', { project: null, headers: bearerHeaders })).status).toBe(403);
    expect((await raw('/api/public/models', { project: null, headers: bearerHeaders })).status).toBe(403);
  });

  it('answers 405 for an unlisted method', async () => {
    expect(await raw('/api/public/scores', { method: 'PUT', headers: json, body: '{}' })).toMatchObject({
      status: 405,
      body: { message: 'Method not allowed', error: 'MethodNotAllowedError' },
    });
  });
});

describe('GET /api/public/scores and /api/public/v2/scores', () => {
  const fname = unique('filtered');
  const ids = { a: unique('fa'), b: unique('fb'), c: unique('fc'), s: unique('fs'), ing: unique('fi') };
  beforeAll(async () => {
    for (const [id, body] of [
      [ids.a, { value: 0.2, traceId: trace, environment: 'staging' }],
      [ids.b, { value: 0.9, traceId: otherTrace }],
      [ids.c, { value: 'meh', traceId: trace, configId: 'cfg-1' }],
      [ids.s, { value: 'session note', dataType: 'TEXT', sessionId: 'sess-x' }],
    ] as const) {
      expect((await post({ id, name: fname, ...body })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 5)); // distinct timestamps
    }
    const res = await raw('/api/public/ingestion', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        batch: [
          {
            id: unique('e'),
            timestamp: now(),
            type: 'score-create',
            body: { id: ids.ing, name: fname, value: 0.5, traceId: otherTrace, source: 'EVAL' },
          },
        ],
      }),
    });
    expect(res.body.errors).toEqual([]);
  });
  const v2 = async (q: string) => {
    const res = await raw(`/api/public/v2/scores?name=${fname}&${q}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.map((s: { id: string }) => s.id).sort();
  };
  const sorted = (...xs: string[]) => xs.sort();

  it('v2 lists every subject newest first, with page pagination', async () => {
    const res = await raw(`/api/public/v2/scores?name=${fname}&limit=2&page=1`);
    expect(res.body.meta).toEqual({ page: 1, limit: 2, totalItems: 5, totalPages: 3 });
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual([ids.ing, ids.s]);
    expect((await raw(`/api/public/v2/scores?name=${fname}&page=9`)).body).toMatchObject({ data: [], meta: { totalItems: 5 } });
    expect((await raw('/api/public/v2/scores?limit=101')).status).toBe(400);
  });

  it('v2 filters', async () => {
    expect(await v2('source=EVAL')).toEqual([ids.ing]);
    expect(await v2('dataType=CATEGORICAL')).toEqual([ids.c]);
    expect(await v2('operator=%3E&value=0.4')).toEqual(sorted(ids.b, ids.ing));
    expect(await v2('operator=%3C%3D&value=0.2')).toEqual([ids.a]);
    expect(await v2(`scoreIds=${ids.a},${ids.s}`)).toEqual(sorted(ids.a, ids.s));
    expect(await v2('userId=alice')).toEqual(sorted(ids.a, ids.c));
    expect(await v2('traceTags=red&traceTags=blue')).toEqual(sorted(ids.a, ids.c));
    expect(await v2('environment=staging')).toEqual([ids.a]);
    expect(await v2('configId=cfg-1')).toEqual([ids.c]);
    expect(await v2('sessionId=sess-x')).toEqual([ids.s]);
    expect(await v2(`traceId=${otherTrace}`)).toEqual(sorted(ids.b, ids.ing));
    expect(await v2('fromTimestamp=2999-01-01T00:00:00Z')).toEqual([]);
    expect(await v2(`toTimestamp=${encodeURIComponent('2000-01-01T00:00:00+00:00')}`)).toEqual([]);
  });

  it('v2 fields: trace object present or null, omitted without `trace`, errors as Langfuse', async () => {
    const res = await raw(`/api/public/v2/scores?name=${fname}&scoreIds=${ids.a},${ids.s}`);
    const byId = Object.fromEntries(res.body.data.map((s: any) => [s.id, s]));
    expect(byId[ids.a].trace).toMatchObject({ userId: 'alice', tags: ['blue', 'red'] });
    expect(byId[ids.s].trace).toBeNull();
    const scoreOnly = await raw(`/api/public/v2/scores?name=${fname}&fields=score`);
    expect(scoreOnly.body.data[0]).not.toHaveProperty('trace');
    expect(await raw('/api/public/v2/scores?fields=trace')).toMatchObject({
      status: 400,
      body: { message: 'Scores needs to be selected always.' },
    });
    expect((await raw('/api/public/v2/scores?fields=score&userId=alice')).status).toBe(400);
    expect(await raw('/api/public/v2/scores?filter=%5B')).toMatchObject({
      status: 400,
      body: { message: 'Invalid JSON in filter parameter' },
    });
  });

  it('v1 lists trace scores only, with the trace fields', async () => {
    const res = await raw(`/api/public/scores?name=${fname}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: { id: string }) => s.id).sort()).toEqual(sorted(ids.a, ids.b, ids.c, ids.ing));
    const a = res.body.data.find((s: { id: string }) => s.id === ids.a);
    expect(a.trace).toEqual({ userId: 'alice', tags: ['blue', 'red'], environment: 'default' });
    expect(a).not.toHaveProperty('sessionId');
    expect((await raw(`/api/public/scores/${ids.s}`)).status).toBe(404);
    expect((await raw(`/api/public/scores?name=${fname}&userId=bob`)).body.data.map((s: { id: string }) => s.id).sort()).toEqual(
      sorted(ids.b, ids.ing),
    );
  });

  it('keeps projects apart', async () => {
    expect((await raw(`/api/public/v2/scores/${ids.a}`, { project: 'projectB' })).status).toBe(404);
    expect((await raw(`/api/public/v2/scores?name=${fname}`, { project: 'projectB' })).body.meta.totalItems).toBe(0);
  });
});

describe('DELETE /api/public/scores/{id} and the metrics views', () => {
  it('a posted score shows in the scores-numeric view; delete answers 202 and removes it', async () => {
    const id = unique('m');
    const mname = unique('metric');
    expect((await post({ id, name: mname, value: 4, traceId: trace })).status).toBe(200);
    const day = new Date();
    const query = encodeURIComponent(
      JSON.stringify({
        view: 'scores-numeric',
        metrics: [
          { measure: 'value', aggregation: 'max' },
          { measure: 'count', aggregation: 'count' },
        ],
        filters: [{ column: 'name', operator: '=', value: mname, type: 'string' }],
        fromTimestamp: new Date(day.getTime() - 3600_000).toISOString(),
        toTimestamp: new Date(day.getTime() + 3600_000).toISOString(),
      }),
    );
    const m = await raw(`/api/public/v2/metrics?query=${query}`);
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body.data).toEqual([{ max_value: 4, count_count: 1 }]);
    expect(await raw(`/api/public/scores/${id}`, { method: 'DELETE' })).toMatchObject({
      status: 202,
      body: { message: 'Score deletion queued successfully' },
    });
    expect(await raw(`/api/public/v2/scores/${id}`)).toMatchObject({
      status: 404,
      body: { message: 'Score not found', error: 'LangfuseNotFoundError' },
    });
    // no existence check, as in Langfuse
    expect((await raw(`/api/public/scores/${id}`, { method: 'DELETE' })).status).toBe(202);
  });
});
