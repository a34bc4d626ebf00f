// The metrics engine against a database (PGlite, and PostgreSQL when DATABASE_URL is set):
// every planned query gives the same rows from the roll-up as from the base table, numbers
// match a reference computed here from the data sent, and trace fields and scores show up.
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareMetrics, shape, type MetricsQueryInput } from '../../src/domain/metrics/index.ts';
import { executeMetrics } from '../../src/store/metrics.ts';
import { kysely } from '../../src/store/sql.ts';
import { basic, startTestServer, type TestServer } from '../support/start.ts';
import { ENGINE, ENGINE_QUERIES, engineData, orderingBatch, rollupQueries, type Sent } from '../fixtures/metrics-suites.ts';

let t: TestServer;
const { FROM, TO, MODELS, NAMES } = ENGINE;
let sent = new Map<string, Sent>();

async function post(batch: unknown[]) {
  const res = await fetch(`${t.server.url}/api/public/ingestion`, {
    method: 'POST',
    headers: { authorization: basic(t.projectA), 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  const body = (await res.json()) as { errors: unknown[] };
  expect(body.errors).toEqual([]);
}

beforeAll(async () => {
  t = await startTestServer();
  const data = engineData();
  for (const batch of data.batches) await post(batch);
  sent = data.sent;
}, 120_000);

afterAll(async () => {
  await t?.server.close();
});

async function run(input: MetricsQueryInput, useRollup = true, version: 'v1' | 'v2' = 'v2') {
  const { plan, compiled } = prepareMetrics(input, t.projectA.projectId, { version, useRollup });
  const { rows, histograms } = await executeMetrics(kysely(t.server.db.em()), compiled);
  return { rows: shape(plan, rows, histograms), rollup: plan.rollup !== null, daily: plan.rollup?.days != null };
}

const inWindow = () => [...sent.values()].filter((o) => o.start >= Date.parse(FROM) && o.start <= Date.parse(TO));

describe('metrics on a database', () => {
  const queries = rollupQueries();

  it(`gives the same rows from the roll-up as from the base table (${queries.length} queries)`, async () => {
    let servedByRollup = 0,
      servedByDaily = 0;
    for (const q of queries) {
      const [viaRollup, viaBase] = [await run(q, true), await run(q, false)];
      expect(viaBase.rollup).toBe(false);
      if (viaRollup.rollup) servedByRollup++;
      if (viaRollup.daily) servedByDaily++;
      expect(viaRollup.rows, JSON.stringify(q)).toEqual(viaBase.rows);
    }
    expect(servedByRollup).toBe(queries.length);
    // the buckets of whole days (none, day, week, month, and auto, which picks days over the first
    // two windows and hours over the third's 48 hours), in each window holding a whole day
    expect(servedByDaily).toBe(4 * (5 + 5 + 4));
  });

  it('keeps the daily roll-up equal to the hourly one summed per day, through updates that move observations', async () => {
    const { sql } = await import('../../src/store/sql.ts');
    const db = kysely(t.server.db.em());
    const sums =
      'sum(count), sum(latency_ms), sum(latency_count), sum(input_usage), sum(output_usage), sum(total_usage), sum(input_cost), sum(input_cost_count), sum(output_cost), sum(output_cost_count), sum(total_cost), sum(total_cost_count)';
    const { rows } = await sql<{ n: string }>`select count(*) as n from (
      (select date_trunc('day', hour, 'UTC') as day, type, name, environment, model, ${sql.raw(sums)} from observation_hourly where project_id = ${t.projectA.projectId} group by 1, 2, 3, 4, 5
       except select day, type, name, environment, model, ${sql.raw(sums)} from observation_daily where project_id = ${t.projectA.projectId} group by 1, 2, 3, 4, 5)
      union all
      (select day, type, name, environment, model, ${sql.raw(sums)} from observation_daily where project_id = ${t.projectA.projectId} group by 1, 2, 3, 4, 5
       except select date_trunc('day', hour, 'UTC'), type, name, environment, model, ${sql.raw(sums)} from observation_hourly where project_id = ${t.projectA.projectId} group by 1, 2, 3, 4, 5)) d`.execute(
      db,
    );
    expect(Number(rows[0]!.n)).toBe(0);
    const days = await sql<{ n: string }>`select count(*) as n from observation_daily where project_id = ${t.projectA.projectId}`.execute(
      db,
    );
    expect(Number(days.rows[0]!.n)).toBeGreaterThan(10);
  });

  it('sums cost exactly and counts tokens as integers', async () => {
    const { rows } = await run(ENGINE_QUERIES.costAndTokensByModel);
    for (const model of MODELS) {
      const mine = inWindow().filter((o) => o.model === model);
      const exact = mine.reduce((s, o) => s.plus(o.cost), new Decimal(0));
      const row = rows.find((r) => r.providedModelName === model)!;
      expect(Math.abs(Number(row.sum_totalCost) - exact.toNumber()) / exact.toNumber()).toBeLessThan(1e-12);
      expect(row.sum_outputTokens).toBe(mine.reduce((s, o) => s + o.output, 0));
    }
  });

  it('computes exact percentiles (linear interpolation) by name', async () => {
    const { rows } = await run(ENGINE_QUERIES.percentilesByName);
    const percentile = (xs: number[], p: number) => {
      const s = [...xs].sort((a, b) => a - b);
      const pos = p * (s.length - 1);
      const lo = Math.floor(pos);
      return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (pos - lo);
    };
    for (const name of NAMES) {
      const lat = inWindow()
        .filter((o) => o.name === name && o.latency !== null)
        .map((o) => o.latency!);
      const row = rows.find((r) => r.name === name)!;
      expect(row.p95_latency).toBeCloseTo(percentile(lat, 0.95), 6);
      expect(row.p50_latency).toBeCloseTo(percentile(lat, 0.5), 6);
    }
  });

  it('builds histograms whose bins cover every value once', async () => {
    const { rows } = await run(ENGINE_QUERIES.costHistogram);
    const bins = rows[0]!.histogram_totalCost as [number, number, number][];
    expect(bins.length).toBeLessThanOrEqual(7);
    expect(bins.reduce((n, b) => n + b[2], 0)).toBe(inWindow().length);
    const costs = inWindow().map((o) => Number(o.cost));
    expect(bins[0]![0]).toBe(Math.min(...costs));
    expect(bins.at(-1)![1]).toBe(Math.max(...costs));
  });

  it('answers trace fields from traces that arrived after their observations, and scores in the score views', async () => {
    const { rows } = await run(ENGINE_QUERIES.countByTraceName);
    expect(rows.map((r) => r.traceName).sort()).toEqual(['trace-name-0', 'trace-name-1', 'trace-name-2']);
    expect(rows.reduce((n, r) => n + Number(r.count_count), 0)).toBe(inWindow().length);
    const scores = await run(ENGINE_QUERIES.scoresByTraceAndObservation);
    expect(scores.rows).toEqual([
      { name: 'quality', traceName: 'trace-name-1', observationName: sent.get('obs-1')!.name, avg_value: 0.8 },
      { name: 'quality', traceName: 'trace-name-2', observationName: null, avg_value: 0.4 },
    ]);
  });

  it('groups the v1 traces view by trace with its observations rolled up', async () => {
    const { rows } = await run(ENGINE_QUERIES.observationsPerUser, true, 'v1');
    const perUser = new Map<string, number>();
    for (const o of sent.values()) {
      const user = `user-${Number(o.trace.split('-')[1]) % 5}`;
      perUser.set(user, (perUser.get(user) ?? 0) + 1);
    }
    expect(Object.fromEntries(rows.map((r) => [r.userId, r.sum_observationsCount]))).toEqual(Object.fromEntries(perUser));
  });
});

describe('ordering', () => {
  it('puts groups without a value last in a descending top-N, as Langfuse does', async () => {
    await post(orderingBatch());
    const { rows } = await run(ENGINE_QUERIES.costliestFirst);
    expect(rows).toEqual([
      { name: 'dear', sum_inputCost: 2 },
      { name: 'cheap', sum_inputCost: 0.5 },
      { name: 'no-cost', sum_inputCost: null },
    ]);
  });
});
