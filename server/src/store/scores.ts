// The scores table: ingestion's score-create events, the public Scores API and evaluators
// all write here; the metrics score views read it.
import type { ScoreRecord } from '../domain/ingestion/types.ts';
import type { ScoreDataType } from '../domain/scores/data-type.ts';
import { prepared, sql, toDate, type Db, type RawBuilder, type Timestamp } from './sql.ts';
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

/** ingestion's bulk write (score-create events) */
export async function upsertScores(db: Db, projectId: string, scores: ScoreRecord[]): Promise<void> {
  if (!scores.length) return;
  await prepared('upsert_scores', upsert('scores', projectId, COLUMNS, scores)).execute(db);
}

/** a score as the API and evaluators write it: the ingestion fields plus Langfuse's extra ones */
export interface ScoreWrite extends ScoreRecord {
  queueId: string | null;
  executionTraceId: string | null;
}

/** a stored score, with its trace's fields when the trace exists */
export interface StoredScore extends ScoreWrite {
  authorUserId: string | null;
  createdAt: Date;
  updatedAt: Date;
  trace: { userId: string | null; tags: string[]; environment: string; sessionId: string | null } | null;
}

/** Writes one score; a score with the same id is overwritten (its createdAt kept). */
export async function putScore(db: Db, projectId: string, s: ScoreWrite): Promise<void> {
  await sql`insert into scores (project_id, id, timestamp, name, value, string_value, data_type, source, trace_id, observation_id,
      session_id, dataset_run_id, config_id, comment, metadata, environment, queue_id, execution_trace_id)
    values (${projectId}, ${s.id}, ${s.timestamp}, ${s.name}, ${s.value}, ${s.stringValue}, ${s.dataType}, ${s.source}, ${s.traceId}, ${s.observationId},
      ${s.sessionId}, ${s.datasetRunId}, ${s.configId}, ${s.comment}, cast(${s.metadata === undefined || s.metadata === null ? null : JSON.stringify(s.metadata)} as jsonb),
      ${s.environment}, ${s.queueId}, ${s.executionTraceId})
    on conflict (project_id, id) do update set timestamp = excluded.timestamp, name = excluded.name, value = excluded.value,
      string_value = excluded.string_value, data_type = excluded.data_type, source = excluded.source, trace_id = excluded.trace_id,
      observation_id = excluded.observation_id, session_id = excluded.session_id, dataset_run_id = excluded.dataset_run_id,
      config_id = excluded.config_id, comment = excluded.comment, metadata = excluded.metadata, environment = excluded.environment,
      queue_id = excluded.queue_id, execution_trace_id = excluded.execution_trace_id, updated_at = now()`.execute(db);
}

export async function deleteScore(db: Db, projectId: string, id: string): Promise<void> {
  await sql`delete from scores where project_id = ${projectId} and id = ${id}`.execute(db);
}

export type ScoreOperator = '<' | '>' | '<=' | '>=' | '!=' | '=';

export interface ScoreFilter {
  ids?: string[];
  userId?: string;
  name?: string;
  configId?: string;
  queueId?: string;
  dataTypes?: ScoreDataType[];
  source?: string;
  traceTags?: string[];
  environment?: string[];
  fromTimestamp?: Date;
  toTimestamp?: Date;
  value?: { operator: ScoreOperator; value: number };
  sessionIds?: string[];
  traceIds?: string[];
  datasetRunIds?: string[];
  observationIds?: string[];
  /** only scores of a trace (v1) */
  traceOnly?: boolean;
}

const SELECT = sql`select s.*, t.id as t_id, t.user_id as t_user_id, t.tags as t_tags, t.environment as t_environment, t.session_id as t_session_id
  from scores s left join traces t on t.project_id = s.project_id and t.id = s.trace_id`;

/** a row of SELECT: the score's columns and its trace's (all null when the trace is not stored) */
export type ScoreRow = ScoreColumns &
  (
    | { t_id: string; t_user_id: string | null; t_tags: string[]; t_environment: string; t_session_id: string | null }
    | { t_id: null; t_user_id: null; t_tags: null; t_environment: null; t_session_id: null }
  );

interface ScoreColumns {
  id: string;
  timestamp: Timestamp;
  name: string;
  value: number | null;
  string_value: string | null;
  data_type: ScoreRecord['dataType'];
  source: string;
  trace_id: string | null;
  observation_id: string | null;
  session_id: string | null;
  dataset_run_id: string | null;
  config_id: string | null;
  comment: string | null;
  metadata: unknown;
  environment: string;
  queue_id: string | null;
  execution_trace_id: string | null;
  author_user_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export function fromRow(r: ScoreRow): StoredScore {
  return {
    id: r.id,
    timestamp: toDate(r.timestamp),
    name: r.name,
    value: r.value === null ? null : Number(r.value),
    stringValue: r.string_value,
    dataType: r.data_type,
    source: r.source,
    traceId: r.trace_id,
    observationId: r.observation_id,
    sessionId: r.session_id,
    datasetRunId: r.dataset_run_id,
    configId: r.config_id,
    comment: r.comment,
    metadata: r.metadata,
    environment: r.environment,
    queueId: r.queue_id ?? null,
    executionTraceId: r.execution_trace_id ?? null,
    authorUserId: r.author_user_id ?? null,
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
    trace:
      r.t_id === null || r.t_id === undefined
        ? null
        : { userId: r.t_user_id, tags: r.t_tags ?? [], environment: r.t_environment, sessionId: r.t_session_id },
  };
}

export async function getScore(db: Db, projectId: string, id: string): Promise<StoredScore | null> {
  const { rows } = await sql<ScoreRow>`${SELECT} where s.project_id = ${projectId} and s.id = ${id}`.execute(db);
  return rows.length ? fromRow(rows[0]) : null;
}

const OPERATORS: Record<ScoreOperator, string> = { '<': '<', '>': '>', '<=': '<=', '>=': '>=', '!=': '<>', '=': '=' };

export async function listScores(
  db: Db,
  projectId: string,
  f: ScoreFilter,
  page: number,
  limit: number,
): Promise<{ scores: StoredScore[]; total: number }> {
  const where: RawBuilder<unknown>[] = [sql`s.project_id = ${projectId}`];
  if (f.traceOnly) where.push(sql`s.trace_id is not null`);
  if (f.ids?.length) where.push(sql`s.id = any(${f.ids})`);
  if (f.userId !== undefined) where.push(sql`t.user_id = ${f.userId}`);
  if (f.name !== undefined) where.push(sql`s.name = ${f.name}`);
  if (f.configId !== undefined) where.push(sql`s.config_id = ${f.configId}`);
  if (f.queueId !== undefined) where.push(sql`s.queue_id = ${f.queueId}`);
  if (f.dataTypes?.length) where.push(sql`s.data_type = any(${f.dataTypes})`);
  if (f.source !== undefined) where.push(sql`s.source = ${f.source}`);
  if (f.traceTags?.length) where.push(sql`t.tags @> cast(${f.traceTags} as text[])`);
  if (f.environment?.length) where.push(sql`s.environment = any(${f.environment})`);
  if (f.fromTimestamp) where.push(sql`s.timestamp >= ${f.fromTimestamp}`);
  if (f.toTimestamp) where.push(sql`s.timestamp < ${f.toTimestamp}`);
  if (f.value) where.push(sql`s.value ${sql.raw(OPERATORS[f.value.operator])} ${f.value.value}`);
  if (f.sessionIds?.length) where.push(sql`s.session_id = any(${f.sessionIds})`);
  if (f.traceIds?.length) where.push(sql`s.trace_id = any(${f.traceIds})`);
  if (f.datasetRunIds?.length) where.push(sql`s.dataset_run_id = any(${f.datasetRunIds})`);
  if (f.observationIds?.length) where.push(sql`s.observation_id = any(${f.observationIds})`);
  const cond = sql.join(where, sql` and `);
  const [{ rows }, count] = await Promise.all([
    sql<ScoreRow>`${SELECT} where ${cond} order by s.timestamp desc, s.id asc limit ${limit} offset ${(page - 1) * limit}`.execute(db),
    sql<{
      n: string;
    }>`select count(*) as n from scores s left join traces t on t.project_id = s.project_id and t.id = s.trace_id where ${cond}`.execute(
      db,
    ),
  ]);
  return { scores: rows.map(fromRow), total: Number(count.rows[0]!.n) };
}
