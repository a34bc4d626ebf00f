import { sql, type Db } from './sql.ts';

/**
 * Records these event ids as applied and returns the ones that were not recorded before,
 * in one statement. Inside the batch's transaction: if the batch fails, nothing is claimed.
 */
export async function claimEvents(db: Db, projectId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await sql<{ event_id: string }>`insert into ingested_events (project_id, event_id)
    select ${projectId}, unnest(cast(${ids} as text[])) on conflict do nothing returning event_id`.execute(db);
  return new Set(rows.map((r) => r.event_id));
}
