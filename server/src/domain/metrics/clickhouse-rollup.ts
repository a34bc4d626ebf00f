// ClickHouse's own roll-ups: observation_hourly and observation_daily, the same keys and sums as
// PostgreSQL's (rollup.ts), plus the largest numeric scale of each decimal sum's values (PostgreSQL's
// avg takes its scale from them; its numeric sum keeps it, a Decimal(38, 18) sum does not).
//
// Why not an incremental materialized view or a projection: the exporter sends each version of
// a row, and ClickHouse's incremental views add every inserted version (an update would count
// twice), while projections are not read under FINAL. So the exporter recomputes, from the base
// table under FINAL, every hour its batch touched (the rows' new hours and the hours moved or
// deleted rows left), then the days of those hours from the hourly table: an INSERT … SELECT
// whose rows replace the hour's (ReplacingMergeTree, a higher version) with a tombstone for each
// group that is gone. A recompute reads the truth, so running it twice, or after a crash, gives
// the same rows. The base table is ordered by hour, so an hour's recompute reads that hour only.
//
// Beside PostgreSQL's sums, each group keeps the smallest and largest value of each measure: a
// histogram over a window takes its bounds from them rather than from a first scan of the rows
// (the scan that bins them is left). And a third table, observation_user_daily, keeps the sums per
// UTC day, model and user (rollup.ts says why), recomputed per touched day from the base table.
import { ROLLUP_KEYS, ROLLUP_SUMS, ROLLUP_SUM_COLUMNS, USER_ROLLUP_KEYS } from './rollup.ts';
import { SCALE_RULES, Statement } from './clickhouse-sql.ts';
import type { Expr } from './expressions.ts';
import type { Plan } from './plan.ts';
import { VIEWS } from './views.ts';

export const CH_ROLLUP_TABLES = { hour: 'observation_hourly', day: 'observation_daily', user: 'observation_user_daily' } as const;
export type RollupGrain = keyof typeof CH_ROLLUP_TABLES;

// the expressions of the observations view, rendered as the base path renders them
const observationStatement = () =>
  new Statement({ query: { view: VIEWS.observations, filters: [], dimensions: [], metrics: [] } } as unknown as Plan, '', '');

/** the scale column kept beside a decimal sum */
export const scaleColumn = (sum: string) => `${sum}_scale`;
/** the columns of the smallest and largest value a sum's measure had in the group (NULL: none had one) */
export const boundColumns = (sum: string) => [`${sum}_min`, `${sum}_max`] as const;

interface SumSpec {
  column: string;
  type: string;
  /** the hourly recompute's aggregate over the base table (alias o) */
  fromBase: string;
  /** how the daily recompute folds the hourly rows' values */
  fold: 'sum' | 'max' | 'min';
  /** a bound (min or max): the main roll-ups keep it, the user roll-up does not */
  bound?: true;
}

function sumSpecs(): SumSpec[] {
  const s = observationStatement();
  const out: SumSpec[] = [];
  const seen = new Set<string>();
  const add = (x: SumSpec) => {
    if (seen.has(x.column)) return;
    seen.add(x.column);
    out.push(x);
  };
  for (const sum of Object.values(ROLLUP_SUMS)) {
    if (sum.value === null) {
      add({ column: sum.sum, type: 'UInt64', fromBase: 'count()', fold: 'sum' });
      continue;
    }
    const v: Expr = sum.value;
    const x = s.render(v, 'o');
    const kind = s.kind(v, 'o');
    const type = kind === 'decimal' ? 'Decimal(38, 18)' : kind === 'integer' ? 'UInt64' : 'Int64';
    // a sum over no values is 0 here (the count column says there were none)
    add({ column: sum.sum, type, fromBase: `ifNull(sum(${x}), 0)`, fold: 'sum' });
    if (sum.count !== ROLLUP_SUMS.count.sum) add({ column: sum.count, type: 'UInt64', fromBase: `count(${x})`, fold: 'sum' });
    if (SCALE_RULES[kind] === 'text') {
      const c = scaleColumn(sum.sum);
      add({ column: c, type: 'UInt16', fromBase: `toUInt16(ifNull(max(${s.scaleOf(v, 'o')}), 0))`, fold: 'max' });
    }
    const [lo, hi] = boundColumns(sum.sum);
    add({ column: lo, type: `Nullable(${type})`, fromBase: `minOrNull(${x})`, fold: 'min', bound: true });
    add({ column: hi, type: `Nullable(${type})`, fromBase: `maxOrNull(${x})`, fold: 'max', bound: true });
  }
  // every sum and count the declaration names is a column here
  for (const c of ROLLUP_SUM_COLUMNS) if (!seen.has(c)) throw new Error(`roll-up column ${c} has no ClickHouse aggregate`);
  return out;
}

const ALL_SUMS = sumSpecs();
const KEY_TYPES: Record<string, string> = {
  type: 'LowCardinality(String)',
  name: 'Nullable(String)',
  environment: 'LowCardinality(String)',
  model: 'Nullable(String)',
  user_id: 'Nullable(String)',
};
const TIME = "DateTime64(6, 'UTC')";

interface TableSpec {
  /** the time column: hour or day */
  time: 'hour' | 'day';
  keys: readonly string[];
  sums: SumSpec[];
}

const TABLES: Record<RollupGrain, TableSpec> = {
  hour: { time: 'hour', keys: ROLLUP_KEYS, sums: ALL_SUMS },
  day: { time: 'day', keys: ROLLUP_KEYS, sums: ALL_SUMS },
  user: { time: 'day', keys: USER_ROLLUP_KEYS, sums: ALL_SUMS.filter((s) => !s.bound) },
};

/** the roll-up table's columns (without _version and _deleted) and its key */
export function rollupTable(grain: RollupGrain): { columns: string[]; orderBy: string } {
  const t = TABLES[grain];
  return {
    columns: [
      'project_id String',
      `${t.time} ${TIME}`,
      ...t.keys.map((k) => `${k} ${KEY_TYPES[k]}`),
      ...t.sums.map((s) => `${s.column} ${s.type}`),
    ],
    orderBy: `(project_id, ${t.time}, ${t.keys.join(', ')})`,
  };
}

/** the bound columns (min and max) the main roll-ups gained in migration 3, with their types */
export const boundColumnDefinitions = (): string[] => ALL_SUMS.filter((s) => s.bound).map((s) => `${s.column} ${s.type}`);

/** does a roll-up keep the largest scale of this sum's values (a decimal) */
export const keepsScale = (sum: string) => ALL_SUMS.some((s) => s.column === scaleColumn(sum));
/** do the main roll-ups keep the smallest and largest value of this sum's measure */
export const keepsBounds = (sum: string) => ALL_SUMS.some((s) => s.column === boundColumns(sum)[0]);

export interface Recompute {
  sql: string;
  params: Record<string, unknown>;
}

const COLUMNS = (grain: RollupGrain) => {
  const t = TABLES[grain];
  return ['project_id', t.time, ...t.keys, ...t.sums.map((s) => s.column), '_version', '_deleted'].join(', ');
};
const ZEROS = (grain: RollupGrain) => TABLES[grain].sums.map((s) => `0 AS ${s.column}`).join(', ');

/**
 * The hours (UTC, `YYYY-MM-DD HH:00:00`) of one project recomputed from the base table, version
 * `version` for the tombstones of every group the hours had and `version + 1` for the groups they
 * have now. No hours: every hour of every project (the first fill after the migration).
 */
export function recomputeHours(db: string, projectId: string | null, hours: string[], version: bigint): Recompute {
  const params: Record<string, unknown> = { v: version.toString(), p: projectId ?? '' };
  hours.forEach((h, i) => {
    params[`h${i}`] = h;
  });
  const { keys, sums } = TABLES.hour;
  const hour = "toDateTime64(toStartOfHour(o.start_time), 6, 'UTC')";
  const where = projectId
    ? ` WHERE o.project_id = {p:String} AND toStartOfHour(o.start_time) IN (${hours.map((_, i) => `{h${i}:DateTime('UTC')}`).join(', ')})`
    : '';
  const live = `SELECT o.project_id AS project_id, ${hour} AS hour, ${keys.map((k) => `o.${k} AS ${k}`).join(', ')}, ${sums.map((s) => `${s.fromBase} AS ${s.column}`).join(', ')}, {v:UInt64} + 1 AS _version, toUInt8(0) AS _deleted
    FROM ${db}.observations AS o FINAL${where} GROUP BY project_id, hour, ${keys.join(', ')}`;
  const gone = `SELECT project_id, hour, ${keys.join(', ')}, ${ZEROS('hour')}, {v:UInt64} AS _version, toUInt8(1) AS _deleted
    FROM ${db}.${CH_ROLLUP_TABLES.hour} FINAL${projectId ? ` WHERE project_id = {p:String} AND toDateTime(hour, 'UTC') IN (${hours.map((_, i) => `{h${i}:DateTime('UTC')}`).join(', ')})` : ''}`;
  return { sql: `INSERT INTO ${db}.${CH_ROLLUP_TABLES.hour} (${COLUMNS('hour')}) ${live} UNION ALL ${gone}`, params };
}

/** the days (UTC, `YYYY-MM-DD`) of one project recomputed from the hourly roll-up, as recomputeHours does hours */
export function recomputeDays(db: string, projectId: string | null, days: string[], version: bigint): Recompute {
  const params: Record<string, unknown> = { v: version.toString(), p: projectId ?? '' };
  days.forEach((d, i) => {
    params[`d${i}`] = d;
  });
  const list = days.map((_, i) => `{d${i}:Date}`).join(', ');
  const { keys, sums } = TABLES.day;
  const day = "toDateTime64(toStartOfDay(h.hour), 6, 'UTC')";
  const live = `SELECT h.project_id AS project_id, ${day} AS day, ${keys.map((k) => `h.${k} AS ${k}`).join(', ')}, ${sums.map((s) => `${s.fold}(h.${s.column}) AS ${s.column}`).join(', ')}, {v:UInt64} + 1 AS _version, toUInt8(0) AS _deleted
    FROM ${db}.${CH_ROLLUP_TABLES.hour} AS h FINAL${projectId ? ` WHERE h.project_id = {p:String} AND toDate(h.hour) IN (${list})` : ''} GROUP BY project_id, day, ${keys.join(', ')}`;
  const gone = `SELECT project_id, day, ${keys.join(', ')}, ${ZEROS('day')}, {v:UInt64} AS _version, toUInt8(1) AS _deleted
    FROM ${db}.${CH_ROLLUP_TABLES.day} FINAL${projectId ? ` WHERE project_id = {p:String} AND toDate(day) IN (${list})` : ''}`;
  return { sql: `INSERT INTO ${db}.${CH_ROLLUP_TABLES.day} (${COLUMNS('day')}) ${live} UNION ALL ${gone}`, params };
}

/**
 * The days (UTC, `YYYY-MM-DD`) of one project in the day × model × user roll-up, recomputed from
 * the base table as recomputeHours does hours (no days: every day of every project). The base
 * table is in hour order, so a day reads its own hours only.
 */
export function recomputeUserDays(db: string, projectId: string | null, days: string[], version: bigint): Recompute {
  const params: Record<string, unknown> = { v: version.toString(), p: projectId ?? '' };
  days.forEach((d, i) => {
    params[`d${i}`] = d;
  });
  const { keys, sums } = TABLES.user;
  const inDays = (t: string) =>
    `(${days.map((_, i) => `(${t} >= toDateTime({d${i}:Date}, 'UTC') AND ${t} < toDateTime({d${i}:Date}, 'UTC') + INTERVAL 1 DAY)`).join(' OR ')})`;
  const day = "toDateTime64(toStartOfDay(o.start_time), 6, 'UTC')";
  const live = `SELECT o.project_id AS project_id, ${day} AS day, ${keys.map((k) => `o.${k} AS ${k}`).join(', ')}, ${sums.map((s) => `${s.fromBase} AS ${s.column}`).join(', ')}, {v:UInt64} + 1 AS _version, toUInt8(0) AS _deleted
    FROM ${db}.observations AS o FINAL${projectId ? ` WHERE o.project_id = {p:String} AND ${inDays('toStartOfHour(o.start_time)')}` : ''} GROUP BY project_id, day, ${keys.join(', ')}`;
  const gone = `SELECT project_id, day, ${keys.join(', ')}, ${ZEROS('user')}, {v:UInt64} AS _version, toUInt8(1) AS _deleted
    FROM ${db}.${CH_ROLLUP_TABLES.user} FINAL${projectId ? ` WHERE project_id = {p:String} AND ${inDays('day')}` : ''}`;
  return { sql: `INSERT INTO ${db}.${CH_ROLLUP_TABLES.user} (${COLUMNS('user')}) ${live} UNION ALL ${gone}`, params };
}
