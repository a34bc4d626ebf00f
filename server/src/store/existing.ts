// The stored state a batch merges into, fetched in one round trip for both tables.
import type { ObservationRecord, TraceRecord } from '../domain/ingestion/types.ts';
import { fromRow as observationFromRow } from './observations.ts';
import { sql, type Db } from './sql.ts';
import { fromRow as traceFromRow } from './traces.ts';

export async function loadExisting(db: Db, projectId: string, observationIds: string[], traceIds: string[]) {
  const observations = new Map<string, ObservationRecord>();
  const traces = new Map<string, TraceRecord>();
  if (!observationIds.length && !traceIds.length) return { observations, traces };
  const { rows } = await sql<{ kind: 'o' | 't'; row: Record<string, unknown> }>`
    select 'o' as kind, to_jsonb(o) as row from observations o where o.project_id = ${projectId} and o.id = any(${observationIds})
    union all
    select 't' as kind, to_jsonb(t) as row from traces t where t.project_id = ${projectId} and t.id = any(${traceIds})`.execute(db);
  for (const { kind, row } of rows) {
    if (kind === 'o') observations.set(row.id as string, observationFromRow(row));
    else traces.set(row.id as string, traceFromRow(row));
  }
  return { observations, traces };
}
