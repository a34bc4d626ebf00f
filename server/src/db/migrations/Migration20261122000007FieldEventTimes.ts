import { Migration } from '@mikro-orm/migrations';

// Which event last set each field of an observation or trace (domain/ingestion/field-times.ts),
// so that an event older than the one that set a field leaves that field alone whatever order
// batches arrive in. Rows stored before have none: their fields take the next event that sets
// them, as before.
export class Migration20261122000007FieldEventTimes extends Migration {
  override up(): void {
    this.addSql(`alter table observations add column field_event_times jsonb not null default '{}'`);
    this.addSql(`alter table traces add column field_event_times jsonb not null default '{}'`);
  }
}
