// Keeps observation_hourly and observation_daily (the metrics roll-ups) in step with
// observations, in the very statement that writes them (store/observations.ts upsertObservations): a data-modifying CTE adds what the
// written rows hold now, read from the upsert's RETURNING, and takes out what the stored rows
// held before (read by the claim, locked since, sent as arrays). Reading the written rows back
// means the roll-up sums exactly the numbers stored, and costs no second round trip or second
// copy of the batch's values (a separate statement was ~5% of ingestion's CPU per event).
// Keys are written in one order: concurrent batches on the same hours queue, never deadlock.
import type { ObservationRecord } from '../domain/ingestion/types.ts';
import { sql, type RawBuilder } from './sql.ts';
import { columnParam, timestampFromMs, type Column } from './upsert.ts';

const SUMS = [
  'count',
  'latency_ms',
  'latency_count',
  'input_usage',
  'output_usage',
  'total_usage',
  'input_cost',
  'input_cost_count',
  'output_cost',
  'output_cost_count',
  'total_cost',
  'total_cost_count',
] as const;

/** the observation columns the roll-up reads: the upsert's `written` CTE must return them */
export const ROLLUP_SOURCE_COLUMNS = [
  'start_time',
  'end_time',
  'type',
  'name',
  'environment',
  'model',
  'input_usage',
  'output_usage',
  'total_usage',
  'input_cost',
  'output_cost',
  'total_cost',
] as const;

// the stored rows' values, one array literal per column as the observation upsert sends its own
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
const ARRAY_TYPE = { timestamptz: 'bigint', text: 'text', numeric: 'numeric' } as Record<string, string>;
const COLS = ROLLUP_SOURCE_COLUMNS.join(', ');

/**
 * CTEs `rollup_delta`, `rollup` and `rollup_daily` (to follow `written` in the same WITH; both
 * inserts lock their keys in one order, hourly before daily): `before` are the stored rows the batch
 * replaces. Each statement text is fixed whatever the batch holds (a prepared statement).
 */
export function rollupCte(projectId: string, before: ObservationRecord[]): RawBuilder<unknown> {
  const arrays = BEFORE.map((c) => sql`cast(${columnParam(before, c)} as ${sql.raw(ARRAY_TYPE[c.type]!)}[])`);
  const beforeValues = BEFORE.map((c) => (c.type === 'timestamptz' ? `${timestampFromMs(`b.${c.name}`)}` : `b.${c.name}`)).join(', ');
  const sums = sql.raw(SUMS.join(', '));
  const add = sql.raw(SUMS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', '));
  // the batch's change per hour and group, then written to the hourly roll-up and, summed per
  // day, to the daily one
  return sql`rollup_delta as materialized (
    select date_trunc('hour', start_time, 'UTC') as h, type, name, environment, model, sum(sign) as count,
      sum(sign * coalesce(latency, 0)) as latency_ms, sum(case when latency is null then 0 else sign end) as latency_count,
      sum(sign * input_usage) as input_usage, sum(sign * output_usage) as output_usage, sum(sign * total_usage) as total_usage,
      sum(sign * coalesce(input_cost, 0)) as input_cost, sum(case when input_cost is null then 0 else sign end) as input_cost_count,
      sum(sign * coalesce(output_cost, 0)) as output_cost, sum(case when output_cost is null then 0 else sign end) as output_cost_count,
      sum(sign * coalesce(total_cost, 0)) as total_cost, sum(case when total_cost is null then 0 else sign end) as total_cost_count
    from (
      select 1 as sign, ${sql.raw(COLS)} from written
      union all
      select -1, ${sql.raw(beforeValues)} from unnest(${sql.join(arrays)}) as b(${sql.raw(COLS)})
    ) s cross join lateral (select extract(epoch from end_time - start_time) * 1000 as latency) l
    group by h, type, name, environment, model),
  rollup as (
    insert into observation_hourly as r (project_id, hour, type, name, environment, model, ${sums})
    select cast(${projectId} as text), h, type, name, environment, model, ${sums} from rollup_delta
    order by h, type, name, environment, model
    on conflict (project_id, hour, type, md5(name), md5(environment), md5(model)) do update set ${add}
    returning 1),
  rollup_daily as (
    insert into observation_daily as r (project_id, day, type, name, environment, model, ${sums})
    select cast(${projectId} as text), date_trunc('day', h, 'UTC') as d, type, name, environment, model, ${sql.raw(SUMS.map((c) => `sum(${c})`).join(', '))}
    from rollup_delta group by d, type, name, environment, model
    order by d, type, name, environment, model
    on conflict (project_id, day, type, md5(name), md5(environment), md5(model)) do update set ${add}
    returning 1)`;
}
