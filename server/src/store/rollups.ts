// Keeps observation_hourly and observation_daily (the metrics roll-ups) in step with
// observations, in the very statement that writes them (store/observations.ts upsertObservations): a data-modifying CTE adds what the
// written rows hold now, read from the upsert's RETURNING, and takes out what the stored rows
// held before (read by the claim, locked since, sent as arrays). Reading the written rows back
// means the roll-up sums exactly the numbers stored, and costs no second round trip or second
// copy of the batch's values (a separate statement was ~5% of ingestion's CPU per event).
// Keys are written in one order: concurrent batches on the same hours queue, never deadlock.
import type { ObservationRecord } from '../domain/ingestion/types.ts';
import { renderExpr } from '../domain/metrics/compile.ts';
import { ROLLUP_KEYS, ROLLUP_SUM_COLUMNS, ROLLUP_SUMS, ROLLUP_TIME, type RollupKey } from '../domain/metrics/rollup.ts';
import { sql, type RawBuilder } from './sql.ts';
import { columnParam, timestampFromMs, type Column } from './upsert.ts';

// the observation columns the roll-ups read (domain/metrics/rollup.ts says which), with the
// stored rows' values: one array literal per column, as the observation upsert sends its own
const BEFORE: Column<ObservationRecord>[] = [
  { name: 'start_time', get: (r) => r.startTime, type: 'timestamptz' },
  { name: 'end_time', get: (r) => r.endTime, type: 'timestamptz' },
  { name: 'type', get: (r) => r.type, type: 'text' },
  { name: 'name', get: (r) => r.name, type: 'text' },
  { name: 'environment', get: (r) => r.environment, type: 'text' },
  { name: 'model', get: (r) => r.model, type: 'text' },
  { name: 'input_usage', get: (r) => r.inputUsage, type: 'numeric' },
  { name: 'output_usage', get: (r) => r.outputUsage, type: 'numeric' },
  { name: 'total_usage', get: (r) => r.totalUsage, type: 'numeric' },
  { name: 'input_cost', get: (r) => r.inputCost, type: 'numeric' },
  { name: 'output_cost', get: (r) => r.outputCost, type: 'numeric' },
  { name: 'total_cost', get: (r) => r.totalCost, type: 'numeric' },
];

/** the observation columns the roll-up reads: the upsert's `written` CTE must return them */
export const ROLLUP_SOURCE_COLUMNS: readonly string[] = BEFORE.map((c) => c.name);

const ARRAY_TYPE = { timestamptz: 'bigint', text: 'text', numeric: 'numeric' } as Record<string, string>;
const COLS = ROLLUP_SOURCE_COLUMNS.join(', ');
const KEYS = ROLLUP_KEYS.join(', ');
// each roll-up's unique index (its migration) hashes the free-text keys
const indexed = (k: RollupKey) => (k === 'type' ? k : `md5(${k})`);
const CONFLICT_KEYS = ROLLUP_KEYS.map(indexed).join(', ');

// each measure's value per row: a column as it is, anything computed (the latency) from a lateral
// select under the measure's name, computed once for its sum and its count
const sums = Object.entries(ROLLUP_SUMS);
const computed = sums.flatMap(([measure, s]) =>
  s.value !== null && s.value.kind !== 'column' ? [`${renderExpr(s.value, null)} as ${measure}`] : [],
);
const LATERAL = computed.length ? ` cross join lateral (select ${computed.join(', ')}) l` : '';
/** the batch's change of each sum and count column: Σ sign × value, and Σ sign over the rows with a value */
const DELTAS = sums
  .flatMap(([measure, s]) => {
    if (s.value === null) return [`sum(sign) as ${s.sum}`];
    const v = s.value.kind === 'column' ? renderExpr(s.value, null) : measure;
    // a value never null is counted by the row count
    if (s.count === ROLLUP_SUMS.count.sum) return [`sum(sign * ${v}) as ${s.sum}`];
    return [`sum(sign * coalesce(${v}, 0)) as ${s.sum}`, `sum(case when ${v} is null then 0 else sign end) as ${s.count}`];
  })
  .join(', ');

/**
 * CTEs `rollup_delta`, `rollup` and `rollup_daily` (to follow `written` in the same WITH; both
 * inserts lock their keys in one order, hourly before daily): `before` are the stored rows the batch
 * replaces. Each statement text is fixed whatever the batch holds (a prepared statement).
 */
export function rollupCte(projectId: string, before: ObservationRecord[]): RawBuilder<unknown> {
  const arrays = BEFORE.map((c) => sql`cast(${columnParam(before, c)} as ${sql.raw(ARRAY_TYPE[c.type]!)}[])`);
  const beforeValues = BEFORE.map((c) => (c.type === 'timestamptz' ? `${timestampFromMs(`b.${c.name}`)}` : `b.${c.name}`)).join(', ');
  const columns = sql.raw(ROLLUP_SUM_COLUMNS.join(', '));
  const add = sql.raw(ROLLUP_SUM_COLUMNS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', '));
  const keys = sql.raw(KEYS);
  // the batch's change per hour and group, then written to the hourly roll-up and, summed per
  // day, to the daily one
  return sql`rollup_delta as materialized (
    select date_trunc('hour', ${sql.raw(ROLLUP_TIME)}, 'UTC') as h, ${keys}, ${sql.raw(DELTAS)}
    from (
      select 1 as sign, ${sql.raw(COLS)} from written
      union all
      select -1, ${sql.raw(beforeValues)} from unnest(${sql.join(arrays)}) as b(${sql.raw(COLS)})
    ) s${sql.raw(LATERAL)}
    group by h, ${keys}),
  rollup as (
    insert into observation_hourly as r (project_id, hour, ${keys}, ${columns})
    select cast(${projectId} as text), h, ${keys}, ${columns} from rollup_delta
    order by h, ${keys}
    on conflict (project_id, hour, ${sql.raw(CONFLICT_KEYS)}) do update set ${add}
    returning 1),
  rollup_daily as (
    insert into observation_daily as r (project_id, day, ${keys}, ${columns})
    select cast(${projectId} as text), date_trunc('day', h, 'UTC') as d, ${keys}, ${sql.raw(ROLLUP_SUM_COLUMNS.map((c) => `sum(${c})`).join(', '))}
    from rollup_delta group by d, ${keys}
    order by d, ${keys}
    on conflict (project_id, day, ${sql.raw(CONFLICT_KEYS)}) do update set ${add}
    returning 1)`;
}
