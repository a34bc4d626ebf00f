import { Migration } from '@mikro-orm/migrations';

// A counter per model scope (a project id, or '*' for the managed list), bumped in the same
// transaction as every model change. Each ingestion batch reads it with its first statement,
// so every server instance sharing the database prices with the models as they are now,
// not as they were when its cache was filled.
export class Migration20261122000005ModelRevisions extends Migration {
  override up(): void {
    this.addSql(`create table model_revisions (
      scope text primary key,
      revision bigint not null default 0
    )`);
  }
}
