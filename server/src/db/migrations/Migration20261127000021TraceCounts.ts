import { Migration } from '@mikro-orm/migrations';

// GET /traces answers how many traces match (meta.totalItems) with every page. Counted from the
// traces themselves that read every matching trace: 35-60 ms at 125,000, most of a page's time.
// trace_counts keeps the count per project, hour, environment and name (tag NULL), and per tag
// (a trace counted once under each of its distinct tags), so a count by name, environment or one
// tag reads one row per hour and group, the partial hours at a window's edges from the traces.
// Statement-level triggers record each change of a group's count in trace_count_deltas, in the
// transaction that writes the traces (ingestion, retention's deletes, anything else): appended,
// never updated, so concurrent batches never wait on each other's counts (an upsert of the counts
// there held the current hour's row for the rest of each batch's transaction and cost ingestion
// 12% of its rate). A count reads both tables; every few seconds each instance folds the deltas
// into trace_counts (store/trace-counts.ts).
export class Migration20261127000021TraceCounts extends Migration {
  override up(): void {
    // the folded counts, and the changes the triggers append (the same columns)
    const columns = `(
      project_id text not null,
      hour timestamptz not null,
      environment text not null,
      name text,
      tag text,
      n bigint not null
    )`;
    this.addSql(`create table trace_counts ${columns}`);
    // free text of any length: the key holds md5s (an index entry must fit 2,704 bytes)
    this.addSql(
      `create unique index trace_counts_key on trace_counts (project_id, hour, md5(environment), md5(name), md5(tag)) nulls not distinct`,
    );
    // the groups of a set of traces, each with a sign: the trace itself (tag NULL) and each distinct tag
    const groups = (rows: string, sign: number) => `
      select r.project_id, date_trunc('hour', r.timestamp, 'UTC') as hour, r.environment, r.name, null::text as tag, ${sign} as s from ${rows} r
      union all
      select r.project_id, date_trunc('hour', r.timestamp, 'UTC'), r.environment, r.name, t.tag, ${sign}
      from ${rows} r cross join lateral (select distinct unnest(r.tags) as tag) t`;
    const apply = (source: string) => `
      insert into trace_count_deltas (project_id, hour, environment, name, tag, n)
      select project_id, hour, environment, name, tag, sum(s) from (${source}) d
      group by project_id, hour, environment, name, tag having sum(s) <> 0;`;
    this.addSql(`create table trace_count_deltas ${columns}`);
    this.addSql(`create index trace_count_deltas_time on trace_count_deltas (project_id, hour)`);
    this.addSql(`create function trace_counts_apply() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          ${apply(groups('new_rows', 1))}
        elsif tg_op = 'UPDATE' then
          ${apply(`${groups('new_rows', 1)} union all ${groups('old_rows', -1)}`)}
        else
          ${apply(groups('old_rows', -1))}
        end if;
        return null;
      end $$`);
    this.addSql(
      `create trigger trace_counts_ins after insert on traces referencing new table as new_rows for each statement execute function trace_counts_apply()`,
    );
    this.addSql(
      `create trigger trace_counts_upd after update on traces referencing old table as old_rows new table as new_rows for each statement execute function trace_counts_apply()`,
    );
    this.addSql(
      `create trigger trace_counts_del after delete on traces referencing old table as old_rows for each statement execute function trace_counts_apply()`,
    );
    this.addSql(`insert into trace_counts (project_id, hour, environment, name, tag, n)
      select project_id, hour, environment, name, tag, sum(s) from (${groups('traces', 1)}) d
      group by project_id, hour, environment, name, tag`);
  }
}
