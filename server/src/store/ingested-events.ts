import { sql, type Db } from './sql.ts';

/** the subset of these event ids that were applied before */
export async function seenEvents(db: Db, projectId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await sql<{ event_id: string }>`select event_id from ingested_events where project_id = ${projectId} and event_id = any(${ids})`.execute(db);
  return new Set(rows.map((r) => r.event_id));
}

export async function markEvents(db: Db, projectId: string, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await sql`insert into ingested_events (project_id, event_id) select ${projectId}, unnest(cast(${ids} as text[])) on conflict do nothing`.execute(db);
}
