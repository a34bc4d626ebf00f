import { Migration } from '@mikro-orm/migrations';

// ClickHouse keeps observations ordered by day (start_time) and keeps hourly and daily roll-ups of
// its own, recomputed by the exporter for the hours a change touched. A row's new hour is in the
// row; its old hour is gone from PostgreSQL once the change is stored. So an observation change
// that moves a row to another hour, or deletes it, carries the hour it left (`old_time`, the old
// start_time): the exporter recomputes that hour too, and tombstones the row's old copy in
// ClickHouse when it left its day (the day is part of ClickHouse's key).
export class Migration20261127000018AnalyticsMoves extends Migration {
  override up(): void {
    this.addSql(`alter table analytics_changes add column old_time timestamptz`);
    this.addSql(`create or replace function analytics_feed() returns trigger language plpgsql as $$
      begin
        if coalesce(current_setting('tally.analytics_skip', true), '') = 'on' then return null; end if;
        if tg_op = 'DELETE' then
          if tg_argv[0] = 'o' then
            insert into analytics_changes (entity, project_id, id, old_time) select 'o', project_id, id, start_time from old_rows;
          else
            insert into analytics_changes (entity, project_id, id) select tg_argv[0]::"char", project_id, id from old_rows;
          end if;
        elsif tg_op = 'UPDATE' and tg_argv[0] = 'o' then
          insert into analytics_changes (entity, project_id, id, old_time)
            select 'o', n.project_id, n.id,
                   case when date_trunc('hour', o.start_time, 'UTC') is distinct from date_trunc('hour', n.start_time, 'UTC') then o.start_time end
            from new_rows n left join old_rows o on o.project_id = n.project_id and o.id = n.id;
        else
          insert into analytics_changes (entity, project_id, id) select tg_argv[0]::"char", project_id, id from new_rows;
        end if;
        return null;
      end $$`);
  }
}
