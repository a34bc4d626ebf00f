import { Migration } from '@mikro-orm/migrations';

// Optimistic concurrency for merged rows: a batch writes an observation or trace only if the
// row is still at the revision it read, so two concurrent batches can never overwrite each
// other's merged fields (the later one retries on the fresh row).
export class Migration20261122000003Revisions extends Migration {
  override up(): void {
    this.addSql(`alter table observations add column revision integer not null default 0`);
    this.addSql(`alter table traces add column revision integer not null default 0`);
  }
}
