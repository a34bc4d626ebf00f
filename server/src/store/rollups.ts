// Keeps observation_hourly (the metrics roll-up) in step with observations, inside the
// ingestion batch's transaction. Before the batch overwrites its stored rows, what they
// contribute is read (numerics as text, so nothing is rounded); after the upsert one statement
// adds what the rows contribute now and takes the old contribution out. One statement, keys in
// one order: concurrent batches on the same hours queue on the roll-up rows, never deadlock.
import { prepared, sql, type Db } from './sql.ts';

const KEYS = ['hour', 'type', 'name', 'environment', 'model'] as const;
const SUMS = ['count', 'latency_ms', 'latency_count', 'input_usage', 'output_usage', 'total_usage',
  'input_cost', 'input_cost_count', 'output_cost', 'output_cost_count', 'total_cost', 'total_cost_count'] as const;

/** one roll-up key's contribution, every value as PostgreSQL's text (exact) */
export type Contribution = Record<(typeof KEYS)[number] | (typeof SUMS)[number], string | null>;

/** the per-key sums of what these stored observations contribute (as observation_hourly counts them) */
const contributionOf = sql`
  select date_trunc('hour', o.start_time, 'UTC') as hour, o.type, o.name, o.environment, o.model, count(*) as count,
    coalesce(sum(extract(epoch from (o.end_time - o.start_time)) * 1000), 0) as latency_ms, count(o.end_time) as latency_count,
    sum(o.input_usage) as input_usage, sum(o.output_usage) as output_usage, sum(o.total_usage) as total_usage,
    coalesce(sum(o.input_cost), 0) as input_cost, count(o.input_cost) as input_cost_count,
    coalesce(sum(o.output_cost), 0) as output_cost, count(o.output_cost) as output_cost_count,
    coalesce(sum(o.total_cost), 0) as total_cost, count(o.total_cost) as total_cost_count`;

const stored = (projectId: string, ids: string[]) => sql`
  from unnest(cast(${ids} as text[])) k(id)
    cross join lateral (select * from observations o where o.project_id = ${projectId} and o.id = k.id offset 0) o
  group by 1, 2, 3, 4, 5`;

/** before the batch's upsert: what the stored rows of these ids contribute now */
export async function readContribution(db: Db, projectId: string, storedIds: string[]): Promise<Contribution[]> {
  if (!storedIds.length) return [];
  const { rows } = await prepared('rollup_read', sql<Contribution>`select hour::text, type, name, environment, model,
      ${sql.join(SUMS.map((c) => sql`${sql.ref(`c.${c}`)}::text as ${sql.ref(c)}`))}
    from (${contributionOf} ${stored(projectId, storedIds)}) c`).execute(db);
  return rows;
}

/** after the batch's upsert: add what these ids contribute now, take `before` out */
export async function updateRollup(db: Db, projectId: string, ids: string[], before: Contribution[]): Promise<void> {
  if (!ids.length) return;
  const col = (c: keyof Contribution) => before.map((r) => r[c]);
  const old = sql`select ${sql.join([
    sql`u.hour`, sql`u.type`, sql`u.name`, sql`u.environment`, sql`u.model`,
    ...SUMS.map((c) => sql`-${sql.ref(`u.${c}`)}`),
  ])} from unnest(cast(${col('hour')} as timestamptz[]), cast(${col('type')} as text[]), cast(${col('name')} as text[]),
      cast(${col('environment')} as text[]), cast(${col('model')} as text[]),
      ${sql.join(SUMS.map((c) => sql`cast(${col(c)} as numeric[])`))})
    as u(hour, type, name, environment, model, ${sql.raw(SUMS.join(', '))})`;
  await prepared('rollup_update', sql`
    insert into observation_hourly as r (project_id, ${sql.raw([...KEYS, ...SUMS].join(', '))})
    select ${projectId}, ${sql.raw(KEYS.join(', '))}, ${sql.raw(SUMS.map((c) => `sum(${c})`).join(', '))}
    from (${contributionOf} ${stored(projectId, ids)} union all ${old}) d (${sql.raw([...KEYS, ...SUMS].join(', '))})
    group by ${sql.raw(KEYS.join(', '))}
    order by ${sql.raw(KEYS.join(', '))}
    on conflict (project_id, hour, type, md5(name), md5(environment), md5(model)) do update set
      ${sql.raw(SUMS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', '))}`).execute(db);
}
