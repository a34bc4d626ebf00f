// Keeps observation_hourly (the metrics roll-up) in step with observations, inside the
// ingestion batch's transaction: one statement adds what the batch's rows hold now and takes
// out what the stored rows held before (read by the claim, locked since). The values are the
// very numbers the observation upsert writes (each sent as its shortest decimal text, which is
// also how a stored numeric reads back), so the roll-up holds exactly the sums of observations.
// Keys are written in one order: concurrent batches on the same hours queue, never deadlock.
import type { ObservationRecord } from '../domain/ingestion/types.ts';
import { prepared, sql, type Db } from './sql.ts';
import { columnParam, timestampFromMs, type Column } from './upsert.ts';

const HOUR_MS = 3_600_000;
const SUMS = ['count', 'latency_ms', 'latency_count', 'input_usage', 'output_usage', 'total_usage',
  'input_cost', 'input_cost_count', 'output_cost', 'output_cost_count', 'total_cost', 'total_cost_count'] as const;

type Signed = readonly [1 | -1, ObservationRecord];
// each column one array literal, built as the observation upsert builds its own (store/upsert.ts)
const COLUMNS: Column<Signed>[] = [
  { name: 'sign', get: ([s]) => s, type: 'integer' },
  // date_trunc('hour', start_time, 'UTC'), in ms
  { name: 'hour', get: ([, r]) => new Date(Math.floor(r.startTime.getTime() / HOUR_MS) * HOUR_MS), type: 'timestamptz' },
  { name: 'type', get: ([, r]) => r.type, type: 'text' },
  { name: 'name', get: ([, r]) => r.name, type: 'text' },
  { name: 'environment', get: ([, r]) => r.environment, type: 'text' },
  { name: 'model', get: ([, r]) => r.model, type: 'text' },
  // extract(epoch from end_time - start_time) * 1000
  { name: 'latency', get: ([, r]) => (r.endTime ? r.endTime.getTime() - r.startTime.getTime() : null), type: 'numeric' },
  { name: 'iu', get: ([, r]) => r.inputUsage, type: 'numeric' },
  { name: 'ou', get: ([, r]) => r.outputUsage, type: 'numeric' },
  { name: 'tu', get: ([, r]) => r.totalUsage, type: 'numeric' },
  { name: 'ic', get: ([, r]) => r.inputCost, type: 'numeric' },
  { name: 'oc', get: ([, r]) => r.outputCost, type: 'numeric' },
  { name: 'tc', get: ([, r]) => r.totalCost, type: 'numeric' },
];
const ARRAY_TYPE = { integer: 'integer', timestamptz: 'bigint', text: 'text', numeric: 'numeric' } as Record<string, string>;

/** after the batch's upsert: `now` are the rows as written, `before` the stored rows they replaced */
export async function updateRollup(db: Db, projectId: string, now: ObservationRecord[], before: ObservationRecord[]): Promise<void> {
  const rows: Signed[] = [...now.map((r) => [1, r] as const), ...before.map((r) => [-1, r] as const)];
  if (!rows.length) return;
  const arrays = COLUMNS.map((c) => sql`cast(${columnParam(rows, c)} as ${sql.raw(ARRAY_TYPE[c.type]!)}[])`);
  await prepared('rollup_update', sql`
    insert into observation_hourly as r (project_id, hour, type, name, environment, model, ${sql.raw(SUMS.join(', '))})
    select ${projectId}, ${sql.raw(timestampFromMs('hour'))} as h, type, name, environment, model, sum(sign),
      sum(sign * coalesce(latency, 0)), sum(case when latency is null then 0 else sign end),
      sum(sign * iu), sum(sign * ou), sum(sign * tu),
      sum(sign * coalesce(ic, 0)), sum(case when ic is null then 0 else sign end),
      sum(sign * coalesce(oc, 0)), sum(case when oc is null then 0 else sign end),
      sum(sign * coalesce(tc, 0)), sum(case when tc is null then 0 else sign end)
    from unnest(${sql.join(arrays)}) as u(${sql.raw(COLUMNS.map((c) => c.name).join(', '))})
    group by hour, type, name, environment, model
    order by hour, type, name, environment, model
    on conflict (project_id, hour, type, md5(name), md5(environment), md5(model)) do update set
      ${sql.raw(SUMS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', '))}`).execute(db);
}
