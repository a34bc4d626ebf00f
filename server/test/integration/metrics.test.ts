// The metrics engine against a database (PGlite, and PostgreSQL when DATABASE_URL is set):
// every planned query gives the same rows from the roll-up as from the base table, numbers
// match a reference computed here from the data sent, and trace fields and scores show up.
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareMetrics, shape, type MetricsQueryInput } from '../../src/domain/metrics/index.ts';
import { executeMetrics } from '../../src/store/metrics.ts';
import { kysely } from '../../src/store/sql.ts';
import { basic, startTestServer, type TestServer } from '../support/start.ts';

let t: TestServer;
const FROM = '2026-03-01T00:00:00Z';
const TO = '2026-03-11T00:00:00Z';
const MODELS = ['m-alpha', 'm-beta', 'm-gamma'];
const NAMES = ['chat', 'embed', 'rank'];
const ENVS = ['prod', 'staging'];

interface Sent {
  id: string;
  model: string;
  name: string;
  env: string;
  start: number;
  latency: number | null;
  cost: string;
  input: number;
  output: number;
  trace: string;
}
const sent = new Map<string, Sent>();

function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

async function post(batch: unknown[]) {
  const res = await fetch(`${t.server.url}/api/public/ingestion`, {
    method: 'POST',
    headers: { authorization: basic(t.projectA), 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  const body = (await res.json()) as { errors: unknown[] };
  expect(body.errors).toEqual([]);
}

const event = (o: Sent, type: string) => ({
  id: `evt-${type}-${o.id}-${Math.random()}`,
  timestamp: new Date(o.start).toISOString(),
  type,
  body: {
    id: o.id,
    traceId: o.trace,
    name: o.name,
    model: o.model,
    environment: o.env,
    startTime: new Date(o.start).toISOString(),
    endTime: o.latency === null ? null : new Date(o.start + o.latency).toISOString(),
    usageDetails: { input: o.input, output: o.output, total: o.input + o.output },
    costDetails: { total: Number(o.cost) },
  },
});

beforeAll(async () => {
  t = await startTestServer();
  const r = rng(7);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const all: Sent[] = [];
  for (let i = 0; i < 400; i++) {
    // some observations outside the window, some on its edges
    const start = Date.parse(FROM) - 3_600_000 + Math.floor(r() * 11 * 86_400_000);
    all.push({
      id: `obs-${i}`,
      model: pick(MODELS),
      name: pick(NAMES),
      env: pick(ENVS),
      start,
      latency: r() < 0.1 ? null : Math.floor(r() * 5000),
      cost: (Math.floor(r() * 1e9) / 1e9).toFixed(9),
      input: Math.floor(r() * 5000),
      output: Math.floor(r() * 800),
      trace: `trace-${i % 40}`,
    });
  }
  all.push({ ...all[0]!, id: 'obs-at-from', start: Date.parse(FROM) }, { ...all[1]!, id: 'obs-at-to', start: Date.parse(TO) });
  for (let i = 0; i < all.length; i += 100) await post(all.slice(i, i + 100).map((o) => event(o, 'generation-create')));
  // later updates move observations between roll-up keys and hours, and change their cost
  const moved = all
    .filter((_, i) => i % 7 === 0)
    .map((o) => ({ ...o, model: pick(MODELS), name: pick(NAMES), start: o.start + 5_400_000, cost: (Number(o.cost) * 2).toFixed(9) }));
  await post(moved.map((o) => event(o, 'generation-update')));
  for (const o of [...all, ...moved]) sent.set(o.id, o);
  // traces arrive after their observations
  await post(
    Array.from({ length: 40 }, (_, i) => ({
      id: `evt-trace-${i}`,
      timestamp: FROM,
      type: 'trace-create',
      body: { id: `trace-${i}`, name: `trace-name-${i % 3}`, userId: `user-${i % 5}` },
    })),
  );
  await post([
    {
      id: 'evt-score-1',
      timestamp: FROM,
      type: 'score-create',
      body: { id: 'score-1', name: 'quality', value: 0.8, traceId: 'trace-1', observationId: 'obs-1', timestamp: '2026-03-02T00:00:00Z' },
    },
    {
      id: 'evt-score-2',
      timestamp: FROM,
      type: 'score-create',
      body: { id: 'score-2', name: 'quality', value: 0.4, traceId: 'trace-2', timestamp: '2026-03-02T00:00:00Z' },
    },
  ]);
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
  const queries: MetricsQueryInput[] = [];
  const metrics: MetricsQueryInput['metrics'] = [
    { measure: 'totalCost', aggregation: 'sum' },
    { measure: 'count', aggregation: 'count' },
    { measure: 'latency', aggregation: 'avg' },
    { measure: 'inputTokens', aggregation: 'sum' },
    { measure: 'latency', aggregation: 'count' },
  ];
  for (const dims of [[], ['providedModelName'], ['name', 'environment'], ['type']]) {
    for (const granularity of [null, 'hour', 'day', 'week', 'month', 'auto'] as const) {
      for (const [from, to] of [
        [FROM, TO],
        ['2026-03-02T00:30:00Z', '2026-03-05T12:00:00.500Z'],
        ['2027-01-01T00:00:00Z', '2027-01-03T00:00:00Z'],
      ]) {
        queries.push({
          view: 'observations',
          dimensions: dims.map((field) => ({ field })),
          metrics,
          timeDimension: granularity ? { granularity } : null,
          fromTimestamp: from!,
          toTimestamp: to!,
          filters: [{ column: 'environment', operator: 'any of', value: ENVS, type: 'stringOptions' }],
        });
      }
    }
  }

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
    const { rows } = await run({
      view: 'observations',
      dimensions: [{ field: 'providedModelName' }],
      metrics: [
        { measure: 'totalCost', aggregation: 'sum' },
        { measure: 'outputTokens', aggregation: 'sum' },
      ],
      fromTimestamp: FROM,
      toTimestamp: TO,
    });
    for (const model of MODELS) {
      const mine = inWindow().filter((o) => o.model === model);
      const exact = mine.reduce((s, o) => s.plus(o.cost), new Decimal(0));
      const row = rows.find((r) => r.providedModelName === model)!;
      expect(Math.abs(Number(row.sum_totalCost) - exact.toNumber()) / exact.toNumber()).toBeLessThan(1e-12);
      expect(row.sum_outputTokens).toBe(mine.reduce((s, o) => s + o.output, 0));
    }
  });

  it('computes exact percentiles (linear interpolation) by name', async () => {
    const { rows } = await run({
      view: 'observations',
      dimensions: [{ field: 'name' }],
      metrics: [
        { measure: 'latency', aggregation: 'p95' },
        { measure: 'latency', aggregation: 'p50' },
      ],
      fromTimestamp: FROM,
      toTimestamp: TO,
    });
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
    const { rows } = await run({
      view: 'observations',
      metrics: [{ measure: 'totalCost', aggregation: 'histogram' }],
      config: { bins: 7 },
      fromTimestamp: FROM,
      toTimestamp: TO,
    });
    const bins = rows[0]!.histogram_totalCost as [number, number, number][];
    expect(bins.length).toBeLessThanOrEqual(7);
    expect(bins.reduce((n, b) => n + b[2], 0)).toBe(inWindow().length);
    const costs = inWindow().map((o) => Number(o.cost));
    expect(bins[0]![0]).toBe(Math.min(...costs));
    expect(bins.at(-1)![1]).toBe(Math.max(...costs));
  });

  it('answers trace fields from traces that arrived after their observations, and scores in the score views', async () => {
    const { rows } = await run({
      view: 'observations',
      dimensions: [{ field: 'traceName' }],
      metrics: [{ measure: 'count', aggregation: 'count' }],
      fromTimestamp: FROM,
      toTimestamp: TO,
    });
    expect(rows.map((r) => r.traceName).sort()).toEqual(['trace-name-0', 'trace-name-1', 'trace-name-2']);
    expect(rows.reduce((n, r) => n + Number(r.count_count), 0)).toBe(inWindow().length);
    const scores = await run({
      view: 'scores-numeric',
      dimensions: [{ field: 'name' }, { field: 'traceName' }, { field: 'observationName' }],
      metrics: [{ measure: 'value', aggregation: 'avg' }],
      fromTimestamp: FROM,
      toTimestamp: TO,
    });
    expect(scores.rows).toEqual([
      { name: 'quality', traceName: 'trace-name-1', observationName: sent.get('obs-1')!.name, avg_value: 0.8 },
      { name: 'quality', traceName: 'trace-name-2', observationName: null, avg_value: 0.4 },
    ]);
  });

  it('groups the v1 traces view by trace with its observations rolled up', async () => {
    const { rows } = await run(
      {
        view: 'traces',
        dimensions: [{ field: 'userId' }],
        metrics: [{ measure: 'observationsCount', aggregation: 'sum' }],
        fromTimestamp: FROM,
        toTimestamp: TO,
      },
      true,
      'v1',
    );
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
    const day = '2026-04-01T00:00:00Z';
    const gen = (id: string, name: string, input: number) => ({
      id: `evt-${id}`,
      timestamp: day,
      type: 'generation-create',
      body: { id, name, startTime: day, costDetails: { input, total: input } },
    });
    await post([
      gen('ord-a', 'cheap', 0.5),
      gen('ord-b', 'dear', 2),
      { id: 'evt-ord-span', timestamp: day, type: 'span-create', body: { id: 'ord-span', name: 'no-cost', startTime: day } },
    ]);
    const { rows } = await run({
      view: 'observations',
      dimensions: [{ field: 'name' }],
      metrics: [{ measure: 'inputCost', aggregation: 'sum' }],
      orderBy: [{ field: 'sum_inputCost', direction: 'desc' }],
      fromTimestamp: day,
      toTimestamp: '2026-04-01T01:00:00Z',
    });
    expect(rows).toEqual([
      { name: 'dear', sum_inputCost: 2 },
      { name: 'cheap', sum_inputCost: 0.5 },
      { name: 'no-cost', sum_inputCost: null },
    ]);
  });
});
