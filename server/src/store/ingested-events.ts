// Pruning of ingested_events, the record of applied event ids that makes a replay a no-op.
// Without it the table grows by a row per event for ever: ~250 bytes each with the primary key
// (200,000 claims of 24-character ids: 101 bytes of heap, 151 of index). SDKs retry within
// minutes, so ids older than the retention window are forgotten: a replay of such an event
// would be applied again (upserts by id, so no duplicate rows either way).
import { sql, type Db } from './sql.ts';

/** deletes claims older than `olderThan`, in chunks so no statement holds many row locks; returns the count */
export async function pruneIngestedEvents(db: Db, olderThan: Date, chunk = 10_000): Promise<number> {
  let total = 0;
  for (;;) {
    const { numAffectedRows } = await sql`delete from ingested_events where ctid in (
      select ctid from ingested_events where created_at < ${olderThan} limit ${chunk})`.execute(db);
    const n = Number(numAffectedRows ?? 0);
    total += n;
    if (n < chunk) return total;
  }
}
