import type { ScoreRecord } from '../domain/ingestion/types.ts';
import { prepared, type Db } from './sql.ts';
import { upsert, type Column } from './upsert.ts';

const COLUMNS: Column<ScoreRecord>[] = [
  { name: 'id', get: (r) => r.id, type: 'text' },
  { name: 'timestamp', get: (r) => r.timestamp, type: 'timestamptz' },
  { name: 'name', get: (r) => r.name, type: 'text' },
  { name: 'value', get: (r) => r.value, type: 'double precision' },
  { name: 'string_value', get: (r) => r.stringValue, type: 'text' },
  { name: 'data_type', get: (r) => r.dataType, type: 'text' },
  { name: 'source', get: (r) => r.source, type: 'text' },
  { name: 'trace_id', get: (r) => r.traceId, type: 'text' },
  { name: 'observation_id', get: (r) => r.observationId, type: 'text' },
  { name: 'session_id', get: (r) => r.sessionId, type: 'text' },
  { name: 'dataset_run_id', get: (r) => r.datasetRunId, type: 'text' },
  { name: 'config_id', get: (r) => r.configId, type: 'text' },
  { name: 'comment', get: (r) => r.comment, type: 'text' },
  { name: 'metadata', get: (r) => r.metadata, type: 'jsonb' },
  { name: 'environment', get: (r) => r.environment, type: 'text' },
];

export async function upsertScores(db: Db, projectId: string, scores: ScoreRecord[]): Promise<void> {
  if (!scores.length) return;
  await prepared('upsert_scores', upsert('scores', projectId, COLUMNS, scores)).execute(db);
}
