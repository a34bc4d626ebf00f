import { Migration } from '@mikro-orm/migrations';

// ingested_events takes a row per event for ever unless pruned (store/ingested-events.ts).
// Rows arrive in created_at order, so a BRIN index finds the old ones for a few kB and next
// to no work per insert, where a btree would add a second index insert to every event.
export class Migration20261122000006IngestedEventsByAge extends Migration {
  override up(): void {
    this.addSql(`create index ingested_events_created_brin on ingested_events using brin (created_at)`);
  }
}
