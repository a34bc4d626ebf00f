import { Migration } from '@mikro-orm/migrations';

// The ingest tables (observations, traces, scores, ingested_events) take one row per event.
// A foreign key on project_id made PostgreSQL run a referential check per inserted row (a
// lookup plus a KEY SHARE lock on the one project row that every concurrent batch shares).
// Rows only ever get a project id from an authenticated key, so the check protected nothing
// that the API could break.
export class Migration20261122000004HotTablesWithoutForeignKeys extends Migration {
  override up(): void {
    for (const t of ['observations', 'traces', 'scores', 'ingested_events'])
      this.addSql(`alter table ${t} drop constraint if exists ${t}_project_id_fkey`);
  }
}
