// Traces at rest, and the copy of their grouping fields onto their observations.
import type { TraceRecord } from '../domain/ingestion/types.ts';
import { json, sql, toDate, upsert, type Column, type Db } from './sql.ts';

const COLUMNS: Column<TraceRecord & { projectId: string }>[] = [
  { name: 'project_id', get: (r) => r.projectId },
  { name: 'id', get: (r) => r.id },
  { name: 'timestamp', get: (r) => r.timestamp },
  { name: 'name', get: (r) => r.name },
  { name: 'user_id', get: (r) => r.userId },
  { name: 'session_id', get: (r) => r.sessionId },
  { name: 'release', get: (r) => r.release },
  { name: 'version', get: (r) => r.version },
  { name: 'external_id', get: (r) => r.externalId },
  { name: 'environment', get: (r) => r.environment },
  { name: 'tags', get: (r) => r.tags, cast: 'text[]' },
  { name: 'public', get: (r) => r.public },
  { name: 'input', get: (r) => json(r.input), cast: 'jsonb' },
  { name: 'output', get: (r) => json(r.output), cast: 'jsonb' },
  { name: 'metadata', get: (r) => json(r.metadata), cast: 'jsonb' },
  { name: 'created_at', get: (r) => r.createdAt },
  { name: 'updated_at', get: (r) => r.updatedAt },
];

function fromRow(r: any): TraceRecord {
  return {
    id: r.id, timestamp: toDate(r.timestamp), name: r.name, userId: r.user_id, sessionId: r.session_id, release: r.release,
    version: r.version, externalId: r.external_id, environment: r.environment, tags: r.tags ?? [], public: r.public,
    input: r.input, output: r.output, metadata: r.metadata, createdAt: toDate(r.created_at), updatedAt: toDate(r.updated_at),
  };
}

export async function loadTraces(db: Db, projectId: string, ids: string[]): Promise<Map<string, TraceRecord>> {
  if (!ids.length) return new Map();
  const { rows } = await sql`select * from traces where project_id = ${projectId} and id = any(${ids})`.execute(db);
  return new Map(rows.map((r: any) => [r.id, fromRow(r)]));
}

export async function upsertTraces(db: Db, projectId: string, traces: TraceRecord[]): Promise<void> {
  if (!traces.length) return;
  await upsert('traces', COLUMNS, traces.map((t) => ({ ...t, projectId })), ['project_id', 'id']).execute(db);
  // observations stored before their trace arrived (or before it changed) get its fields now
  await sql`update observations o set trace_name = t.name, user_id = t.user_id, session_id = t.session_id, release = t.release,
      trace_version = t.version, tags = t.tags
    from traces t
    where o.project_id = ${projectId} and t.project_id = ${projectId} and o.trace_id = t.id and t.id = any(${traces.map((t) => t.id)})`.execute(db);
}

export async function getTrace(db: Db, projectId: string, id: string): Promise<TraceRecord | null> {
  const { rows } = await sql`select * from traces where project_id = ${projectId} and id = ${id}`.execute(db);
  return rows.length ? fromRow(rows[0]) : null;
}
