import { Migration } from '@mikro-orm/migrations';

// The user and session indexes of GET /traces (migration 19) held the values themselves: a user or
// session id longer than ~2.7 KB (an index entry's limit) made its trace unstorable, and the whole
// batch failed (found by the fuzz suite). They hold md5s now, as the roll-ups' keys do; the list
// filters on the md5 (the index) and on the value (a collision cannot mix users).
export class Migration20261127000023TraceListIndexesHashed extends Migration {
  override up(): void {
    this.addSql(`drop index if exists traces_user_time_idx`);
    this.addSql(`drop index if exists traces_session_time_idx`);
    this.addSql(`create index if not exists traces_user_hash_time_idx on traces (project_id, md5(user_id), timestamp)`);
    this.addSql(`create index if not exists traces_session_hash_time_idx on traces (project_id, md5(session_id), timestamp)`);
  }
}
