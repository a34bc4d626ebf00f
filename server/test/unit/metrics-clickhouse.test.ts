// The ClickHouse dialect of the metrics compiler (domain/metrics/compile-clickhouse.ts) without a
// database: the statements representative plans become (text and parameters), PostgreSQL's numeric
// rules its rows stage applies (pg-numeric.ts, against figures PostgreSQL printed) and the rows
// it finishes (clickhouse-rows.ts). analytics/metrics-identity*.test.ts runs them against PostgreSQL.
import { describe, expect, it } from 'vitest';
import {
  clickHouseDialect,
  clickHouseRows,
  type MetricsQueryInput,
  prepareInternal,
  prepareMetrics,
} from '../../src/domain/metrics/index.ts';
import { dailyQueries } from '../../src/domain/metrics/daily.ts';
import { div, fromFloat8, numeric, text } from '../../src/domain/metrics/pg-numeric.ts';
import { windowDays } from '../../src/domain/metrics/clickhouse-sql.ts';

// the base tables' statements (the roll-up path has a test of its own below)
const ch = clickHouseDialect('tally', { rollups: false });
const window = { fromTimestamp: '2026-01-01T00:00:00Z', toTimestamp: '2026-01-31T00:00:00Z' };
const q = (over: Partial<MetricsQueryInput>): MetricsQueryInput => ({ view: 'observations', metrics: [], ...window, ...over });
const compiled = (input: MetricsQueryInput, version: 'v1' | 'v2' = 'v2') => prepareMetrics(input, 'p1', { version }, ch).compiled;
const FROM_MS = Date.parse(window.fromTimestamp);
const TO_MS = Date.parse(window.toTimestamp);

describe('the ClickHouse dialect', () => {
  it('compiles daily cost by model to one grouped scan of observations FINAL, every value a typed placeholder', () => {
    const c = compiled(
      q({
        dimensions: [{ field: 'providedModelName' }],
        metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
        timeDimension: { granularity: 'day' },
      }),
    );
    expect(c.main.sql).toBe(
      'SELECT d0, tb, toString(a0) AS m0 FROM (SELECT o.model AS d0, (toUnixTimestamp64Milli(o.start_time) - positiveModulo(toUnixTimestamp64Milli(o.start_time), 86400000)) AS tb, sumOrNull(o.total_cost) AS a0 FROM tally.observations AS o FINAL WHERE o.project_id = {p0:String} AND o.start_time >= fromUnixTimestamp64Milli({p1:Int64}) AND o.start_time <= fromUnixTimestamp64Milli({p2:Int64}) GROUP BY d0, tb) ORDER BY tb ASC NULLS LAST, d0 ASC NULLS LAST LIMIT {p3:UInt64} SETTINGS join_use_nulls = 1, do_not_merge_across_partitions_select_final = 1',
    );
    expect(c.main.params).toEqual({ p0: 'p1', p1: FROM_MS, p2: TO_MS, p3: 100 });
    expect(c.main.rows).toEqual({ dimensions: [{ boolean: false, missing: false }], time: true, metrics: ['value'] });
    expect(c.histograms).toEqual([]);
  });

  it("reads ClickHouse's roll-ups as PostgreSQL reads its own: whole days, whole hours, the edges from the base table", () => {
    const input = q({
      fromTimestamp: '2026-01-01T10:30:00Z',
      toTimestamp: '2026-01-05T12:00:00Z',
      dimensions: [{ field: 'providedModelName' }],
      metrics: [
        { measure: 'totalCost', aggregation: 'sum' },
        { measure: 'totalCost', aggregation: 'avg' },
      ],
      filters: [{ column: 'environment', operator: '=', value: 'prod', type: 'string' }],
    });
    const { plan, compiled: c } = prepareMetrics(input, 'p1', { version: 'v2' }, clickHouseDialect('tally'));
    expect(plan.rollup).toEqual({
      from: new Date('2026-01-01T11:00:00Z'),
      to: new Date('2026-01-05T12:00:00Z'),
      days: { from: new Date('2026-01-02T00:00:00Z'), to: new Date('2026-01-05T00:00:00Z') },
      keys: 'main',
    });
    const sql = c.main.sql;
    expect(sql).toContain('FROM tally.observation_daily AS r FINAL');
    expect(sql).toContain('FROM tally.observation_hourly AS r FINAL');
    expect(sql).toContain('FROM tally.observations AS o FINAL');
    // the filter on the roll-ups' own column, a parameter
    expect(sql).toMatch(/r\.environment = \{p\d+:String\}/);
    // avg: Σ, count and the largest scale of the values (kept by the roll-up beside the decimal sum)
    expect(sql).toContain('max(r.total_cost_scale)');
    expect(sql).toContain('HAVING sum(pn) > 0');
    expect(c.main.rows.metrics).toEqual(['value', 'avg']);
    expect(Object.values(c.main.params)).toContain('prod');
    // PostgreSQL plans the same roll-up
    expect(prepareMetrics(input, 'p1', { version: 'v2' }).plan.rollup).toEqual(plan.rollup);
    // the base-only dialect never reads them
    expect(prepareMetrics(input, 'p1', { version: 'v2' }, ch).compiled.main.sql).not.toMatch(/observation_(hourly|daily)/);
  });

  it('reads spend per user and model from the day × model × user roll-up for whole days, the edges from the base table', () => {
    const input = q({
      fromTimestamp: '2026-01-01T10:30:00Z',
      toTimestamp: '2026-01-05T12:00:00Z',
      dimensions: [{ field: 'userId' }, { field: 'providedModelName' }],
      metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
      filters: [{ column: 'userId', operator: 'any of', value: ['u1'], type: 'stringOptions' }],
      orderBy: [{ field: 'sum_totalCost', direction: 'desc' }],
      config: { row_limit: 50 },
    });
    const { plan, compiled: c } = prepareMetrics(input, 'p1', { version: 'v2' }, clickHouseDialect('tally'));
    expect(plan.rollup).toEqual({
      from: new Date('2026-01-02T00:00:00Z'),
      to: new Date('2026-01-05T00:00:00Z'),
      days: { from: new Date('2026-01-02T00:00:00Z'), to: new Date('2026-01-05T00:00:00Z') },
      keys: 'user',
    });
    expect(c.main.sql).toContain('FROM tally.observation_user_daily AS r FINAL');
    expect(c.main.sql).not.toMatch(/observation_(hourly|daily) /);
    expect(c.main.sql).toContain('FROM tally.observations AS o FINAL');
    // PostgreSQL keeps no such roll-up: the base table
    expect(prepareMetrics(input, 'p1', { version: 'v2' }).plan.rollup).toBeNull();
    // hour buckets (v1 allows them with a user), a key it does not keep, or no whole day: the base table
    for (const over of [
      { timeDimension: { granularity: 'hour' as const } },
      { dimensions: [{ field: 'userId' }, { field: 'environment' }] },
      { fromTimestamp: '2026-01-01T10:30:00Z', toTimestamp: '2026-01-01T23:59:00Z' },
    ])
      expect(
        prepareMetrics({ ...input, ...over }, 'p1', { version: 'v1' }, clickHouseDialect('tally')).plan.rollup,
        JSON.stringify(over),
      ).toBeNull();
  });

  it("takes a histogram's bounds from the roll-ups' min and max when they serve the window, else from the rows", () => {
    const input = q({
      fromTimestamp: '2026-01-01T10:30:00Z',
      toTimestamp: '2026-01-05T12:00:00Z',
      metrics: [{ measure: 'totalCost', aggregation: 'histogram' }],
    });
    const bounds = (q: MetricsQueryInput) =>
      prepareMetrics(q, 'p1', { version: 'v2' }, clickHouseDialect('tally')).compiled.histograms[0]!.query.sql;
    const sql = bounds(input);
    expect(sql).toContain('minOrNull(r.total_cost_min) AS lo');
    expect(sql).toContain('maxOrNull(r.total_cost_max) AS hi');
    expect(sql).toContain('FROM tally.observation_daily AS r FINAL');
    // a measure the roll-ups do not keep, or a filter on a key they lack: the first scan of the rows
    for (const over of [
      { metrics: [{ measure: 'timeToFirstToken', aggregation: 'histogram' as const }] },
      { filters: [{ column: 'traceName', operator: '=' as const, value: 'x', type: 'string' as const }] },
    ])
      expect(bounds({ ...input, ...over } as MetricsQueryInput), JSON.stringify(over)).not.toMatch(/observation_(hourly|daily)|_min\)/);
  });

  it("reads a histogram's whole days by partition and compares only the edge days' times", () => {
    const input = q({
      fromTimestamp: '2026-01-01T10:30:00Z',
      toTimestamp: '2026-01-05T12:00:00Z',
      metrics: [{ measure: 'totalCost', aggregation: 'histogram' }],
    });
    const h = prepareMetrics(input, 'p1', { version: 'v2' }, clickHouseDialect('tally')).compiled.histograms[0]!.query;
    // the values: SELECT … WHERE … _partition_id IN {whole days} UNION ALL SELECT … WHERE … _partition_id IN {edge days}
    const values = h.sql.slice(h.sql.lastIndexOf('FROM (SELECT') + 6, h.sql.indexOf(') GROUP BY bin'));
    const branches = values.split(' UNION ALL ');
    expect(branches).toHaveLength(2);
    const [whole, edges] = branches.map((b) => b.match(/_partition_id IN \{(p\d+):Array\(String\)\}/)![1]!);
    expect(h.params[whole!]).toEqual(['20260102', '20260103', '20260104']);
    expect(h.params[edges!]).toEqual(['20260101', '20260105']);
    // the whole days' branch compares no time; the edge days' compares the window's
    expect(branches[0]).not.toContain('start_time');
    expect(branches[1]).toContain('o.start_time >= fromUnixTimestamp64Milli');
    // not through a cluster's Distributed table, and not without a whole day in the window
    const off = prepareMetrics(input, 'p1', { version: 'v2' }, clickHouseDialect('tally', { dayPartitions: false }));
    expect(off.compiled.histograms[0]!.query.sql).not.toContain('_partition_id');
    const sameDay = q({ ...input, fromTimestamp: '2026-01-01T01:00:00Z', toTimestamp: '2026-01-01T23:00:00Z' });
    expect(prepareMetrics(sameDay, 'p1', { version: 'v2' }, clickHouseDialect('tally')).compiled.histograms[0]!.query.sql).not.toContain(
      '_partition_id',
    );
  });

  it('splits a window into the UTC days it covers whole and those it covers in part', () => {
    const d = (from: string, to: string) => windowDays(new Date(from), new Date(to));
    expect(d('2026-01-01T00:00:00Z', '2026-01-03T00:00:00Z')).toEqual({ whole: ['20260101', '20260102'], partial: ['20260103'] });
    expect(d('2026-01-01T00:00:00.001Z', '2026-01-03T23:59:59Z')).toEqual({ whole: ['20260102'], partial: ['20260101', '20260103'] });
    expect(d('2025-12-31T18:30:00Z', '2026-01-01T10:00:00Z')).toBeNull();
    expect(d('1970-01-01T00:00:00Z', '2026-01-01T00:00:00Z')).toBeNull();
  });

  it('puts every caller value in a parameter, numbers past 2^53 as their text', () => {
    const evil = "x'; drop table observations; --\\";
    const c = compiled(
      q({
        view: 'scores-numeric',
        dimensions: [{ field: 'name' }],
        metrics: [{ measure: 'value', aggregation: 'sum' }],
        filters: [
          { column: 'name', operator: 'contains', value: evil, type: 'string' },
          { column: 'metadata', key: evil, operator: '=', value: evil, type: 'stringObject' },
          { column: 'value', operator: '<', value: 1e308, type: 'number' },
          { column: 'tags', operator: 'all of', value: [evil], type: 'arrayOptions' },
        ],
      }),
    );
    expect(c.main.sql).not.toContain('drop table');
    expect(c.main.sql).toMatch(/position\(s\.name, \{p\d+:String\}\) > 0/);
    expect(c.main.sql).toMatch(/s\.value < \{p\d+:Float64\}/);
    const values = Object.values(c.main.params);
    expect(values.filter((v) => v === evil)).toHaveLength(3); // the name, the metadata key (twice) and value
    expect(values).toContain('1e+308');
    expect(values).toContainEqual([evil]);
  });

  it("computes percentiles as percentile_cont does: the sorted group's two nearest values, interpolated in Float64 from their exact text", () => {
    const c = compiled(
      q({
        dimensions: [{ field: 'name' }],
        metrics: [
          { measure: 'totalCost', aggregation: 'p95' },
          { measure: 'latency', aggregation: 'p50' },
        ],
      }),
    );
    expect(c.main.sql).toContain('arraySort(groupArray(o.total_cost)) AS a0');
    const pos = '(0.95 * (toInt64(length(a0)) - 1))';
    expect(c.main.sql).toContain(
      `toString(if(length(a0) = 0, NULL, if(floor(${pos}) = ceil(${pos}), toFloat64(toString(a0[toUInt64(floor(${pos})) + 1])), toFloat64(toString(a0[toUInt64(floor(${pos})) + 1])) + (${pos} - floor(${pos})) * (toFloat64(toString(a0[toUInt64(ceil(${pos})) + 1])) - toFloat64(toString(a0[toUInt64(floor(${pos})) + 1])))))) AS m0`,
    );
    // latency in ms, exact integers
    expect(c.main.sql).toContain(
      'arraySort(groupArray((toUnixTimestamp64Milli(o.end_time) - toUnixTimestamp64Milli(o.start_time)))) AS a1',
    );
    // ordered by the value itself, NULLs last
    expect(c.main.sql).toMatch(/ORDER BY if\(length\(a0\) = 0, .* DESC NULLS LAST, d0 ASC NULLS LAST LIMIT \{p\d+:UInt64\}/);
  });

  it("leaves numeric's avg to the rows stage: the exact sum, the count and the largest scale; orders by the exact quotient", () => {
    const c = compiled(q({ metrics: [{ measure: 'totalCost', aggregation: 'avg' }], dimensions: [{ field: 'name' }] }));
    expect(c.main.sql).toContain('sumOrNull(o.total_cost) AS s0, count(o.total_cost) AS c0, max(if(position(toString(o.total_cost)');
    expect(c.main.sql).toContain('toString(s0) AS m0_s, toString(c0) AS m0_c, toString(e0) AS m0_d');
    expect(c.main.sql).toContain('ORDER BY toDecimal256(s0, 40) / nullIf(c0, 0) DESC NULLS LAST');
    expect(c.main.rows.metrics).toEqual(['avg']);
    // a latency's scale is extract()'s 6, a float8's avg is float8's own
    expect(compiled(q({ metrics: [{ measure: 'latency', aggregation: 'avg' }] })).main.sql).toContain('max(6) AS e0');
    expect(compiled(q({ view: 'scores-numeric', metrics: [{ measure: 'value', aggregation: 'avg' }] })).main.sql).toContain(
      'avgOrNull(s.value) AS a0',
    );
  });

  it('bins histograms exactly and returns the bounds for the rows stage', () => {
    const c = compiled(
      q({ dimensions: [{ field: 'name' }], metrics: [{ measure: 'totalCost', aggregation: 'histogram' }], config: { bins: 7 } }),
    );
    expect(c.main.sql).toContain('count() AS a0');
    expect(c.histograms).toHaveLength(1);
    const h = c.histograms[0]!.query;
    expect(h.sql).toContain('min(x) OVER (PARTITION BY d0) AS lo, max(x) OVER (PARTITION BY d0) AS hi');
    // a Float64 guess of the bin, corrected by comparing exact Decimal products
    const guess = 'toInt64(floor(toFloat64(x - lo) * 7 / toFloat64(nullIf(hi - lo, 0))))';
    expect(h.sql).toContain(
      `if(hi = lo, 1, least(multiIf((x - lo) * 7 < (hi - lo) * ${guess}, ${guess} - 1, (x - lo) * 7 >= (hi - lo) * (${guess} + 1), ${guess} + 1, ${guess}) + 1, 7)) AS bin`,
    );
    expect(h.sql).toContain('AND o.total_cost IS NOT NULL');
    expect(h.rows.histogram).toEqual({ bins: 7, scale: 'text' });
    const latency = compiled(q({ metrics: [{ measure: 'latency', aggregation: 'histogram' }] })).histograms[0]!.query;
    expect(latency.sql).toContain('intDiv((x - b_lo) * 10, nullIf(b_hi - b_lo, 0))');
    expect(latency.rows.histogram).toEqual({ bins: 10, scale: 6 });
    // one group: the bounds are a scalar subquery (no window), each value compared with the bins' edges
    const one = compiled(q({ metrics: [{ measure: 'totalCost', aggregation: 'histogram' }], config: { bins: 4 } })).histograms[0]!.query
      .sql;
    expect(one).not.toContain(' OVER ');
    expect(one).toMatch(
      /^WITH \(SELECT \(assumeNotNull\(min\(x\)\), assumeNotNull\(max\(x\)\)\) FROM \(SELECT assumeNotNull\(o\.total_cost\) AS x FROM/,
    );
    // one level, grouped by the bin alone: the bounds stay constants
    expect(one).toContain(
      'b.1 AS b_lo, b.2 AS b_hi SELECT toString(b_lo) AS lo, toString(b_hi) AS hi, if(b_hi = b_lo, 1, 1 + (x * 4 >= b_lo * 4 + (b_hi - b_lo) * 1) + (x * 4 >= b_lo * 4 + (b_hi - b_lo) * 2) + (x * 4 >= b_lo * 4 + (b_hi - b_lo) * 3)) AS bin',
    );
    expect(one).toContain('GROUP BY bin ORDER BY bin ASC');
    // many bins: the Float64 guess, corrected, costs less than one comparison per edge
    const many = compiled(q({ metrics: [{ measure: 'totalCost', aggregation: 'histogram' }], config: { bins: 100 } })).histograms[0]!.query
      .sql;
    expect(many).toContain('WITH (SELECT (assumeNotNull(min(x)), assumeNotNull(max(x)))');
    expect(many).toContain('toInt64(floor(toFloat64(x - b_lo) * 100 / toFloat64(nullIf(b_hi - b_lo, 0))))');
  });

  it("buckets time as date_bin from a Monday in UTC, months by the calendar, and keeps PostgreSQL's NULL order", () => {
    const bucket = (granularity: 'minute' | 'week' | 'month') =>
      compiled(q({ metrics: [{ measure: 'count', aggregation: 'count' }], timeDimension: { granularity } })).main.sql;
    expect(bucket('minute')).toContain('positiveModulo(toUnixTimestamp64Milli(o.start_time), 60000)');
    expect(bucket('week')).toContain('positiveModulo(toUnixTimestamp64Milli(o.start_time) - 345600000, 604800000)');
    expect(bucket('month')).toContain("makeDateTime64(toYear(o.start_time), toMonth(o.start_time), 1, 0, 0, 0, 0, 3, 'UTC')");
    const daily = prepareInternal(dailyQueries({}).observations, 'p1', ch).compiled.main.sql;
    expect(daily).toContain('ORDER BY d0 ASC NULLS FIRST, tb ASC NULLS LAST');
    expect(daily).toContain('INNER JOIN (SELECT * FROM tally.traces FINAL WHERE project_id = {p0:String}) AS tr ON tr.id = o.trace_id');
  });

  it("joins a trace's observations grouped by trace, and marks a score's missing trace", () => {
    const traces = compiled(
      q({ view: 'traces', dimensions: [{ field: 'userId' }], metrics: [{ measure: 'observationsCount', aggregation: 'sum' }] }),
      'v1',
    ).main.sql;
    expect(traces).toContain(
      'LEFT JOIN (SELECT x.trace_id AS k, count() AS v0 FROM tally.observations AS x FINAL WHERE x.project_id = {p0:String} GROUP BY k) AS rel0 ON rel0.k = t.id',
    );
    expect(traces).toContain('sumOrNull(coalesce(rel0.v0, 0)) AS a0');
    const scores = compiled(
      q({
        view: 'scores-numeric',
        dimensions: [{ field: 'tags' }],
        metrics: [{ measure: 'count', aggregation: 'count' }],
        filters: [{ column: 'tags', operator: 'none of', value: ['x'], type: 'arrayOptions' }],
        orderBy: [{ field: 'tags', direction: 'desc' }],
      }),
    ).main;
    expect(scores.sql).toContain('tr.tags AS d0, isNull(tr.id) AS d0_missing');
    expect(scores.sql).toContain('(NOT (isNull(tr.id)) AND NOT hasAny(tr.tags, {p2:Array(String)}))');
    expect(scores.sql).toContain('ORDER BY d0_missing ASC, d0 DESC');
    expect(scores.rows.dimensions).toEqual([{ boolean: false, missing: true }]);
  });

  it('walks the cost map with ARRAY JOIN', () => {
    const c = compiled(q({ metrics: [{ measure: 'costByType', aggregation: 'sum' }] })).main.sql;
    expect(c).toContain(
      'FROM tally.observations AS o FINAL ARRAY JOIN mapKeys(o.cost_details) AS pe_key, mapValues(o.cost_details) AS pe_value',
    );
    expect(c).toContain('pe_key AS d0');
    expect(c).toContain('sumOrNull(pe_value) AS a0');
  });
});

describe("PostgreSQL's numeric, as the rows stage applies it", () => {
  // each figure printed by PostgreSQL 15 and 18 (PGlite)
  it.each([
    ['1', 0, '3', 0, '0.33333333333333333333'],
    ['123456789', 0, '7', 0, '17636684.142857142857'],
    ['0.000000123456789012', 18, '3', 0, '0.000000041152263004000000'],
    ['5', 0, '0.007', 3, '714.2857142857142857'],
    ['-2', 0, '3', 0, '-0.66666666666666666667'],
    ['12345678901234567890.5', 1, '2', 0, '6172839450617283945.3'],
    ['0', 6, '7', 0, '0.00000000000000000000'],
    ['3', 0, '2', 0, '1.5000000000000000'],
    ['5', 6, '3', 0, '1.6666666666666667'],
  ])('%s (scale %i) / %s (scale %i) = %s', (a, sa, b, sb, expected) => {
    expect(text(div(numeric(a, sa), numeric(b, sb)))).toBe(expected);
  });

  it('reads a float8 as PostgreSQL casts it to numeric: 15 significant digits', () => {
    expect(text(fromFloat8(1 / 3))).toBe('0.333333333333333');
    expect(text(fromFloat8(1e-20))).toBe('0.00000000000000000001');
    expect(text(fromFloat8(123456789012345680))).toBe('123456789012346000');
  });
});

describe('rows from ClickHouse', () => {
  it("become PostgreSQL's: a Date bucket, booleans, NULL for a missing row's array, numeric's avg", () => {
    const rows = clickHouseRows(
      {
        dimensions: [
          { boolean: true, missing: false },
          { boolean: false, missing: true },
        ],
        time: true,
        metrics: ['value', 'avg'],
      },
      [
        { d0: 1, d1: [], d1_missing: 1, tb: '1767225600000', m0: '12', m1_s: '5.000000', m1_c: '3', m1_d: '6' },
        { d0: 0, d1: ['a'], d1_missing: 0, tb: 1767312000000, m0: null, m1_s: null, m1_c: '0', m1_d: null },
      ],
    );
    expect(rows).toEqual([
      { d0: true, d1: null, t: new Date('2026-01-01T00:00:00Z'), m0: '12', m1: '1.6666666666666667' },
      { d0: false, d1: ['a'], t: new Date('2026-01-02T00:00:00Z'), m0: null, m1: null },
    ]);
  });

  it("give histogram bounds with numeric's arithmetic: lo + (hi − lo)·(bin − 1)/bins", () => {
    const [row] = clickHouseRows({ dimensions: [], time: false, metrics: [], histogram: { bins: 7, scale: 'text' } }, [
      { lo: '0.5', hi: '2.25', bin: 3, n: '4' },
    ]);
    // PostgreSQL: select 0.5 + (2.25 - 0.5) * 2 / 7 → 1.00000000000000000000
    expect(row).toEqual({ lower: '1.00000000000000000000', upper: '1.25000000000000000000', n: '4' });
    const [same] = clickHouseRows({ dimensions: [], time: false, metrics: [], histogram: { bins: 10, scale: 6 } }, [
      { lo: '120', hi: '120', bin: 1, n: '2' },
    ]);
    expect(same).toEqual({ lower: '120.000000', upper: '120.000000', n: '2' });
  });
});
