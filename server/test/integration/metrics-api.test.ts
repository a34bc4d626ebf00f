// The metrics endpoints as integrators call them: through Tally's generated SDK and through
// Langfuse's own client (@langfuse/client), which must get the same rows.
import { LangfuseClient } from '@langfuse/client';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { clientFor, raw, unique } from '../support/client.ts';
import { API, apiBatch, apiQueries } from '../fixtures/metrics-suites.ts';

const env = unique('metrics-env');
const { FROM, TO } = API;
const queries = apiQueries(env);

beforeAll(async () => {
  const batch = apiBatch(env);
  const res = await raw('/api/public/ingestion', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  expect(res.body.errors).toEqual([]);
});

describe('metrics API', () => {
  it("answers the generated SDK and Langfuse's client with the same rows", async () => {
    const query = queries.dailyCostAndLatency;
    const ours = await clientFor('projectA').metrics.query({ query: { query: JSON.stringify(query) } });
    expect(ours.response?.status).toBe(200);
    const { publicKey, secretKey } = inject('projectA');
    const langfuse = new LangfuseClient({ publicKey, secretKey, baseUrl: inject('baseUrl') });
    const theirs = await langfuse.api.metrics.metrics({ query: JSON.stringify(query) });
    expect(theirs.data).toEqual(ours.data!.data);
    expect(ours.data!.data).toEqual([
      { providedModelName: 'gpt-x', time_dimension: '2003-05-01', sum_totalCost: 0.75, p50_latency: 200 },
      { providedModelName: '', time_dimension: '2003-05-02', sum_totalCost: 0, p50_latency: 0 },
      { providedModelName: 'claude-y', time_dimension: '2003-05-03', sum_totalCost: 1.25, p50_latency: 50 },
      { providedModelName: 'gpt-x', time_dimension: '2003-05-04', sum_totalCost: 2, p50_latency: 80 },
      { providedModelName: '', time_dimension: '2003-05-05', sum_totalCost: 0, p50_latency: 0 },
      { providedModelName: '', time_dimension: '2003-05-06', sum_totalCost: 0, p50_latency: 0 },
      { providedModelName: '', time_dimension: '2003-05-07', sum_totalCost: 0, p50_latency: 0 },
    ]);
    const v1Query = queries.costByTraceName;
    const v1 = await clientFor('projectA').metrics.v1({ query: { query: JSON.stringify(v1Query) } });
    const v1Theirs = await langfuse.api.legacy.metricsV1.metrics({ query: JSON.stringify(v1Query) });
    expect(v1Theirs.data).toEqual(v1.data!.data);
    expect(v1.data!.data).toEqual([
      { name: 'search', sum_totalCost: 3.25 },
      { name: 'checkout', sum_totalCost: 0.75 },
    ]);
  });

  it('keeps projects apart', async () => {
    const query = queries.count;
    const b = await clientFor('projectB').metrics.query({ query: { query: JSON.stringify(query) } });
    expect(b.data!.data).toEqual([{ count_count: 0 }]);
  });

  it('answers daily metrics newest first, paginated, with the trace filters', async () => {
    const page1 = await clientFor('projectA').metrics.daily({
      query: { environment: env, limit: 1, fromTimestamp: FROM, toTimestamp: TO },
    });
    expect(page1.data!.meta).toEqual({ page: 1, limit: 1, totalItems: 3, totalPages: 3 });
    expect(page1.data!.data[0]).toMatchObject({
      date: '2003-05-04',
      countTraces: 0,
      countObservations: 1,
      totalCost: 2,
      usage: [{ model: 'gpt-x', countTraces: 1, inputUsage: 40, outputUsage: 4 }],
    });
    const tagged = await clientFor('projectA').metrics.daily({ query: { environment: env, tags: ['a', 'b'] } });
    expect(tagged.data!.data.map((d) => d.date)).toEqual(['2003-05-01']);
    expect(tagged.data!.data[0]).toMatchObject({ countTraces: 1, countObservations: 2, totalCost: 0.75 });
  });

  it('lists the schema the engine uses', async () => {
    const s = await clientFor('projectA').metrics.querySchema();
    expect(s.data!.views.find((v) => v.name === 'scores-boolean')!.dimensions.map((d) => d.name)).toContain('booleanValue');
  });

  it('answers bad queries with a 400 naming the problem', async () => {
    const get = (q: string) => raw(`/api/public/v2/metrics?query=${encodeURIComponent(q)}`);
    expect(await get('{"view":')).toMatchObject({
      status: 400,
      body: { message: 'Invalid JSON in query parameter', error: 'InvalidRequestError' },
    });
    const tooMany = await get(
      JSON.stringify({ view: 'observations', metrics: [], fromTimestamp: FROM, toTimestamp: TO, config: { row_limit: 0 } }),
    );
    expect(tooMany.body.error[0].path).toEqual(['query', 'config', 'row_limit']);
    const missing = await get(JSON.stringify({ view: 'observations', metrics: [] }));
    expect(missing.body.error.map((i: { path: unknown[] }) => i.path)).toEqual([
      ['query', 'fromTimestamp'],
      ['query', 'toTimestamp'],
    ]);
    expect((await raw('/api/public/v2/metrics')).status).toBe(400);
  });
});
