import { Migration } from '@mikro-orm/migrations';

// GET /traces pages newest first within a user or a session (the explorer's links from a user or
// a session): each filter with the time order is an index scan that stops after the page, and its
// count reads only that user's or session's entries.
export class Migration20261127000019TraceListIndexes extends Migration {
  override up(): void {
    this.addSql(`create index if not exists traces_user_time_idx on traces (project_id, user_id, timestamp)`);
    this.addSql(`create index if not exists traces_session_time_idx on traces (project_id, session_id, timestamp)`);
  }
}
