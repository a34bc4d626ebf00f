// Folds trace_count_deltas (appended by the triggers on traces, migration 21) into trace_counts. A
// count reads both tables in one snapshot, and a fold moves rows from one to the other in one
// statement, so a count is exact whether or not a fold has run. Instances sharing a database may
// fold at once: each takes the delta rows no other fold holds (skip locked), and the counts are
// written in one key order, so two folds queue rather than deadlock.
import { sql, type Db } from './sql.ts';

/** folds up to `limit` delta rows; returns how many it folded */
export async function foldTraceCounts(db: Db, limit = 50_000): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    with picked as (select ctid from trace_count_deltas limit ${limit} for update skip locked),
    gone as (delete from trace_count_deltas d using picked p where d.ctid = p.ctid
      returning d.project_id, d.hour, d.environment, d.name, d.tag, d.n),
    folded as (insert into trace_counts as c (project_id, hour, environment, name, tag, n)
      select project_id, hour, environment, name, tag, sum(n) from gone
      group by project_id, hour, environment, name, tag having sum(n) <> 0
      order by project_id, hour, md5(environment), md5(name), md5(tag)
      on conflict (project_id, hour, md5(environment), md5(name), md5(tag)) do update set n = c.n + excluded.n
      returning 1)
    select (select count(*) from gone)::text as n, (select count(*) from folded) as written`.execute(db);
  return Number(rows[0]!.n);
}
