// Stage 3, ClickHouse's dialect (compile.ts picks the dialect): the plan compile-postgres.ts turns
// into PostgreSQL, turned into ClickHouse SQL over the exported tables (domain/analytics/tables.ts:
// PostgreSQL's column names), each read with FINAL (the latest version of a row, deleted rows left
// out). Every value, the project included, is a {name:Type} placeholder bound through
// query_params. The answer is PostgreSQL's row for row, so where the engines differ the statement
// does it PostgreSQL's way, or returns what clickhouse-rows.ts needs to finish the row that way:
// - numbers leave as text (toString): Decimal sums stay Decimal, 64-bit integers keep every digit
// - percentiles: percentile_cont's interpolation (the two nearest values of the sorted group, then
//   lo + (p·(n−1) − ⌊p·(n−1)⌋)·(hi − lo) in Float64, the values as float8 reads them)
// - avg: PostgreSQL's numeric avg rounds sum/count to a scale of its own (numeric_div); the
//   statement gives the sum, the count and the largest scale of the values, and the rows stage
//   divides as numeric_div does. A group's order by avg is by the exact quotient
// - histograms: bins exact (Decimal or integer arithmetic); their bounds from lo, hi and the bin
//   with numeric's rules in the rows stage
// - time buckets: date_bin's strides from a Monday in UTC as ms since the epoch, months by
//   their UTC calendar
// - NULLs placed in every ORDER BY term as PostgreSQL places them
// - a related subquery (a trace's observations, an observation's scores) is a LEFT JOIN of the
//   related table grouped by its key; join_use_nulls so a missing row reads NULL, as in PostgreSQL
// - an array of a left-joined row (a score's trace's tags) cannot be NULL in ClickHouse: a
//   marker says the row is missing, and the rows stage makes it NULL
// - roll-ups: ClickHouse's own observation_hourly and observation_daily (clickhouse-rollup.ts), read
//   as PostgreSQL reads its own: whole days, whole hours, the partial hours at the edges from the
//   base table, each part giving a sum, a count (and for avg the largest scale) per group
// What stays apart: a sum or avg of float8 values (a score's value) adds them in each engine's
// own order, so the last bits may differ (PostgreSQL's own answer moves with its heap order).
// The pieces (parameters, expressions, FROM, WHERE) are in clickhouse-sql.ts.
import {
  BIN_SCALE,
  type ClickHouseMetrics,
  type ClickHouseStatement,
  EXACT_SCALE,
  type Kind,
  SCALE_RULES,
  Statement,
} from './clickhouse-sql.ts';
import { boundColumns, CH_ROLLUP_TABLES, keepsBounds, keepsScale, scaleColumn } from './clickhouse-rollup.ts';
import { bucketMs } from './clickhouse-sql.ts';
import { filterConditionClickHouse } from '../filters/compile-clickhouse.ts';
import type { ParsedMetric } from './parse.ts';
import { TIME_ALIAS } from './parse.ts';
import type { Plan } from './plan.ts';

export type { ClickHouseMetrics, ClickHouseStatement, RowSpec, ScaleRule } from './clickhouse-sql.ts';

const PERCENTILES: Record<string, string> = { p50: '0.5', p75: '0.75', p90: '0.9', p95: '0.95', p99: '0.99' };

/** a Float64 as PostgreSQL's float8 reads the value: Decimal through its exact text */
const asFloat = (x: string, kind: Kind) =>
  kind === 'float' ? x : kind === 'decimal' || kind === 'quotient' ? `toFloat64(toString(${x}))` : `toFloat64(${x})`;

/** percentile_cont(p) over the sorted array `a` */
function percentile(a: string, p: string, kind: Kind): string {
  const pos = `(${p} * (toInt64(length(${a})) - 1))`;
  const [lo, hi] = [`floor(${pos})`, `ceil(${pos})`].map((i) => asFloat(`${a}[toUInt64(${i}) + 1]`, kind));
  return `if(length(${a}) = 0, NULL, if(floor(${pos}) = ceil(${pos}), ${lo}, ${lo} + (${pos} - floor(${pos})) * (${hi} - ${lo})))`;
}

interface Aggregated {
  /** the inner (grouped) columns */
  inner: string[];
  /** the outer columns */
  outer: string[];
  /** the value ORDER BY reads */
  order: string;
  spec: 'value' | 'avg';
}

function aggregate(s: Statement, m: ParsedMetric, i: number): Aggregated {
  const { alias } = s.view;
  const x = s.render(m.measure.expr, alias);
  const kind = s.kind(m.measure.expr, alias);
  const a = `a${i}`;
  const value = (fn: string): Aggregated => ({ inner: [`${fn} AS ${a}`], outer: [`toString(${a}) AS m${i}`], order: a, spec: 'value' });
  switch (m.aggregation) {
    case 'sum':
      return value(`sumOrNull(${x})`);
    case 'count':
      return value(`count(${x})`);
    case 'uniq':
      return value(`uniqExact(${x})`);
    case 'max':
      return value(`maxOrNull(${x})`);
    case 'min':
      return value(`minOrNull(${x})`);
    case 'avg': {
      if (kind === 'float') return value(`avgOrNull(${x})`); // float8's avg: sum / count in double precision
      const [sum, count, scale] = [`s${i}`, `c${i}`, `e${i}`];
      return {
        inner: [`sumOrNull(${x}) AS ${sum}`, `count(${x}) AS ${count}`, `max(${s.scaleOf(m.measure.expr, alias)}) AS ${scale}`],
        outer: [`toString(${sum}) AS m${i}_s`, `toString(${count}) AS m${i}_c`, `toString(${scale}) AS m${i}_d`],
        order: `toDecimal256(${sum}, ${EXACT_SCALE}) / nullIf(${count}, 0)`,
        spec: 'avg',
      };
    }
    default: {
      const p = PERCENTILES[m.aggregation];
      if (!p) throw new Error(`aggregation ${m.aggregation} has no scalar SQL`);
      const value = percentile(a, p, kind);
      return { inner: [`arraySort(groupArray(${x})) AS ${a}`], outer: [`toString(${value}) AS m${i}`], order: value, spec: 'value' };
    }
  }
}

/** ORDER BY: the caller's order, then every key ascending, NULLs where PostgreSQL puts them */
function orderBy(s: Statement, metrics: Aggregated[]): string {
  const { plan } = s;
  const terms: string[] = [];
  const dimension = (i: number, direction: 'asc' | 'desc', nullsFirst: boolean) => {
    const missing = plan.query.dimensions[i] && s.operand(plan.query.dimensions[i]!.dimension.expr).missing;
    const nulls = nullsFirst ? 'NULLS FIRST' : 'NULLS LAST';
    return missing
      ? [`d${i}_missing ${nullsFirst ? 'DESC' : 'ASC'}`, `d${i} ${direction.toUpperCase()}`]
      : [`d${i} ${direction.toUpperCase()} ${nulls}`];
  };
  const used = new Set<string>();
  for (const o of plan.order) {
    const nullsFirst = o.nulls === 'first';
    const dir = o.direction.toUpperCase();
    if (o.field === TIME_ALIAS) {
      terms.push(`tb ${dir} ${nullsFirst ? 'NULLS FIRST' : 'NULLS LAST'}`);
      used.add('t');
      continue;
    }
    const d = plan.query.dimensions.findIndex((x) => x.field === o.field);
    if (d >= 0) {
      terms.push(...dimension(d, o.direction, nullsFirst));
      used.add(`d${d}`);
      continue;
    }
    const m = plan.scalars.findIndex((x) => x.alias === o.field);
    terms.push(`${metrics[m]!.order} ${dir} ${nullsFirst ? 'NULLS FIRST' : 'NULLS LAST'}`);
  }
  if (plan.bucket && !used.has('t')) terms.push('tb ASC NULLS LAST');
  plan.query.dimensions.forEach((_, i) => {
    if (!used.has(`d${i}`)) terms.push(...dimension(i, 'asc', false));
  });
  return terms.length ? ` ORDER BY ${terms.join(', ')}` : '';
}

/**
 * The SELECTs of a roll-up plan, to be joined by UNION ALL: the daily (or user) roll-up's rows for
 * the whole days, the hourly one's for the other whole hours, the base table's for the partial
 * hours at the window's edges. `rollupCols(grain)` and `baseCols` are each part's columns (the
 * roll-up aliased r), `baseWhere` more conditions on the base table's rows, `group` the GROUP BY.
 */
function rollupParts(
  s: Statement,
  plan: Plan,
  rollupCols: (grain: 'hour' | 'day') => string[],
  baseCols: string[],
  baseWhere: string[],
  group: string,
): string[] {
  const { view, filters } = plan.query;
  const { alias } = view;
  const { from: a, to: b, days, keys: rollupKeys } = plan.rollup!;
  const ms = (d: Date) => `fromUnixTimestamp64Milli(${s.bind(d.getTime(), 'Int64')})`;
  const rollupPart = (grain: 'hour' | 'day', range: string) => {
    const where = [
      `r.project_id = ${s.project}`,
      range,
      ...filters.map((f) => filterConditionClickHouse(f, { sql: `r.${view.dimensions[f.target]!.rollup}` }, s.bind)),
    ];
    const table = rollupKeys === 'user' ? CH_ROLLUP_TABLES.user : CH_ROLLUP_TABLES[grain];
    return `SELECT ${rollupCols(grain).join(', ')} FROM ${s.db}.${table} AS r FINAL WHERE ${where.join(' AND ')}${group}`;
  };
  const hourRanges = days
    ? [
        [a, days.from],
        [days.to, b],
      ].filter(([x, y]) => x! < y!)
    : [[a, b]];
  const parts = [
    ...(days ? [rollupPart('day', `r.day >= ${ms(days.from)} AND r.day < ${ms(days.to)}`)] : []),
    ...(hourRanges.length
      ? [rollupPart('hour', `(${hourRanges.map(([x, y]) => `r.hour >= ${ms(x!)} AND r.hour < ${ms(y!)}`).join(' OR ')})`)]
      : []),
  ];
  // the partial hours at the window's edges from the base table
  const time = `${alias}.${view.time}`;
  // each partial hour as its own range, an empty one left out: `window AND (t < a OR t >= b)` made
  // ClickHouse read more of the table (30 ms against 12 at 10 M rows)
  const { window } = plan.query;
  const edges = [
    ...(window!.from < a ? [`${time} >= ${ms(window!.from)} AND ${time} < ${ms(a)}`] : []),
    ...(b <= window!.to ? [`${time} >= ${ms(b)} AND ${time} <= ${ms(window!.to)}`] : []),
  ];
  // (the plan gives the roll-ups at least one whole hour, so parts is never empty here)
  if (edges.length) {
    const where = s.where(time, [`(${edges.map((e) => `(${e})`).join(' OR ')})`, ...baseWhere], { window: false });
    parts.push(`SELECT ${baseCols.join(', ')} FROM ${s.from()} WHERE ${where}${group}`);
  }
  return parts;
}

/**
 * The roll-up plan's grouped aggregates (compileMain's inner SELECT): the parts (daily rows, hourly
 * rows, base rows at the edges) give per group ps<i> (Σ), pc<i> (how many values), pe<i> (their
 * largest scale, for avg) and pn (rows); summed here into compileMain's a<i> or s<i>/c<i>/e<i>.
 */
function rollupInner(s: Statement, plan: Plan, keys: ReturnType<Statement['keys']>): { inner: string; metrics: Aggregated[] } {
  const { dimensions } = plan.query;
  const { alias } = plan.query.view;
  const metrics = plan.scalars;
  const group = keys.names.length ? ` GROUP BY ${keys.names.join(', ')}` : '';
  const sums = metrics.length
    ? metrics.flatMap((m, i) => {
        const r = m.measure.rollup!;
        const scale = keepsScale(r.sum) ? `max(r.${scaleColumn(r.sum)})` : s.scaleOf(m.measure.expr, alias);
        return [`sum(r.${r.sum}) AS ps${i}`, `sum(r.${r.count}) AS pc${i}`, ...(m.aggregation === 'avg' ? [`${scale} AS pe${i}`] : [])];
      })
    : ['sum(r.count) AS ps0', 'sum(r.count) AS pc0'];
  const rollupCols = (grain: 'hour' | 'day') => {
    const cols = dimensions.map((d, i) => `r.${d.dimension.rollup} AS d${i}`);
    if (plan.bucket) cols.push(`${bucketMs(plan.bucket, `r.${grain}`)} AS tb`);
    return [...cols, ...sums, 'sum(r.count) AS pn'];
  };
  const baseSums = metrics.length
    ? metrics.flatMap((m, i) => {
        const x = s.render(m.measure.expr, alias);
        return [
          `sumOrNull(${x}) AS ps${i}`,
          `count(${x}) AS pc${i}`,
          ...(m.aggregation === 'avg' ? [`max(${s.scaleOf(m.measure.expr, alias)}) AS pe${i}`] : []),
        ];
      })
    : ['count() AS ps0', 'count() AS pc0'];
  const parts = rollupParts(s, plan, rollupCols, [...keys.select, ...baseSums, 'count() AS pn'], [], group);

  const out: Aggregated[] = metrics.length
    ? metrics.map((m, i) => {
        const [ps, pc] = [`ps${i}`, `pc${i}`];
        const a = `a${i}`;
        if (m.aggregation === 'count')
          return { inner: [`sum(${pc}) AS ${a}`], outer: [`toString(${a}) AS m${i}`], order: a, spec: 'value' };
        if (m.aggregation === 'avg') {
          const [sum, count, scale] = [`s${i}`, `c${i}`, `e${i}`];
          return {
            inner: [`if(sum(${pc}) = 0, NULL, sum(${ps})) AS ${sum}`, `sum(${pc}) AS ${count}`, `max(pe${i}) AS ${scale}`],
            outer: [`toString(${sum}) AS m${i}_s`, `toString(${count}) AS m${i}_c`, `toString(${scale}) AS m${i}_d`],
            order: `toDecimal256(${sum}, ${EXACT_SCALE}) / nullIf(${count}, 0)`,
            spec: 'avg',
          };
        }
        // a sum of no values is NULL, as in the base table
        return { inner: [`if(sum(${pc}) = 0, NULL, sum(${ps})) AS ${a}`], outer: [`toString(${a}) AS m${i}`], order: a, spec: 'value' };
      })
    : [{ inner: ['sum(pc0) AS a0'], outer: ['toString(a0) AS m0'], order: 'a0', spec: 'value' }];
  // a group whose observations all moved elsewhere is not in the roll-ups (its tombstone), but
  // a part may still give zeros: no group, as in the base table
  const having = keys.names.length ? ' HAVING sum(pn) > 0' : '';
  const inner = `SELECT ${[...keys.names, ...out.flatMap((m) => m.inner)].join(', ')} FROM (${parts.join(' UNION ALL ')})${group}${having}`;
  return { inner, metrics: out };
}

function compileMain(plan: Plan, projectId: string, db: string): ClickHouseStatement {
  const s = new Statement(plan, db, projectId);
  if (plan.rollup) {
    const keys = s.keys();
    const { inner, metrics } = rollupInner(s, plan, keys);
    const limit = plan.query.rowLimit !== null ? ` LIMIT ${s.bind(plan.query.rowLimit, 'UInt64')}` : '';
    const sql = `SELECT ${[...keys.names, ...metrics.flatMap((m) => m.outer)].join(', ')} FROM (${inner})${orderBy(s, metrics)}${limit}`;
    return s.statement(sql, { dimensions: keys.spec, time: plan.bucket !== null, metrics: metrics.map((m) => m.spec) });
  }
  const time = `${s.view.alias}.${s.view.time}`;
  const keys = s.keys();
  const metrics = plan.scalars.length
    ? plan.scalars.map((m, i) => aggregate(s, m, i))
    : [{ inner: ['count() AS a0'], outer: ['toString(a0) AS m0'], order: 'a0', spec: 'value' as const }];
  const where = s.where(time);
  const groupBy = keys.names.length ? ` GROUP BY ${keys.names.join(', ')}` : '';
  const inner = `SELECT ${[...keys.select, ...metrics.flatMap((m) => m.inner)].join(', ')} FROM ${s.from()} WHERE ${where}${groupBy}`;
  const limit = plan.query.rowLimit !== null ? ` LIMIT ${s.bind(plan.query.rowLimit, 'UInt64')}` : '';
  const sql = `SELECT ${[...keys.names, ...metrics.flatMap((m) => m.outer)].join(', ')} FROM (${inner})${orderBy(s, metrics)}${limit}`;
  return s.statement(sql, { dimensions: keys.spec, time: plan.bucket !== null, metrics: metrics.map((m) => m.spec) });
}

/**
 * ⌊(x − lo)·bins / (hi − lo)⌋ exactly (hi ≠ lo): integers divide; decimals take a Float64 estimate
 * (off by at most one) corrected by comparing exact products, which costs far less than a
 * Decimal256 division per value
 */
function binIndex(kind: Kind, bins: number, lo = 'lo', hi = 'hi'): string {
  if (BIN_SCALE[kind] === undefined) return `toInt64(intDiv((x - ${lo}) * ${bins}, nullIf(${hi} - ${lo}, 0)))`;
  const [scaled, width] = [`(x - ${lo}) * ${bins}`, `(${hi} - ${lo})`];
  const guess = `toInt64(floor(toFloat64(x - ${lo}) * ${bins} / toFloat64(nullIf(${hi} - ${lo}, 0))))`;
  return `multiIf(${scaled} < ${width} * ${guess}, ${guess} - 1, ${scaled} >= ${width} * (${guess} + 1), ${guess} + 1, ${guess})`;
}

/**
 * ⌊(x − lo)·bins / (hi − lo)⌋ + 1, at most `bins`, as a sum of exact comparisons against the bins'
 * edges: with lo and hi constants (one group) each comparison is one Decimal compare per value,
 * cheaper than the Float64 guess (a Decimal128 → Float64 conversion costs about as much as reading
 * the column) up to a few dozen bins. Written x·bins ≥ lo·bins + (hi − lo)·k, the same test exactly
 * (decimals of one scale multiplied by integers and added), so each value costs one product and
 * the right sides are constants: 168 against 191 ms over 7.6 M costs (merged 10 M store, p50 of 5)
 */
const COMPARED_BINS_MAX = 40;
const binByEdges = (bins: number, lo: string, hi: string) =>
  `1 + ${Array.from({ length: bins - 1 }, (_, k) => `(x * ${bins} >= ${lo} * ${bins} + (${hi} - ${lo}) * ${k + 1})`).join(' + ') || '0'}`;

/**
 * per group (and bucket): `bins` equal-width bins between the group's min and max, empty bins left
 * out. One group (no dimension, no bucket): the bounds are a scalar subquery, so every value is
 * binned against constants; several: window functions give each row its group's bounds.
 */
function compileHistogram(plan: Plan, m: ParsedMetric, projectId: string, db: string, opts: CompileOptions): ClickHouseStatement {
  const s = new Statement(plan, db, projectId, opts);
  const { alias } = s.view;
  const { bins } = plan.query;
  const time = `${alias}.${s.view.time}`;
  const keys = s.keys();
  const kind = s.kind(m.measure.expr, alias);
  const raw = s.render(m.measure.expr, alias);
  // PostgreSQL casts the values to numeric and bins them exactly: a float8 through its text. Not
  // Nullable (the rows binned have a value): Nullable arithmetic on every value cost a 10 M-row cost
  // histogram 249 ms against 179
  const x = `assumeNotNull(${kind === 'float' ? `toDecimal256(toString(${raw}), ${BIN_SCALE.float})` : raw})`;
  const k = keys.names;
  const bin = `if(hi = lo, 1, least(${binIndex(kind, bins)} + 1, ${bins}))`;
  // a quotient's scale is its row's: the bounds keep the scale of the row they come from
  const rowScale = SCALE_RULES[kind] === 'column';
  const [xd, bd] = rowScale ? [[`${s.scaleOf(m.measure.expr, alias)} AS xd`], ['lo_d', 'hi_d']] : [[], []];
  const values = s.select([...keys.select, `${x} AS x`, ...xd], time, [`${raw} IS NOT NULL`]);
  // of equal bounds, the largest scale (PostgreSQL keeps the last row's it reads: the order of its heap)
  const [loD, hiD] = ['argMin(xd, (x, -xd))', 'argMax(xd, (x, xd))'];
  if (!k.length) {
    // one level: the bounds are constants (WITH), binned against and grouped by the bin alone. Under
    // an outer query grouping by (lo, hi, bin) they were columns, hashed for every value: 247 ms
    // against 176 for a 10 M-row cost histogram
    // not Nullable: every value binned is compared with them, and Nullable arithmetic costs (a
    // cost histogram over 7.6 M rows: 320-338 ms against 334-437). There are bounds whenever there
    // are values to bin; without values there is no row to bin, whatever they read
    const bounds = ['assumeNotNull(min(x))', 'assumeNotNull(max(x))', ...(rowScale ? [loD, hiD] : [])];
    const named = ['b.1 AS b_lo', 'b.2 AS b_hi', ...(rowScale ? ['b.3 AS b_lo_d', 'b.4 AS b_hi_d'] : [])];
    const one =
      BIN_SCALE[kind] !== undefined && bins <= COMPARED_BINS_MAX
        ? `if(b_hi = b_lo, 1, ${binByEdges(bins, 'b_lo', 'b_hi')})`
        : `if(b_hi = b_lo, 1, least(${binIndex(kind, bins, 'b_lo', 'b_hi')} + 1, ${bins}))`;
    const sum = m.measure.rollup?.value ? m.measure.rollup.sum : null;
    // the roll-ups keep each group's min and max: the bounds from them, not from a first scan of the
    // rows (at 10 M rows the scan that bins is about 210 ms, the one that took the bounds 160)
    const fromRollups = plan.rollup?.keys === 'main' && !rowScale && sum !== null && keepsBounds(sum);
    const b = fromRollups
      ? `SELECT (assumeNotNull(minOrNull(lo)), assumeNotNull(maxOrNull(hi))) FROM (${rollupParts(
          s,
          plan,
          () => boundColumns(sum!).map((c, i) => `${i ? 'maxOrNull' : 'minOrNull'}(r.${c}) AS ${i ? 'hi' : 'lo'}`),
          [`minOrNull(${x}) AS lo`, `maxOrNull(${x}) AS hi`],
          [`${raw} IS NOT NULL`],
          '',
        ).join(' UNION ALL ')})`
      : `SELECT (${bounds.join(', ')}) FROM (${values})`;
    const out = [
      'toString(b_lo) AS lo',
      'toString(b_hi) AS hi',
      ...(rowScale ? ['toString(b_lo_d) AS lo_d', 'toString(b_hi_d) AS hi_d'] : []),
      `${one} AS bin`,
      'toString(count()) AS n',
    ];
    const sql = `WITH (${b}) AS b, ${named.join(', ')} SELECT ${out.join(', ')} FROM (${values}) GROUP BY bin ORDER BY bin ASC`;
    return s.statement(sql, { dimensions: keys.spec, time: false, metrics: [], histogram: { bins, scale: SCALE_RULES[kind] } });
  }
  // a window over the groups gives each value its group's bounds
  const window = `PARTITION BY ${k.join(', ')}`;
  const scales = rowScale ? [`${loD} OVER (${window}) AS lo_d`, `${hiD} OVER (${window}) AS hi_d`] : [];
  const boundsOver = `SELECT ${[...k, 'x', `min(x) OVER (${window}) AS lo`, `max(x) OVER (${window}) AS hi`, ...scales].join(', ')} FROM (${values})`;
  const binned = `SELECT ${[...k, 'lo', 'hi', ...bd, `${bin} AS bin`].join(', ')} FROM (${boundsOver})`;
  // PostgreSQL's order: the keys ascending (NULLs last: a missing row's array after the others), then the bin
  const order = [
    ...plan.query.dimensions.flatMap((_, i) => (keys.spec[i]!.missing ? [`d${i}_missing ASC`, `d${i} ASC`] : [`d${i} ASC NULLS LAST`])),
    ...(plan.bucket ? ['tb ASC'] : []),
    'bin ASC',
  ];
  const out = [
    ...k,
    'toString(lo) AS lo',
    'toString(hi) AS hi',
    ...bd.map((c) => `toString(${c}) AS ${c}`),
    'bin',
    'toString(count()) AS n',
  ];
  const sql = `SELECT ${out.join(', ')} FROM (${binned}) GROUP BY ${[...k, 'lo', 'hi', ...bd, 'bin'].join(', ')} ORDER BY ${order.join(', ')}`;
  return s.statement(sql, {
    dimensions: keys.spec,
    time: plan.bucket !== null,
    metrics: [],
    histogram: { bins, scale: SCALE_RULES[kind] },
  });
}

/** `dayPartitions`: the observations table may be read by partition (not through a cluster's Distributed table) */
export interface CompileOptions {
  dayPartitions?: boolean;
}

export function compileClickHouse(plan: Plan, projectId: string, database: string, opts: CompileOptions = {}): ClickHouseMetrics {
  return {
    main: compileMain(plan, projectId, database),
    histograms: plan.histograms.map((m) => ({ alias: m.alias, query: compileHistogram(plan, m, projectId, database, opts) })),
  };
}
