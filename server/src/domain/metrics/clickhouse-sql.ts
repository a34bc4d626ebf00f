// The ClickHouse dialect's pieces (compile-clickhouse.ts assembles the statements): one
// statement's parameters, the rendering of the views' expressions over the exported tables
// (domain/analytics/tables.ts), what kind of number each gives and the scale PostgreSQL's numeric
// would give it, filters' operands, FROM with its joins and WHERE.
import { EXPORTED } from '../analytics/tables.ts';
import { type Bind, type FilterOperand, filterConditionClickHouse } from '../filters/compile-clickhouse.ts';
import type { Expr } from './expressions.ts';
import { STRIDES, UNIT_MS, type Bucket } from './granularity.ts';
import type { Plan } from './plan.ts';
import type { Relation, View } from './views.ts';

/**
 * the scale PostgreSQL's numeric gives a measure's values: fixed, the value's own digits, a
 * float8's, or the row's own (a quotient's: the statement gives lo_d and hi_d)
 */
export type ScaleRule = number | 'text' | 'float' | 'column';

/** how a statement's rows become PostgreSQL's (clickhouse-rows.ts) */
export interface RowSpec {
  /** d0…: a boolean comes as 0/1; `missing`: d<i>_missing = 1 means NULL (an array of a left-joined row) */
  dimensions: { boolean: boolean; missing: boolean }[];
  /** `tb` (ms since the epoch) becomes `t` */
  time: boolean;
  /** m0…: as it comes, or numeric's avg of m<i>_s / m<i>_c at scale m<i>_d */
  metrics: ('value' | 'avg')[];
  /** a histogram statement: `lower` and `upper` from lo, hi and bin */
  histogram?: { bins: number; scale: ScaleRule };
}

export interface ClickHouseStatement {
  sql: string;
  params: Record<string, unknown>;
  rows: RowSpec;
}

export interface ClickHouseMetrics {
  main: ClickHouseStatement;
  /** one statement per histogram metric: rows of (d…, tb, lo, hi, bin, n) */
  histograms: { alias: string; query: ClickHouseStatement }[];
}

/** the ClickHouse type of each exported column, by table */
export const COLUMN_TYPES: Record<string, Map<string, string>> = Object.fromEntries(
  Object.values(EXPORTED).map((e) => [e.table, new Map(e.columns.map((c) => [c.name, c.type]))]),
);

/** what kind of number an expression gives, for how PostgreSQL scales and rounds it */
export type Kind = 'integer' | 'milliseconds' | 'decimal' | 'float' | 'quotient' | 'other';

const kindOfType = (type: string | undefined): Kind =>
  !type
    ? 'other'
    : type.includes('Decimal')
      ? 'decimal'
      : type.includes('Float')
        ? 'float'
        : /\b(U?Int\d+|Bool)\b/.test(type)
          ? 'integer'
          : 'other';

export const SCALE_RULES: Record<Kind, ScaleRule> = {
  integer: 0,
  milliseconds: 6, // extract(epoch from interval) * 1000: numeric with 6 decimals
  decimal: 'text',
  quotient: 'column',
  float: 'float',
  other: 0,
};

/** the scale exact avg ordering and quotients are computed at (Decimal256: 76 digits) */
export const EXACT_SCALE = 40;
/** the decimal kinds a histogram bins in Decimal arithmetic, at their scale (a float8 as its text, 18 decimals) */
export const BIN_SCALE: Partial<Record<Kind, number>> = { decimal: 18, quotient: 40, float: 18 };
/** days from date_bin's origin (0001-01-01, a Monday) to the epoch */
const ORIGIN_DAYS = 719_162;

/** a number's digits as PostgreSQL's numeric scale: the decimals of its text */
const textScale = (x: string) => `if(position(toString(${x}), '.') = 0, 0, length(toString(${x})) - position(toString(${x}), '.'))`;
const i64 = (x: string) => `toInt64(${x})`;

/**
 * The scale numeric_div gives u / (ms / 1000) (PostgreSQL's per-second rate): select_div_scale
 * twice, from each operand's first base-10000 digit group and its position. `ms` and `u` are
 * integers, ms ≠ 0.
 */
function rateScale(u: string, ms: string): string {
  const absMs = `abs(${ms})`;
  const msDigits = i64(`length(toString(${absMs}))`);
  const wMs = `intDiv(${msDigits} - 1, 4)`;
  const firstMs = i64(`intDiv(${absMs}, intExp10(4 * ${wMs}))`);
  // ms / 1000: the dividend has 6 decimals (extract), the divisor is 1000 (one group, first digit 1000)
  const scale1 = `greatest(16 - 4 * (${wMs} - if(${firstMs} <= 1000, 1, 0)), 6)`;
  // the seconds: ms / 1000 exactly; its groups
  const wSec = `(intDiv(${msDigits}, 4) - 1)`;
  const firstSec = i64(`if(${wSec} < 0, ${absMs} * 10, intDiv(${absMs}, 1000 * intExp10(4 * greatest(${wSec}, 0))))`);
  const uDigits = i64(`length(toString(${u}))`);
  const wU = `if(${u} = 0, 0, intDiv(${uDigits} - 1, 4))`;
  const firstU = i64(`if(${u} = 0, 0, intDiv(${u}, intExp10(4 * ${wU})))`);
  return `least(greatest(16 - 4 * (${wU} - ${wSec} - if(${firstU} <= ${firstSec}, 1, 0)), ${scale1}), 1000)`;
}

interface Related {
  name: string;
  table: string;
  alias: string;
  key: string;
  values: string[];
}

const DAY_MS = 86_400_000;
/** a window wider than this reads every row's time: it keeps the partition list, a parameter, small */
const WINDOW_DAYS_MAX = 1_000;
const partitionId = (dayMs: number) => new Date(dayMs).toISOString().slice(0, 10).replaceAll('-', '');

/**
 * The observations table's partitions (UTC days, ids YYYYMMDD) a window [from, to] covers whole,
 * and those it covers in part; null when it covers no day whole or more than WINDOW_DAYS_MAX
 */
export function windowDays(from: Date, to: Date): { whole: string[]; partial: string[] } | null {
  const [f, t] = [from.getTime(), to.getTime()];
  const first = Math.ceil(f / DAY_MS) * DAY_MS; // the first midnight in the window
  const end = Math.floor(t / DAY_MS) * DAY_MS; // the midnight of `to`'s day: that day is partial (to is in it)
  if (end <= first || (end - first) / DAY_MS > WINDOW_DAYS_MAX) return null;
  const whole: string[] = [];
  for (let d = first; d < end; d += DAY_MS) whole.push(partitionId(d));
  const partial = [...(first > f ? [partitionId(first - DAY_MS)] : []), partitionId(end)];
  return { whole, partial };
}

export class Statement {
  readonly params: Record<string, unknown> = {};
  readonly project: string;
  readonly plan: Plan;
  readonly db: string;
  /** observations' partitions may be named (not through a cluster's Distributed table) */
  private readonly dayPartitions: boolean;
  private n = 0;
  private readonly related: Related[] = [];

  constructor(plan: Plan, db: string, projectId: string, opts: { dayPartitions?: boolean } = {}) {
    this.plan = plan;
    this.db = db;
    this.dayPartitions = opts.dayPartitions ?? false;
    this.project = this.bind(projectId, 'String');
  }

  bind: Bind = (value, type) => {
    const name = `p${this.n++}`;
    // a number as its shortest exact text: the embedded engine's binder refuses integers past 2^53 (1e308 is one)
    this.params[name] = typeof value === 'number' && !Number.isSafeInteger(value) ? String(value) : value;
    return `{${name}:${type}}`;
  };

  get view(): View {
    return this.plan.query.view;
  }

  /** the table an alias reads: the view's own, its join, a relation, or a related subquery's */
  private tableOf(alias: string, scope: Record<string, string>): string | undefined {
    const v = this.view;
    if (alias in scope) return scope[alias];
    if (alias === v.alias) return v.table;
    if (v.join && alias === v.join.as) return v.join.table;
    return v.relations?.[alias as Relation]?.table;
  }

  /** the map a pairExpand dimension walks (the query names at most one) */
  private get pairMap(): string | null {
    const { view, dimensions, filters } = this.plan.query;
    const pair =
      dimensions.find((d) => d.dimension.pairExpand)?.dimension.pairExpand ??
      filters.map((f) => view.dimensions[f.target]?.pairExpand).find(Boolean);
    return pair ? view.pairExpand![pair] : null;
  }

  kind(e: Expr, alias: string, scope: Record<string, string> = {}): Kind {
    const k = (x: Expr) => this.kind(x, alias, scope);
    switch (e.kind) {
      case 'column': {
        const of = e.of ?? alias;
        return kindOfType(COLUMN_TYPES[this.tableOf(of, scope) ?? '']?.get(e.name));
      }
      case 'literal':
      case 'isNull':
      case 'equals':
        return 'integer';
      case 'pair':
        return e.part === 'key' ? 'other' : kindOfType(COLUMN_TYPES[this.view.table]?.get(this.pairMap ?? '')?.replace(/^Map\([^,]+,/, ''));
      case 'cast':
        return e.to === 'text' ? 'other' : k(e.of);
      case 'calendar':
        return 'other';
      case 'msBetween':
        return 'milliseconds';
      case 'perSecond':
        return 'quotient';
      case 'aggregate':
        return e.fn === 'count' ? 'integer' : k(e.of!);
      case 'coalesce':
        return k(e.of[0]!);
      case 'related':
        return this.kind(e.value, e.alias, { ...scope, [e.alias]: e.table });
    }
  }

  render(e: Expr, alias: string, scope: Record<string, string> = {}): string {
    const r = (x: Expr) => this.render(x, alias, scope);
    switch (e.kind) {
      case 'column':
        return `${e.of ?? alias}.${e.name}`;
      case 'literal':
        return e.value === null ? 'NULL' : String(e.value);
      case 'pair':
        return e.part === 'key' ? 'pe_key' : 'pe_value';
      case 'isNull':
        return `isNull(${r(e.of)})`;
      case 'equals':
        return `(${r(e.of)} = ${e.value})`;
      case 'cast':
        return e.to === 'text' ? `toString(${r(e.of)})` : r(e.of); // the map values are numbers already
      case 'calendar':
        return `formatDateTime(${r(e.of)}, '${e.unit === 'month' ? '%Y-%m' : '%Y-%m-%d'}', 'UTC')`;
      case 'msBetween':
        return `(toUnixTimestamp64Milli(${r(e.to)}) - toUnixTimestamp64Milli(${r(e.from)}))`;
      case 'perSecond': {
        // numeric's u / nullif(ms / 1000, 0), rounded where numeric_div rounds it
        const [u, ms] = [r(e.of), r(e.ms)];
        // NULL for no end or no duration (ClickHouse may evaluate both branches of an if: no division by zero)
        return `round(toDecimal256(${u}, ${EXACT_SCALE}) * 1000 / nullIf(${ms}, 0), ${rateScale(u, ms)})`;
      }
      case 'aggregate':
        return e.of ? `${e.fn}(${r(e.of)})` : `${e.fn}()`;
      case 'coalesce':
        return `coalesce(${e.of.map(r).join(', ')})`;
      case 'related': {
        const sub = this.relatedOf(e.table, e.alias, e.key);
        const value = `${this.render(e.value, e.alias, { ...scope, [e.alias]: e.table })}`;
        let i = sub.values.indexOf(value);
        if (i < 0) i = sub.values.push(value) - 1;
        const ref = `${sub.name}.v${i}`;
        // a count over no rows is 0 in PostgreSQL's subquery; the other aggregates are NULL
        return e.value.kind === 'aggregate' && e.value.fn === 'count' ? `coalesce(${ref}, 0)` : ref;
      }
    }
  }

  /** the scale (in SQL) PostgreSQL's numeric gives each value of a measure, for avg */
  scaleOf(e: Expr, alias: string): string {
    const kind = this.kind(e, alias);
    const x = this.render(e, alias);
    if (kind === 'decimal') return textScale(x);
    if (kind === 'quotient') {
      if (e.kind !== 'perSecond') return textScale(x);
      const [u, ms] = [this.render(e.of, alias), this.render(e.ms, alias)];
      return `if(ifNull(${ms}, 0) = 0, NULL, ${rateScale(u, ms)})`;
    }
    return String(SCALE_RULES[kind]);
  }

  private relatedOf(table: string, alias: string, key: string): Related {
    let sub = this.related.find((s) => s.table === table && s.alias === alias && s.key === key);
    if (!sub) {
      sub = { name: `rel${this.related.length}`, table, alias, key, values: [] };
      this.related.push(sub);
    }
    return sub;
  }

  /** a filter's or dimension's column; an array of a left-joined row says when the row is missing */
  operand(e: Expr): FilterOperand {
    const sql = this.render(e, this.view.alias);
    if (e.kind !== 'column' || !e.of) return { sql };
    const relation = this.view.relations?.[e.of as Relation];
    const type = relation && COLUMN_TYPES[relation.table]?.get(e.name);
    return type?.startsWith('Array') ? { sql, missing: `isNull(${e.of}.id)` } : { sql };
  }

  /** FROM with the joins the query's fields need; call after rendering everything else (related subqueries) */
  from(): string {
    const { view, dimensions, metrics, filters } = this.plan.query;
    const a = view.alias;
    const parts = [`${this.db}.${view.table} AS ${a} FINAL`];
    const map = this.pairMap;
    if (map) parts.push(`ARRAY JOIN mapKeys(${a}.${map}) AS pe_key, mapValues(${a}.${map}) AS pe_value`);
    const ofProject = (table: string) => `(SELECT * FROM ${this.db}.${table} FINAL WHERE project_id = ${this.project})`;
    if (view.join) parts.push(`INNER JOIN ${ofProject(view.join.table)} AS ${view.join.as} ON ${view.join.as}.id = ${a}.${view.join.key}`);
    const relations = new Set(
      [
        ...dimensions.map((d) => d.dimension.relation),
        ...metrics.map((m) => m.measure.relation),
        ...filters.map((f) => view.dimensions[f.target]?.relation),
      ].filter(Boolean),
    );
    for (const r of relations) {
      const j = view.relations![r!]!;
      parts.push(`LEFT JOIN ${ofProject(j.table)} AS ${r} ON ${r}.id = ${a}.${j.key}`);
    }
    for (const s of this.related) {
      const values = s.values.map((v, i) => `${v} AS v${i}`).join(', ');
      parts.push(
        `LEFT JOIN (SELECT ${s.alias}.${s.key} AS k, ${values} FROM ${this.db}.${s.table} AS ${s.alias} FINAL WHERE ${s.alias}.project_id = ${this.project} GROUP BY k) AS ${s.name} ON ${s.name}.k = ${a}.id`,
      );
    }
    return parts.join(' ');
  }

  /** project, segment, the caller's filters and the window */
  /** `window: false` leaves the query's window out (the caller bounds the time itself) */
  where(time: string, extra: string[] = [], opts: { window?: boolean } = {}): string {
    const { view, filters } = this.plan.query;
    const window = opts.window === false ? null : this.plan.query.window;
    const out = [`${view.alias}.project_id = ${this.project}`];
    if (view.segment) {
      const { column, values } = view.segment;
      const c = `${view.alias}.${column}`;
      out.push(values.length === 1 ? `${c} = ${this.bind(values[0], 'String')}` : `has(${this.bind(values, 'Array(String)')}, ${c})`);
    }
    for (const f of filters) out.push(filterConditionClickHouse(f, this.operand(f.expr), this.bind));
    if (window) {
      out.push(`${time} >= fromUnixTimestamp64Milli(${this.bind(window.from.getTime(), 'Int64')})`);
      out.push(`${time} <= fromUnixTimestamp64Milli(${this.bind(window.to.getTime(), 'Int64')})`);
    }
    return [...out, ...extra].join(' AND ');
  }

  /**
   * SELECT `columns` from the view's rows in the window that meet `extra` too. Observations are
   * partitioned by UTC day: without joins, the days the window covers whole are read by partition,
   * with no time compared on each row, and only the first and last days' rows are compared (a
   * 30-day scan of 7.1 M costs of 10 M synthetic rows read in 105 ms against 162: reading and
   * comparing the times was most of the scan)
   */
  select(columns: string[], time: string, extra: string[] = []): string {
    const from = this.from();
    const a = this.view.alias;
    const window = this.plan.query.window;
    const days =
      this.dayPartitions && window && this.view.table === 'observations' && time === `${a}.start_time` && !/\bJOIN\b/.test(from)
        ? windowDays(window.from, window.to)
        : null;
    const head = `SELECT ${columns.join(', ')} FROM ${from} WHERE `;
    if (!days) return head + this.where(time, extra);
    const whole = `${a}._partition_id IN ${this.bind(days.whole, 'Array(String)')}`;
    const partial = `${a}._partition_id IN ${this.bind(days.partial, 'Array(String)')}`;
    return `${head}${this.where(time, [...extra, whole], { window: false })} UNION ALL ${head}${this.where(time, [...extra, partial])}`;
  }

  /** the grouping keys: each dimension (with its missing marker), the time bucket */
  keys(): { select: string[]; names: string[]; spec: RowSpec['dimensions'] } {
    const { plan } = this;
    const select: string[] = [];
    const names: string[] = [];
    const spec: RowSpec['dimensions'] = [];
    plan.query.dimensions.forEach((d, i) => {
      const operand = this.operand(d.dimension.expr);
      select.push(`${operand.sql} AS d${i}`);
      names.push(`d${i}`);
      if (operand.missing) {
        select.push(`${operand.missing} AS d${i}_missing`);
        names.push(`d${i}_missing`);
      }
      spec.push({ boolean: d.dimension.type === 'boolean', missing: Boolean(operand.missing) });
    });
    if (plan.bucket) {
      select.push(`${bucketMs(plan.bucket, `${this.view.alias}.${this.view.time}`)} AS tb`);
      names.push('tb');
    }
    return { select, names, spec };
  }

  statement(sql: string, rows: RowSpec): ClickHouseStatement {
    // observations are partitioned by day and every version of a row stays in its day's partition
    // (a row moved to another hour gets a new key, its old copy a tombstone there), so FINAL need
    // not merge across partitions: 215 ms against 266 for a 30-day scan of 7.6 M rows in 144 parts
    return { sql: `${sql} SETTINGS join_use_nulls = 1, do_not_merge_across_partitions_select_final = 1`, params: this.params, rows };
  }
}

/** date_bin's bucket (a stride from a Monday in UTC) or the UTC calendar month, in ms since the epoch */
export function bucketMs(bucket: Bucket, col: string): string {
  const stride = STRIDES[bucket];
  if (!stride) return `toUnixTimestamp64Milli(makeDateTime64(toYear(${col}), toMonth(${col}), 1, 0, 0, 0, 0, 3, 'UTC'))`;
  const ms = stride.count * UNIT_MS[stride.unit];
  // a stride of days counts from the origin: weeks start on Mondays (1970-01-05 is one)
  const origin = stride.unit === 'day' ? (((-ORIGIN_DAYS % stride.count) + stride.count) % stride.count) * UNIT_MS.day : 0;
  const t = `toUnixTimestamp64Milli(${col})`;
  return `(${t} - positiveModulo(${t}${origin ? ` - ${origin}` : ''}, ${ms}))`;
}
