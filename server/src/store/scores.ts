import type { ScoreRecord } from '../domain/ingestion/types.ts';
import { json, upsert, type Column, type Db } from './sql.ts';

const COLUMNS: Column<ScoreRecord & { projectId: string }>[] = [
  { name: 'project_id', get: (r) => r.projectId },
  { name: 'id', get: (r) => r.id },
  { name: 'timestamp', get: (r) => r.timestamp },
  { name: 'name', get: (r) => r.name },
  { name: 'value', get: (r) => r.value },
  { name: 'string_value', get: (r) => r.stringValue },
  { name: 'data_type', get: (r) => r.dataType },
  { name: 'source', get: (r) => r.source },
  { name: 'trace_id', get: (r) => r.traceId },
  { name: 'observation_id', get: (r) => r.observationId },
  { name: 'session_id', get: (r) => r.sessionId },
  { name: 'dataset_run_id', get: (r) => r.datasetRunId },
  { name: 'config_id', get: (r) => r.configId },
  { name: 'comment', get: (r) => r.comment },
  { name: 'metadata', get: (r) => json(r.metadata), cast: 'jsonb' },
  { name: 'environment', get: (r) => r.environment },
];

export async function upsertScores(db: Db, projectId: string, scores: ScoreRecord[]): Promise<void> {
  if (!scores.length) return;
  await upsert('scores', COLUMNS, scores.map((s) => ({ ...s, projectId })), ['project_id', 'id']).execute(db);
}
