// The metrics engine's stages without a database: parse (validation and its messages), plan
// (bucket, order, source), compile (the SQL a query shape becomes) and shape (names, gap filling).
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, DummyDriver } from 'kysely';
import { describe, expect, it } from 'vitest';
import { prepareMetrics, shape, type MetricsQueryInput } from '../../src/domain/metrics/index.ts';
import { parseQuery } from '../../src/domain/metrics/parse.ts';
import { autoBucket, planQuery } from '../../src/domain/metrics/plan.ts';
import { bucketStart, formatBucket } from '../../src/domain/metrics/shape.ts';
import { metricsSchema } from '../../src/domain/metrics/schema.ts';
import { VIEWS } from '../../src/domain/metrics/views.ts';

const compiler = new Kysely<any>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const window = { fromTimestamp: '2026-01-01T00:00:00Z', toTimestamp: '2026-01-31T00:00:00Z' };
const q = (over: Partial<MetricsQueryInput>): MetricsQueryInput => ({ view: 'observations', metrics: [], ...window, ...over });
const error = (input: MetricsQueryInput, version: 'v1' | 'v2' = 'v2') => {
  try {
    parseQuery(input, { version });
  } catch (e) {
    return (e as Error).message;
  }
  return null;
};

describe('parse', () => {
  it('names unknown fields with the list of valid ones', () => {
    expect(error(q({ dimensions: [{ field: 'colour' }] }))).toBe(
      `Invalid dimension colour. Must be one of ${Object.keys(VIEWS.observations.dimensions).join(', ')}`,
    );
    expect(error(q({ metrics: [{ measure: 'cost', aggregation: 'sum' }] }))).toMatch(
      /^Invalid metric cost\. Must be one of count, traceId, /,
    );
    expect(error(q({ filters: [{ column: 'colour', operator: '=', value: 'x', type: 'string' }] }))).toMatch(
      /^Invalid filter column colour\. Must be one of id, .* or startTime$/,
    );
  });

  it('allows only count and uniq on string measures', () => {
    expect(error(q({ metrics: [{ measure: 'uniqueUserIds', aggregation: 'p95' }] }))).toBe(
      'Aggregation "p95" is not valid for measure "uniqueUserIds" (type: string). Valid aggregations: count, uniq',
    );
    expect(error(q({ metrics: [{ measure: 'uniqueUserIds', aggregation: 'uniq' }] }))).toBeNull();
  });

  it('applies the three high-cardinality rules in v2 only, on the query as sent', () => {
    const base: Partial<MetricsQueryInput> = {
      dimensions: [{ field: 'userId' }, { field: 'sessionId' }],
      metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
    };
    expect(error(q({ ...base, timeDimension: { granularity: 'day' } }))).toBe(
      "High cardinality dimension(s) 'userId, sessionId' cannot be used with timeDimension. Time series queries with high cardinality dimensions produce unbounded result sets.",
    );
    expect(error(q({ ...base, orderBy: [{ field: 'sum_totalCost', direction: 'desc' }] }))).toBe(
      "High cardinality dimension(s) 'userId, sessionId' require both 'config.row_limit' and 'orderBy' with direction 'desc' on a measure field.",
    );
    expect(
      error(
        q({
          ...base,
          config: { row_limit: 5 },
          orderBy: [
            { field: 'userId', direction: 'desc' },
            { field: 'sessionId', direction: 'desc' },
          ],
        }),
      ),
    ).toBe(
      "High cardinality dimension(s) 'userId, sessionId' require 'orderBy' with direction 'desc' on a measure field. 'userId, sessionId' are not a measure in this query.",
    );
    expect(error(q({ ...base, config: { row_limit: 5 }, orderBy: [{ field: 'sum_totalCost', direction: 'desc' }] }))).toBeNull();
    expect(error(q({ ...base, timeDimension: { granularity: 'day' } }), 'v1')).toBeNull();
    expect(error(q({ metrics: [], filters: [{ column: 'userId', operator: '=', value: 'u', type: 'string' }] }))).toBeNull();
  });

  it('checks orderBy fields, filter types and pairExpand dimensions', () => {
    expect(
      error(
        q({ metrics: [{ measure: 'latency', aggregation: 'histogram' }], orderBy: [{ field: 'histogram_latency', direction: 'desc' }] }),
      ),
    ).toBe('Invalid orderBy field: histogram_latency. Must be one of the dimension or metric fields.');
    expect(error(q({ orderBy: [{ field: 'time_dimension', direction: 'asc' }] }))).toMatch(/^Invalid orderBy field: time_dimension/);
    expect(error(q({ timeDimension: { granularity: 'day' }, orderBy: [{ field: 'time_dimension', direction: 'asc' }] }))).toBeNull();
    expect(error(q({ filters: [{ column: 'tags', operator: '=', value: 'a', type: 'string' }] }))).toBe(
      "Invalid filter for field 'tags': Filter type 'string' is not supported for dimension type 'string[]'. Expected 'arrayOptions'.",
    );
    expect(error(q({ filters: [{ column: 'startTime', operator: '=', value: 'a', type: 'string' }] }))).toMatch(/Expected 'datetime'/);
    expect(error(q({ filters: [{ column: 'metadata', operator: '=', value: 'a', type: 'string' }] }))).toMatch(
      /^Invalid filter for field 'metadata': Metadata filters require type 'stringObject'/,
    );
    expect(
      error(
        q({
          metrics: [
            { measure: 'costByType', aggregation: 'sum' },
            { measure: 'usageByType', aggregation: 'sum' },
          ],
        }),
      ),
    ).toBe('Only one pairExpand dimension is supported per query. Found: costType, usageType');
    expect(error(q({ dimensions: [{ field: 'usageType' }], metrics: [{ measure: 'costByType', aggregation: 'sum' }] }))).toMatch(
      /^Only one pairExpand/,
    );
    expect(error(q({ fromTimestamp: window.toTimestamp, toTimestamp: window.fromTimestamp }))).toBe(
      'fromTimestamp must be before toTimestamp',
    );
  });

  it('answers fields Tally does not record with a 400 reason, not a column of nulls', () => {
    expect(error(q({ dimensions: [{ field: 'toolNames' }] }))).toBe(
      'Dimension toolNames is not available in Tally: tool definitions and tool calls are not recorded',
    );
    expect(error(q({ metrics: [{ measure: 'toolCalls', aggregation: 'sum' }] }))).toMatch(/^Measure toolCalls is not available in Tally/);
    expect(error(q({ view: 'scores-numeric', filters: [{ column: 'evaluatorId', operator: '=', value: 'e', type: 'string' }] }))).toMatch(
      /^Dimension evaluatorId is not available/,
    );
  });

  it('defaults the row limit to 100 in v2 and to none in v1', () => {
    expect(parseQuery(q({}), { version: 'v2' }).rowLimit).toBe(100);
    expect(parseQuery(q({}), { version: 'v1' }).rowLimit).toBeNull();
    expect(parseQuery(q({ config: { row_limit: 7, bins: 3 } }), { version: 'v2' })).toMatchObject({ rowLimit: 7, bins: 3 });
  });
});

describe('plan', () => {
  it('picks auto buckets by the window as Langfuse does', () => {
    const at = (h: number) => [new Date(0), new Date(h * 3_600_000)] as const;
    expect([1.9, 2, 71, 72, 1439, 1440, 8759, 8760].map((h) => autoBucket(...at(h)))).toEqual([
      'minute',
      'hour',
      'hour',
      'day',
      'day',
      'week',
      'week',
      'month',
    ]);
  });

  it('orders by time, else the first metric desc, else the first dimension, and fills only without orderBy', () => {
    const plan = (over: Partial<MetricsQueryInput>) => planQuery(parseQuery(q(over), { version: 'v2' }));
    expect(plan({ timeDimension: { granularity: 'day' }, metrics: [{ measure: 'totalCost', aggregation: 'sum' }] })).toMatchObject({
      order: [{ field: 'time_dimension', direction: 'asc' }],
      fill: true,
    });
    expect(plan({ dimensions: [{ field: 'name' }], metrics: [{ measure: 'totalCost', aggregation: 'sum' }] }).order).toEqual([
      { field: 'sum_totalCost', direction: 'desc' },
    ]);
    expect(plan({ dimensions: [{ field: 'name' }] }).order).toEqual([{ field: 'name', direction: 'asc' }]);
    expect(plan({ timeDimension: { granularity: 'day' }, orderBy: [{ field: 'time_dimension', direction: 'desc' }] }).fill).toBe(false);
  });

  it('reads the roll-up for whole hours only when every part of the query is additive over roll-up keys', () => {
    const plan = (over: Partial<MetricsQueryInput>) => planQuery(parseQuery(q(over), { version: 'v2' }));
    const cost: MetricsQueryInput['metrics'] = [{ measure: 'totalCost', aggregation: 'sum' }];
    const month = { from: new Date('2026-01-01T00:00:00Z'), to: new Date('2026-01-31T00:00:00Z') };
    expect(plan({ dimensions: [{ field: 'providedModelName' }], metrics: cost, timeDimension: { granularity: 'day' } }).rollup).toEqual({
      ...month,
      days: month,
      keys: 'main',
    });
    expect(plan({ metrics: cost, fromTimestamp: '2026-01-01T00:30:00Z', toTimestamp: '2026-01-01T05:59:59.999Z' }).rollup).toEqual({
      from: new Date('2026-01-01T01:00:00Z'),
      to: new Date('2026-01-01T06:00:00Z'),
      days: null,
      keys: 'main',
    });
    // whole UTC days from the daily roll-up only for buckets made of whole days
    const partial = { fromTimestamp: '2026-01-01T00:30:00Z', toTimestamp: '2026-01-04T12:00:00Z' };
    expect(plan({ metrics: cost, ...partial, timeDimension: { granularity: 'week' } }).rollup).toEqual({
      from: new Date('2026-01-01T01:00:00Z'),
      to: new Date('2026-01-04T12:00:00Z'),
      days: { from: new Date('2026-01-02T00:00:00Z'), to: new Date('2026-01-04T00:00:00Z') },
      keys: 'main',
    });
    expect(plan({ metrics: cost, ...partial, timeDimension: { granularity: 'hour' } }).rollup?.days).toBeNull();
    expect(plan({ metrics: cost, fromTimestamp: '2026-01-01T00:30:00Z', toTimestamp: '2026-01-02T23:00:00Z' }).rollup?.days).toBeNull();
    const cases: Partial<MetricsQueryInput>[] = [
      { metrics: [{ measure: 'latency', aggregation: 'p95' }] },
      { metrics: [{ measure: 'totalCost', aggregation: 'max' }] },
      {
        dimensions: [{ field: 'userId' }],
        metrics: cost,
        config: { row_limit: 5 },
        orderBy: [{ field: 'sum_totalCost', direction: 'desc' as const }],
      },
      { metrics: cost, filters: [{ column: 'traceName', operator: '=', value: 'x', type: 'string' }] },
      { metrics: cost, timeDimension: { granularity: 'minute' as const } },
      { view: 'scores-numeric', metrics: [{ measure: 'value', aggregation: 'sum' }] },
      { metrics: cost, fromTimestamp: '2026-01-01T00:10:00Z', toTimestamp: '2026-01-01T00:50:00Z' },
    ];
    for (const over of cases) expect(plan(over).rollup, JSON.stringify(over)).toBeNull();
  });
});

describe('compile', () => {
  const text = (input: MetricsQueryInput, useRollup = true) =>
    prepareMetrics(input, 'p1', { version: 'v2', useRollup }).compiled.main.compile(compiler);

  it('puts every caller value in a bind parameter', () => {
    const evil = "x'; drop table observations; --";
    const c = text(
      q({
        dimensions: [{ field: 'name' }],
        metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
        filters: [
          { column: 'name', operator: '=', value: evil, type: 'string' },
          { column: 'metadata', key: evil, operator: '=', value: evil, type: 'stringObject' },
        ],
      }),
    );
    expect(c.sql).not.toContain('drop table');
    expect(c.parameters).toContain(evil);
  });

  it('compiles daily cost by model to one grouped scan, or to the daily and hourly roll-ups plus the edge hours', () => {
    const input = q({
      dimensions: [{ field: 'providedModelName' }],
      metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
      timeDimension: { granularity: 'day' },
    });
    expect(text(input, false).sql).toBe(
      `select o.model as d0, date_bin('1 day', o.start_time, timestamptz '0001-01-01 00:00:00+00') as t, sum(o.total_cost) as m0 from observations o where o.project_id = $1 and o.start_time >= $2 and o.start_time <= $3 group by 1, 2 order by t asc, d0 asc limit $4`,
    );
    const rollup = text(input).sql;
    expect(rollup).toMatch(
      /^with parts as \(select r\.model as d0, date_bin\('1 day', r\.day, timestamptz '0001-01-01 00:00:00\+00'\) as t, sum\(r\.total_cost\) as s0, sum\(r\.total_cost_count\) as c0, sum\(r\.count\) as n from observation_daily r/,
    );
    // the window is whole days: nothing left for the hourly roll-up
    expect(rollup).not.toContain('observation_hourly');
    const partial = text({ ...input, fromTimestamp: '2026-01-01T00:30:00Z', toTimestamp: '2026-01-04T12:00:00Z' }).sql;
    expect(partial).toContain('from observation_daily r where r.project_id = $1 and r.day >= $2 and r.day < $3');
    expect(partial).toContain("union all select r.model as d0, date_bin('1 day', r.hour, timestamptz '0001-01-01 00:00:00+00') as t");
    expect(partial).toMatch(
      /from observation_hourly r where r\.project_id = \$\d+ and \(r\.hour >= \$\d+ and r\.hour < \$\d+ or r\.hour >= \$\d+ and r\.hour < \$\d+\)/,
    );
    expect(rollup).toContain('union all select o.model as d0');
    expect(rollup).toMatch(
      /select d0, t, case when sum\(c0\) = 0 then null else sum\(s0\) end as m0 from parts group by 1, 2 having sum\(n\) > 0 order by t asc, d0 asc limit \$\d+$/,
    );
  });

  it('compiles percentiles exactly and uniq as a distinct count', () => {
    const c = text(
      q({
        dimensions: [{ field: 'name' }],
        metrics: [
          { measure: 'latency', aggregation: 'p95' },
          { measure: 'uniqueUserIds', aggregation: 'uniq' },
        ],
      }),
    );
    expect(c.sql).toContain('percentile_cont(0.95) within group (order by (extract(epoch from (o.end_time - o.start_time)) * 1000)) as m0');
    expect(c.sql).toContain('count(distinct o.user_id) as m1');
    expect(c.sql).toMatch(/order by m0 desc nulls last, d0 asc limit \$4$/);
  });
});

describe('shape', () => {
  it('starts weeks on Monday and labels buckets as Langfuse does', () => {
    expect(bucketStart('week', new Date('2026-11-22T10:00:00Z')).toISOString()).toBe('2026-11-16T00:00:00.000Z'); // a Sunday
    expect(bucketStart('week', new Date('2026-11-16T00:00:00Z')).toISOString()).toBe('2026-11-16T00:00:00.000Z');
    expect(bucketStart('month', new Date('2026-02-28T23:59:59Z')).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(formatBucket('hour', new Date('2026-01-01T10:00:00Z'))).toBe('2026-01-01T10:00:00Z');
    expect(formatBucket('week', new Date('2026-11-16T00:00:00Z'))).toBe('2026-11-16');
  });

  it('fills empty buckets from the first up to, not including, the bucket of toTimestamp, before the row limit', () => {
    const { plan } = prepareMetrics(
      q({
        dimensions: [{ field: 'name' }],
        metrics: [
          { measure: 'totalCost', aggregation: 'sum' },
          { measure: 'latency', aggregation: 'histogram' },
        ],
        timeDimension: { granularity: 'day' },
        fromTimestamp: '2026-01-01T10:00:00Z',
        toTimestamp: '2026-01-05T10:00:00Z',
        config: { row_limit: 4 },
      }),
      'p',
      { version: 'v2' },
    );
    const rows = shape(
      plan,
      [
        { d0: 'a', t: '2026-01-02 00:00:00+00', m0: '1.5' },
        { d0: 'b', t: '2026-01-02 00:00:00+00', m0: null },
        { d0: 'a', t: '2026-01-05 00:00:00+00', m0: '2' },
      ],
      [{ alias: 'histogram_latency', rows: [{ d0: 'a', t: '2026-01-02 00:00:00+00', lower: '1', upper: '2', n: '3' }] }],
    );
    expect(rows).toEqual([
      { name: '', time_dimension: '2026-01-01', sum_totalCost: 0, histogram_latency: [] },
      { name: 'a', time_dimension: '2026-01-02', sum_totalCost: 1.5, histogram_latency: [[1, 2, 3]] },
      { name: 'b', time_dimension: '2026-01-02', sum_totalCost: null, histogram_latency: [] },
      { name: '', time_dimension: '2026-01-03', sum_totalCost: 0, histogram_latency: [] },
    ]);
  });

  it('gives the same filled rows from the first row_limit rows (the limit is in SQL) as from all of them', () => {
    const { plan } = prepareMetrics(
      q({
        dimensions: [{ field: 'name' }],
        metrics: [{ measure: 'count', aggregation: 'count' }],
        timeDimension: { granularity: 'day' },
        fromTimestamp: '2026-01-01T00:00:00Z',
        toTimestamp: '2026-01-09T00:00:00Z',
        config: { row_limit: 5 },
      }),
      'p',
      { version: 'v2' },
    );
    // rows as SQL orders them (t, then name), with empty days between
    const all = ['01', '01', '03', '04', '04', '04', '07', '08'].map((d, i) => ({
      d0: `n${i % 3}`,
      t: `2026-01-${d} 00:00:00+00`,
      m0: String(i + 1),
    }));
    all.sort((x, y) => (x.t === y.t ? (x.d0 < y.d0 ? -1 : 1) : x.t < y.t ? -1 : 1));
    for (let n = 1; n <= all.length; n++) {
      const limited = { ...plan, query: { ...plan.query, rowLimit: n } };
      expect(shape(limited, all.slice(0, n), [])).toEqual(shape(limited, all, []));
    }
  });
});

describe('schema', () => {
  it('lists every v2 view from the engine declarations', () => {
    const s = metricsSchema();
    expect(s.views.map((v) => v.name)).toEqual(['observations', 'scores-numeric', 'scores-categorical', 'scores-boolean']);
    const obs = s.views[0]!;
    expect(obs.dimensions.find((d) => d.name === 'userId')).toMatchObject({
      highCardinality: true,
      available: true,
      filterTypes: ['string', 'stringOptions', 'null'],
    });
    expect(obs.dimensions.find((d) => d.name === 'toolNames')).toMatchObject({ available: false, reason: expect.any(String) });
    expect(obs.measures.find((m) => m.name === 'uniqueUserIds')?.aggregations).toEqual(['count', 'uniq']);
  });
});
