// One engine, two dialects (issue 23): every metrics query of the test suites (fixtures/metrics-suites.ts:
// the integration suites' data and queries, the unit suites' queries) and a coverage set (every
// dimension, measure × aggregation, filter type, granularity and histogram of every view, over data
// with the awkward values: many-digit costs, zero and negative latencies, NULLs, a missing trace,
// a year boundary) asked of one server on PostgreSQL and on ClickHouse, after the exporter has
// caught up. Compared twice:
// - the HTTP answers (v2, v1, daily), byte for byte: the same server with the metrics store on
//   (ClickHouse) and off (PostgreSQL, roll-ups included), through the same handler
// - the rows of the execute stage, before shaping: keys equal, numbers equal as exact decimals
//   (PostgreSQL's numeric text against ClickHouse's), times to the millisecond
// On PGlite, and on PostgreSQL (DATABASE_URL) on a database of its own.
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeClickHouseMetrics } from '../../src/analytics/metrics.ts';
import {
  clickHouseDialect,
  MetricsQueryError,
  type MetricsQueryInput,
  prepareInternal,
  prepareMetrics,
  type Prepared,
  dailyQueries,
  type Row,
} from '../../src/domain/metrics/index.ts';
import { aggregationsFor, VIEWS } from '../../src/domain/metrics/views.ts';
import { executeMetrics } from '../../src/store/metrics.ts';
import { kysely } from '../../src/store/sql.ts';
import {
  API_BAD_QUERIES,
  apiBatch,
  apiDailyCases,
  apiQueries,
  dailyBatch,
  dailyCases,
  ENGINE_QUERIES,
  engineData,
  type DailyCase,
  type MetricsCase,
  orderingBatch,
  rollupQueries,
  UNIT_DAILY_CASES,
  UNIT_QUERIES,
} from '../fixtures/metrics-suites.ts';
import { basic, type TestServer } from '../support/start.ts';
import { type ClickHouseUnderTest, startWithClickHouse } from './export-cases.ts';

const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

/** every query of the metrics suites */
function suiteCases(env: string): MetricsCase[] {
  const api = apiQueries(env);
  return [
    ...rollupQueries().map((query, i) => ({ name: `metrics.test.ts roll-up query ${i}`, version: 'v2' as const, query })),
    ...Object.entries(ENGINE_QUERIES).map(([name, query]) => ({
      name: `metrics.test.ts ${name}`,
      version: name === 'observationsPerUser' ? ('v1' as const) : ('v2' as const),
      query: query as MetricsQueryInput,
    })),
    { name: 'metrics-api.test.ts dailyCostAndLatency', version: 'v2', query: api.dailyCostAndLatency },
    { name: 'metrics-api.test.ts costByTraceName', version: 'v1', query: api.costByTraceName },
    { name: 'metrics-api.test.ts count (project B)', version: 'v2', query: api.count, project: 'projectB' },
    ...UNIT_QUERIES.map((query, i) => ({ name: `unit query ${i}`, version: 'v2' as const, query })),
  ];
}

// ---- the coverage data: project A, environment cov-env, March 2026 and the turn of 2026

const at = (iso: string, plusMs = 0) => new Date(Date.parse(iso) + plusMs).toISOString();

function coverageBatch(): Record<string, unknown>[] {
  const env = 'cov-env';
  const ev = (type: string, body: Record<string, unknown>, timestamp = '2026-03-03T10:00:00.000Z') => ({
    id: unique('cov-e'),
    timestamp,
    type,
    body: { environment: env, ...body },
  });
  const trace = (id: string, timestamp: string, body: Record<string, unknown>) => ev('trace-create', { id, timestamp, ...body }, timestamp);
  const gen = (id: string, traceId: string | null, start: string, latencyMs: number | null, body: Record<string, unknown>) =>
    ev(
      'generation-create',
      {
        id,
        ...(traceId ? { traceId } : {}),
        name: 'cov-llm',
        startTime: start,
        ...(latencyMs === null ? {} : { endTime: at(start, latencyMs) }),
        ...body,
      },
      start,
    );
  const rates = [1, 7, 999, 1000, 1001, 12_345, 86_399_999].flatMap((ms, i) =>
    [0, 1, 37, 1_000_003].map((output, j) =>
      gen(`cov-rate-${i}-${j}`, 'cov-t2', at('2026-03-04T12:00:00.000Z', (i * 4 + j) * 60_000), ms, {
        model: 'cov-model-b',
        usageDetails: { input: output * 3, output, total: output * 4 },
        costDetails: { total: Number(`0.${String(i * 4 + j).padStart(3, '0')}123456789`) },
      }),
    ),
  );
  // values on the bins' edges: costs 0, 0.1, …, 1 and latencies 0, 100, …, 1000 ms, binned by 10 and 50
  const edges = Array.from({ length: 11 }, (_, i) =>
    gen(`cov-edge-${i}`, 'cov-t2', at('2026-03-04T13:00:00.000Z', i * 60_000), i * 100, {
      model: 'cov-model-edge',
      usageDetails: { input: i, output: i },
      costDetails: { total: i / 10 },
    }),
  );
  return [
    ...edges,
    trace('cov-t1', '2026-03-03T10:00:00.000Z', {
      name: 'cov-checkout',
      userId: 'cov-u1',
      sessionId: 'cov-s1',
      release: 'r1',
      version: 'v1',
      tags: ['alpha', 'beta'],
      metadata: { plan: 'pro', n: 3, flag: true, nested: { a: 1 }, nul: null, price: 1.5 },
    }),
    trace('cov-t2', '2026-03-04T12:00:00.000Z', {
      name: 'cov-search',
      userId: 'cov-u2',
      tags: [],
      metadata: { plan: 'free', n: 10, flag: false },
    }),
    trace('cov-t3', '2025-12-31T23:30:00.000Z', { tags: ['beta'] }),
    trace('cov-t4', '2026-01-01T00:30:00.000Z', { name: `it's "quoted" \\ ünï %_`, userId: 'cov-u1', tags: ['ünï'] }),
    ev('span-create', { id: 'cov-s1', traceId: 'cov-t1', name: 'cov-step', startTime: '2026-03-03T10:00:00.500Z', metadata: { n: 2.5 } }),
    gen('cov-g1', 'cov-t1', '2026-03-03T10:00:01.000Z', 1234, {
      parentObservationId: 'cov-s1',
      model: 'cov-model-a',
      level: 'DEFAULT',
      version: 'cv1',
      promptName: 'p1',
      promptVersion: 2,
      completionStartTime: '2026-03-03T10:00:01.120Z',
      usageDetails: { input: 1200, output: 34, total: 1234, cache_read: 50 },
      // biome-ignore lint/correctness/noPrecisionLoss: more digits than a double holds, as a caller may send them
      costDetails: { input: 0.000000123456789012, output: 1.5, total: 1.500000123456789012 },
      metadata: { plan: 'pro', n: 3, flag: true, price: 1.5 },
    }),
    gen('cov-g2', 'cov-t1', '2026-03-03T10:00:02.000Z', 0, {
      parentObservationId: 'cov-s1',
      model: 'cov-model-b',
      usageDetails: { input: 0, output: 0 },
      costDetails: { input: 0.1, output: 0.2, total: 0.3 },
      metadata: { plan: 'free', flag: false, n: -1 },
    }),
    gen('cov-g3', 'cov-t2', '2026-03-04T12:00:00.000Z', 333, {
      level: 'ERROR',
      usageDetails: { input: 7, output: 3 },
      statusMessage: 'boom',
    }),
    gen('cov-g4', 'cov-t3', '2025-12-31T23:59:59.999Z', 1, {
      model: 'cov-model-a',
      usageDetails: { input: 1, output: 1 },
      costDetails: { total: 0.000000000000000001 },
    }),
    gen('cov-g5', 'cov-t4', '2026-01-01T00:00:00.000Z', 86_400_000, {
      model: 'cov-model-a',
      promptName: 'p1',
      promptVersion: 10,
      usageDetails: { input: 123_456_789, output: 987_654_321 },
      costDetails: { total: 12345.678901234567 },
    }),
    gen('cov-g6', null, '2026-03-05T08:00:00.000Z', null, { name: 'cov-orphan', model: 'cov-model-c', usageDetails: { input: 5 } }),
    ev('event-create', { id: 'cov-ev1', traceId: 'cov-t1', name: 'cov-event', startTime: '2026-03-03T10:00:03.000Z' }),
    ...rates,
    ev('score-create', {
      id: 'cov-sc1',
      traceId: 'cov-t1',
      observationId: 'cov-g1',
      name: 'cov-q',
      value: 0.75,
      dataType: 'NUMERIC',
      comment: 'fine',
      timestamp: '2026-03-03T11:00:00.000Z',
    }),
    ev('score-create', {
      id: 'cov-sc2',
      traceId: 'cov-t2',
      name: 'cov-q',
      value: 1 / 3,
      dataType: 'NUMERIC',
      timestamp: '2026-03-04T13:00:00.000Z',
    }),
    ev('score-create', {
      id: 'cov-sc3',
      traceId: 'cov-missing-trace',
      name: 'cov-q',
      value: -2.5,
      dataType: 'NUMERIC',
      timestamp: '2026-03-05T13:00:00.000Z',
    }),
    ev('score-create', {
      id: 'cov-sc4',
      traceId: 'cov-t1',
      name: 'cov-ok',
      value: 1,
      dataType: 'BOOLEAN',
      timestamp: '2026-03-03T12:00:00.000Z',
    }),
    ev('score-create', {
      id: 'cov-sc5',
      traceId: 'cov-t3',
      name: 'cov-ok',
      value: 0,
      dataType: 'BOOLEAN',
      timestamp: '2026-01-01T01:00:00.000Z',
    }),
    ev('score-create', {
      id: 'cov-sc6',
      traceId: 'cov-t2',
      name: 'cov-grade',
      value: 'good',
      dataType: 'CATEGORICAL',
      timestamp: '2026-03-04T14:00:00.000Z',
    }),
    ev('score-create', {
      id: 'cov-sc7',
      traceId: 'cov-missing-trace',
      name: 'cov-grade',
      value: 'bad',
      dataType: 'CATEGORICAL',
      timestamp: '2026-03-05T14:00:00.000Z',
    }),
  ];
}

// ---- the coverage queries

const WIDE = { fromTimestamp: '2025-12-01T00:00:00Z', toTimestamp: '2026-04-15T00:00:00Z' };
const GROUP_BY: Record<string, string> = {
  observations: 'name',
  traces: 'name',
  'scores-numeric': 'name',
  'scores-categorical': 'name',
  'scores-boolean': 'name',
};

type Filter = NonNullable<MetricsQueryInput['filters']>[number];
const f = (column: string, type: string, operator: string, value: unknown, key?: string) =>
  ({ column, type, operator, value, ...(key === undefined ? {} : { key }) }) as Filter;
const TRICKY = `it's "quoted" \\ ünï %_`;

const FILTERS: Record<string, Filter[]> = {
  observations: [
    ...['=', 'contains', 'does not contain', 'starts with', 'ends with'].flatMap((op) => [
      f('name', 'string', op, 'cov'),
      f('traceName', 'string', op, TRICKY),
    ]),
    f('name', 'string', '=', ''),
    f('environment', 'stringOptions', 'any of', ['cov-env', 'prod']),
    f('providedModelName', 'stringOptions', 'none of', ['cov-model-a']),
    f('providedModelName', 'stringOptions', 'any of', []),
    f('startTime', 'datetime', '>', '2026-03-03T10:00:01.000Z'),
    f('start_time', 'datetime', '<=', '2026-01-01T00:00:00.000Z'),
    f('isRootObservation', 'boolean', '=', true),
    f('isRootObservation', 'boolean', '<>', true),
    ...['any of', 'none of', 'all of'].map((op) => f('tags', 'arrayOptions', op, ['beta', 'ünï'])),
    f('tags', 'arrayOptions', 'all of', []),
    ...['=', 'contains', 'does not contain', 'starts with', 'ends with'].map((op) => f('metadata', 'stringObject', op, 'pr', 'plan')),
    f('metadata', 'stringObject', '=', 'true', 'flag'),
    f('metadata', 'stringObject', 'contains', '"a"', 'nested'),
    ...['=', '>', '<', '>=', '<='].map((op) => f('metadata', 'numberObject', op, 2.5, 'n')),
    f('metadata', 'booleanObject', '=', true, 'flag'),
    f('metadata', 'booleanObject', '<>', true, 'flag'),
    f('metadata', 'stringObject', '=', TRICKY, TRICKY),
    ...['is null', 'is not null'].flatMap((op) =>
      ['traceName', 'providedModelName', 'tags', 'metadata', 'promptVersion', 'isRootObservation'].map((c) => f(c, 'null', op, '')),
    ),
    f('costType', 'string', '=', 'input'),
    f('usageType', 'stringOptions', 'none of', ['total']),
  ],
  traces: [
    f('name', 'string', 'starts with', 'cov'),
    f('userId', 'stringOptions', 'any of', ['cov-u1']),
    f('tags', 'arrayOptions', 'any of', ['alpha', 'ünï']),
    f('tags', 'arrayOptions', 'none of', ['beta']),
    f('metadata', 'numberObject', '>=', 3, 'n'),
    f('timestamp', 'datetime', '<', '2026-03-04T00:00:00.000Z'),
    f('release', 'null', 'is null', ''),
    f('name', 'null', 'is not null', ''),
  ],
  'scores-numeric': [
    ...['=', '>', '<', '>=', '<='].map((op) => f('value', 'number', op, 0.75)),
    f('value', 'number', '<', 1e308),
    f('traceName', 'string', 'contains', 'cov'),
    ...['any of', 'none of', 'all of'].map((op) => f('tags', 'arrayOptions', op, ['beta'])),
    ...['is null', 'is not null'].flatMap((op) =>
      ['tags', 'traceName', 'observationName', 'observationPromptVersion'].map((c) => f(c, 'null', op, '')),
    ),
    f('observationModelName', 'stringOptions', 'none of', ['cov-model-a']),
  ],
  'scores-boolean': [f('booleanValue', 'boolean', '=', true), f('booleanValue', 'boolean', '<>', true), f('userId', 'null', 'is null', '')],
  'scores-categorical': [f('stringValue', 'stringOptions', 'any of', ['good']), f('stringValue', 'string', 'ends with', 'd')],
};

function coverageCases(): MetricsCase[] {
  const out: MetricsCase[] = [];
  const add = (name: string, query: Partial<MetricsQueryInput> & Pick<MetricsQueryInput, 'view'>, version: 'v1' | 'v2' = 'v1') =>
    out.push({ name, version, query: { metrics: [], ...WIDE, ...query } as MetricsQueryInput });
  for (const [viewName, view] of Object.entries(VIEWS)) {
    const v = viewName as MetricsQueryInput['view'];
    const by = [{ field: GROUP_BY[viewName]! }];
    const count = [{ measure: 'count', aggregation: 'count' as const }];
    const dims = Object.entries(view.dimensions).filter(([, d]) => !d.unavailable && !d.pairExpand);
    for (const [d] of dims) {
      add(`${v} by ${d}`, { view: v, dimensions: [{ field: d }], metrics: count });
      add(`${v} by ${d}, last first`, { view: v, dimensions: [{ field: d }], metrics: count, orderBy: [{ field: d, direction: 'desc' }] });
    }
    const measures = Object.entries(view.measures).filter(([, m]) => !m.unavailable && !m.requiresDimension);
    for (const [m, measure] of measures) {
      for (const aggregation of aggregationsFor(measure)) {
        const metrics = [{ measure: m, aggregation }];
        add(`${v} ${aggregation} ${m}`, { view: v, metrics });
        add(`${v} ${aggregation} ${m} by ${by[0]!.field} per week`, {
          view: v,
          dimensions: by,
          metrics,
          timeDimension: { granularity: 'week' },
        });
        if (aggregation !== 'histogram')
          add(`${v} ${aggregation} ${m} by ${by[0]!.field}, smallest first`, {
            view: v,
            dimensions: by,
            metrics,
            orderBy: [{ field: `${aggregation}_${m}`, direction: 'asc' }],
            config: { row_limit: 3 },
          });
      }
    }
    for (const filter of FILTERS[viewName] ?? []) {
      add(`${v} where ${JSON.stringify(filter)}`, { view: v, dimensions: by, metrics: count, filters: [filter] });
    }
  }
  // the pairs of the usage and cost maps
  for (const [dim, measure] of [
    ['costType', 'costByType'],
    ['usageType', 'usageByType'],
  ] as const) {
    add(`${dim}`, { view: 'observations', dimensions: [{ field: dim }], metrics: [{ measure: 'count', aggregation: 'count' }] });
    for (const aggregation of aggregationsFor(VIEWS.observations.measures[measure]!))
      add(`${aggregation} ${measure}`, {
        view: 'observations',
        metrics: [{ measure, aggregation }],
        timeDimension: { granularity: 'month' },
      });
  }
  // every granularity, windows that cut buckets and cross a year, gap filling, time orders
  const windows: [string, string][] = [
    ['2026-03-03T09:30:00Z', '2026-03-03T10:31:00Z'],
    ['2026-03-02T00:00:00Z', '2026-03-05T12:00:00.500Z'],
    ['2025-12-30T12:00:00Z', '2026-01-02T12:00:00Z'],
    ['2025-12-01T00:00:00Z', '2026-04-15T00:00:00Z'],
  ];
  for (const granularity of ['minute', 'hour', 'day', 'week', 'month', 'auto'] as const) {
    for (const [fromTimestamp, toTimestamp] of windows) {
      const q = {
        view: 'observations' as const,
        dimensions: [{ field: 'providedModelName' }],
        metrics: [
          { measure: 'totalCost', aggregation: 'sum' as const },
          { measure: 'latency', aggregation: 'p90' as const },
          { measure: 'outputTokensPerSecond', aggregation: 'avg' as const },
        ],
        timeDimension: { granularity },
        fromTimestamp,
        toTimestamp,
        config: { row_limit: 1000 },
      };
      add(`${granularity} ${fromTimestamp}`, q, 'v2');
      add(`${granularity} ${fromTimestamp} newest first`, { ...q, orderBy: [{ field: 'time_dimension', direction: 'desc' }] }, 'v2');
      add(`${granularity} ${fromTimestamp} scores`, {
        view: 'scores-numeric',
        metrics: [{ measure: 'value', aggregation: 'avg' }],
        timeDimension: { granularity },
        fromTimestamp,
        toTimestamp,
      });
    }
  }
  // high cardinality (v2), a top-N with NULL sums last, histograms per group and bucket
  add(
    'top users by cost',
    {
      view: 'observations',
      dimensions: [{ field: 'userId' }, { field: 'providedModelName' }],
      metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
      orderBy: [{ field: 'sum_totalCost', direction: 'desc' }],
      config: { row_limit: 5 },
    },
    'v2',
  );
  for (const measure of ['latency', 'totalCost', 'outputTokensPerSecond', 'timeToFirstToken', 'totalTokens'])
    add(`histogram of ${measure} by name per day`, {
      view: 'observations',
      dimensions: [{ field: 'name' }],
      metrics: [
        { measure, aggregation: 'histogram' },
        { measure, aggregation: 'max' },
      ],
      timeDimension: { granularity: 'day' },
      config: { bins: 3 },
    });
  // one group and more bins than are compared edge by edge: the Float64 guess, corrected
  for (const measure of ['totalCost', 'outputTokensPerSecond'])
    add(`histogram of ${measure}, 50 bins`, {
      view: 'observations',
      metrics: [{ measure, aggregation: 'histogram' }],
      config: { bins: 50 },
    });
  // values exactly on the edges fall in the upper bin (the last edge in the last bin), in each way of binning
  for (const measure of ['totalCost', 'latency'])
    for (const bins of [10, 50])
      add(`histogram of ${measure} on the edges, ${bins} bins`, {
        view: 'observations',
        metrics: [{ measure, aggregation: 'histogram' }],
        filters: [f('providedModelName', 'string', '=', 'cov-model-edge')],
        config: { bins },
      });
  // ClickHouse's day × model × user roll-up: whole days from it, the partial days at the edges from the base table
  const edgy = { fromTimestamp: '2025-12-31T18:30:00Z', toTimestamp: '2026-03-03T10:15:00Z' };
  add(
    'spend by user and model, whole days and partial edges',
    {
      view: 'observations',
      dimensions: [{ field: 'userId' }, { field: 'providedModelName' }],
      metrics: [
        { measure: 'totalCost', aggregation: 'sum' },
        { measure: 'inputTokens', aggregation: 'avg' },
        { measure: 'count', aggregation: 'count' },
        { measure: 'latency', aggregation: 'avg' },
      ],
      ...edgy,
    },
    'v2',
  );
  add('spend of some users per week', {
    view: 'observations',
    dimensions: [{ field: 'userId' }],
    metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
    filters: [f('userId', 'stringOptions', 'any of', ['cov-u1', 'cov-u2'])],
    timeDimension: { granularity: 'week' },
    ...edgy,
  });
  // a histogram's bounds from the roll-ups' min and max, and from the base table at the edges
  for (const measure of ['totalCost', 'latency', 'inputTokens'])
    add(`histogram of ${measure}, bounds from the roll-ups`, {
      view: 'observations',
      metrics: [{ measure, aggregation: 'histogram' }],
      ...edgy,
    });
  add('histogram of score values by tags', {
    view: 'scores-numeric',
    dimensions: [{ field: 'tags' }],
    metrics: [{ measure: 'value', aggregation: 'histogram' }],
    config: { bins: 4 },
  });
  return out;
}

// ---- comparing

/**
 * A sum or avg of float8 values (a score's value) depends on the order the rows are added in, in
 * PostgreSQL itself (its heap order): such metrics are equal to a few units in the last place, the
 * rest exactly.
 */
const floatSums = (q: MetricsQueryInput) =>
  q.metrics.some(
    (m) =>
      (m.aggregation === 'sum' || m.aggregation === 'avg') && VIEWS[q.view as keyof typeof VIEWS]?.measures[m.measure]?.type === 'number',
  );
const close = (x: number, y: number) => x === y || Math.abs(x - y) <= 4 * Number.EPSILON * Math.max(Math.abs(x), Math.abs(y));
/** the same JSON, numbers equal or close */
function nearlySame(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return close(a, b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => nearlySame(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const [ka, kb] = [Object.keys(a), Object.keys(b)];
    return ka.join() === kb.join() && ka.every((k) => nearlySame((a as Row)[k], (b as Row)[k]));
  }
  return a === b;
}

/** equal rows of the execute stage: numbers as exact decimals (or close, for float8 sums), times to the ms, the rest as they are; null when equal */
export function rowsDiffer(pg: Row[], ch: Row[], tolerant = false): string | null {
  if (pg.length !== ch.length) return `${pg.length} rows on PostgreSQL, ${ch.length} on ClickHouse`;
  for (let i = 0; i < pg.length; i++) {
    const [a, b] = [pg[i]!, ch[i]!];
    const keys = Object.keys(a);
    if (keys.sort().join() !== Object.keys(b).sort().join()) return `row ${i}: keys ${Object.keys(a)} against ${Object.keys(b)}`;
    for (const k of keys) {
      const [x, y] = [a[k], b[k]];
      let same: boolean;
      if (k === 't') same = new Date(x as string).getTime() === (y as Date).getTime();
      else if (/^m\d+$/.test(k) || k === 'lower' || k === 'upper' || k === 'n')
        same =
          x === null || y === null
            ? x === y
            : new Decimal(String(x)).eq(new Decimal(String(y))) || (tolerant && close(Number(x), Number(y)));
      else same = JSON.stringify(x) === JSON.stringify(y);
      if (!same) return `row ${i}, ${k}: ${JSON.stringify(x)} on PostgreSQL, ${JSON.stringify(y)} on ClickHouse`;
    }
  }
  return null;
}

export function identitySuite(name: string, target: () => Promise<ClickHouseUnderTest>) {
  let t: TestServer;
  let stop: () => Promise<void>;
  let clickHouseAnswers = 0;
  const env = unique('identity-env');
  const [dailyEnv, other, tag] = [unique('identity-daily'), unique('identity-other'), unique('identity-tag')];

  beforeAll(async () => {
    const started = await startWithClickHouse(`metrics_identity_${name}`, await target());
    t = started.t;
    stop = started.close;
    const post = async (batch: unknown[]) => {
      const res = await fetch(`${t.server.url}/api/public/ingestion`, {
        method: 'POST',
        headers: { authorization: basic(t.projectA), 'content-type': 'application/json' },
        body: JSON.stringify({ batch }),
      });
      expect(((await res.json()) as { errors: unknown[] }).errors).toEqual([]);
    };
    for (const batch of engineData().batches) await post(batch);
    await post(orderingBatch());
    await post(apiBatch(env));
    await post(dailyBatch(dailyEnv, other, tag));
    await post(coverageBatch());
    // count what ClickHouse answers, so a comparison of PostgreSQL with itself cannot pass
    const store = t.server.services.analytics!.metrics!;
    const execute = store.execute;
    store.execute = (compiled) => {
      clickHouseAnswers++;
      return execute(compiled);
    };
    for (let i = 0; ; i++) {
      const health = (await (await fetch(`${t.server.url}/api/public/health`)).json()) as { analytics: { lagRows: number } };
      if (health.analytics.lagRows === 0) break;
      if (i > 600) throw new Error('the exporter did not catch up');
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 300_000);
  afterAll(async () => {
    await stop?.();
  });

  /** status and body of a GET, answered by ClickHouse or, with its store off, by PostgreSQL */
  async function get(path: string, engine: 'clickhouse' | 'postgres', project: 'projectA' | 'projectB' = 'projectA') {
    const analytics = t.server.services.analytics!;
    const store = analytics.metrics;
    if (engine === 'postgres') analytics.metrics = undefined;
    try {
      const res = await fetch(`${t.server.url}${path}`, { headers: { authorization: basic(t[project]) } });
      return `${res.status} ${await res.text()}`;
    } finally {
      analytics.metrics = store;
    }
  }
  const both = async (path: string, project?: 'projectA' | 'projectB', tolerant = false) => {
    const [ch, pg] = [await get(path, 'clickhouse', project), await get(path, 'postgres', project)];
    if (ch === pg) return null;
    const json = (s: string) => [s.slice(0, 3), JSON.parse(s.slice(4))];
    if (tolerant && nearlySame(json(pg), json(ch))) return null;
    return `PostgreSQL: ${pg.slice(0, 1500)}\nClickHouse: ${ch.slice(0, 1500)}`;
  };

  /** how many of the cases ClickHouse answered from its roll-ups; of them, from the day × model × user one */
  let rollupPlans = 0;
  let userRollupPlans = 0;
  /** how many histograms took their bounds from the roll-ups */
  let rollupBounds = 0;
  /** how many histograms read the days their window covers whole by partition (and the others' rows by time) */
  let partitionScans = 0;

  /** the rows of the execute stage on both engines (PostgreSQL with its roll-ups, as it answers), and on ClickHouse with its roll-ups and without */
  async function rows(c: MetricsCase): Promise<string | null> {
    const projectId = t[c.project ?? 'projectA'].projectId;
    const a = t.server.analytics!;
    let pg: Prepared;
    try {
      pg = prepareMetrics(c.query, projectId, { version: c.version });
    } catch (e) {
      if (!(e instanceof MetricsQueryError)) throw e;
      const message = (e as Error).message;
      expect(() => prepareMetrics(c.query, projectId, { version: c.version }, clickHouseDialect(a.database))).toThrow(message);
      return null;
    }
    const ch = prepareMetrics(c.query, projectId, { version: c.version }, clickHouseDialect(a.database));
    const [p, q] = [await executeMetrics(kysely(t.server.db.em()), pg.compiled), await executeClickHouseMetrics(a, ch.compiled)];
    const main = rowsDiffer(p.rows, q.rows, floatSums(c.query));
    if (main) return `main statement: ${main}`;
    if (ch.compiled.histograms.some((h) => h.query.sql.includes('_min)'))) rollupBounds++;
    if (ch.compiled.histograms.some((h) => h.query.sql.includes('_partition_id'))) partitionScans++;
    if (ch.plan.rollup) {
      // ClickHouse's own roll-ups against its base table
      rollupPlans++;
      if (ch.plan.rollup.keys === 'user') userRollupPlans++;
      const base = prepareMetrics(c.query, projectId, { version: c.version }, clickHouseDialect(a.database, { rollups: false }));
      expect(base.plan.rollup).toBeNull();
      const d = rowsDiffer((await executeClickHouseMetrics(a, base.compiled)).rows, q.rows, floatSums(c.query));
      if (d) return `ClickHouse's roll-ups against its base table: ${d}`;
    }
    for (const [i, h] of p.histograms.entries()) {
      const d = rowsDiffer(h.rows, q.histograms[i]!.rows);
      if (d) return `histogram ${h.alias}: ${d}`;
    }
    return null;
  }

  const check = async (cases: { name: string; run: () => Promise<string | null> }[]) => {
    const problems: string[] = [];
    for (const c of cases) {
      const d = await c.run();
      if (d) problems.push(`${c.name}: ${d}`);
    }
    expect(
      problems.length
        ? `${problems.length} of ${cases.length} differ:\n${problems.map((p) => p.split('\n')[0]!.slice(0, 160)).join('\n')}\n\n${problems.slice(0, 3).join('\n\n')}`
        : '',
    ).toBe('');
    return cases.length;
  };

  const metricsPath = (c: MetricsCase) =>
    `/api/public/${c.version === 'v2' ? 'v2/metrics' : 'metrics'}?query=${encodeURIComponent(JSON.stringify(c.query))}`;
  const dailyPath = (c: DailyCase) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(c.params)) for (const x of ([] as string[]).concat(v)) q.append(k, x);
    return `/api/public/metrics/daily?${q}`;
  };

  describe(`metrics on PostgreSQL and on ClickHouse (${name})`, { timeout: 600_000 }, () => {
    const suites = suiteCases(env);
    const coverage = coverageCases();

    it(`answers every query of the metrics suites alike: ${suites.length} queries, over HTTP and row for row`, async () => {
      const before = clickHouseAnswers;
      await check(suites.map((c) => ({ name: c.name, run: () => both(metricsPath(c), c.project, floatSums(c.query)) })));
      // every query the parser accepts went to ClickHouse once
      const accepted = suites.filter((c) => {
        try {
          prepareMetrics(c.query, 'p', { version: c.version });
          return true;
        } catch {
          return false;
        }
      }).length;
      expect(clickHouseAnswers - before).toBe(accepted);
      expect(accepted).toBeGreaterThan(100);
      const rolled = rollupPlans;
      await check(suites.map((c) => ({ name: c.name, run: () => rows(c) })));
      // the suites' roll-up queries took ClickHouse's roll-ups
      expect(rollupPlans - rolled).toBeGreaterThanOrEqual(rollupQueries().length);
    });

    it('answers every daily request of the suites alike, and their bad queries with the same 400', async () => {
      const days = [...dailyCases(dailyEnv, other, tag), ...apiDailyCases(env), ...UNIT_DAILY_CASES];
      await check(days.map((c) => ({ name: `daily: ${c.name}`, run: () => both(dailyPath(c)) })));
      // the two statements of each: row for row
      const internal = days.map((c) => ({
        name: `daily statements: ${c.name}`,
        run: async () => {
          const p = c.params;
          const list = (v: string | string[] | undefined) => (v === undefined ? undefined : ([] as string[]).concat(v));
          const queries = dailyQueries({
            traceName: p.traceName as string | undefined,
            userId: p.userId as string | undefined,
            tags: list(p.tags),
            environments: list(p.environment),
            from: p.fromTimestamp ? new Date(p.fromTimestamp as string) : undefined,
            to: p.toTimestamp ? new Date(p.toTimestamp as string) : undefined,
          });
          const a = t.server.analytics!;
          for (const q of [queries.traces, queries.observations]) {
            const pg = prepareInternal(q, t.projectA.projectId);
            const ch = prepareInternal(q, t.projectA.projectId, clickHouseDialect(a.database));
            const d = rowsDiffer(
              (await executeMetrics(kysely(t.server.db.em()), pg.compiled)).rows,
              (await executeClickHouseMetrics(a, ch.compiled)).rows,
            );
            if (d) return d;
          }
          return null;
        },
      }));
      await check(internal);
      const bad = API_BAD_QUERIES.map((q, i) => ({
        name: `bad query ${i}`,
        run: () => both(`/api/public/v2/metrics${q === null ? '' : `?query=${encodeURIComponent(q)}`}`),
      }));
      await check(bad);
    });

    it(`answers the coverage queries alike: ${coverage.length} queries over every view, dimension, measure, aggregation, filter type and granularity`, async () => {
      await check(coverage.map((c) => ({ name: c.name, run: () => both(metricsPath(c), c.project, floatSums(c.query)) })));
      const rolled = rollupPlans;
      await check(coverage.map((c) => ({ name: c.name, run: () => rows(c) })));
      expect(rollupPlans - rolled).toBeGreaterThan(100);
      // the user roll-up and the roll-ups' bounds were read, and answered as the base table does
      expect(userRollupPlans).toBeGreaterThanOrEqual(3);
      expect(rollupBounds).toBeGreaterThanOrEqual(3);
      expect(partitionScans).toBeGreaterThanOrEqual(3);
    });
  });
}
