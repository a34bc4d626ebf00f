import { Migration } from '@mikro-orm/migrations';

// The change feed to the analytics store (ClickHouse): one row per stored, changed or deleted
// observation, trace or score, written by statement-level triggers in the transaction that made
// the change, so a committed batch always has its feed rows and a rolled-back one never does.
// The triggers exist only while TALLY_CLICKHOUSE_URL is set (analytics/feed.ts installs or drops
// them at start); the function here is what they run. `tally.analytics_skip` set in a transaction
// (retention's deletes of rows already exported) writes nothing.
export class Migration20261125000017AnalyticsChanges extends Migration {
  override up(): void {
    this.addSql(`create table analytics_changes (
      seq bigserial primary key,
      entity "char" not null,
      project_id text not null,
      id text not null,
      at timestamptz not null default clock_timestamp()
    )`);
    this.addSql(`create index analytics_changes_row_idx on analytics_changes (project_id, id)`);
    this.addSql(`create function analytics_feed() returns trigger language plpgsql as $$
      begin
        if coalesce(current_setting('tally.analytics_skip', true), '') = 'on' then return null; end if;
        if tg_op = 'DELETE' then
          insert into analytics_changes (entity, project_id, id) select tg_argv[0]::"char", project_id, id from old_rows;
        else
          insert into analytics_changes (entity, project_id, id) select tg_argv[0]::"char", project_id, id from new_rows;
        end if;
        return null;
      end $$`);
  }
}
