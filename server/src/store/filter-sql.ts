// Checked filters → SQL conditions over the observations table (the list endpoint's `filter`).
import type { CheckedFilter } from '../domain/filters/check.ts';
import { filterCondition } from '../domain/filters/compile.ts';
import { renderExpr } from '../domain/metrics/compile.ts';
import { LATENCY_MS } from '../domain/metrics/expressions.ts';
import { sql, type RawBuilder } from './sql.ts';

const OBSERVATION_SQL: Record<string, string> = {
  id: 'id',
  traceId: 'trace_id',
  traceName: 'trace_name',
  name: 'name',
  type: 'type',
  level: 'level',
  environment: 'environment',
  version: 'version',
  parentObservationId: 'parent_observation_id',
  providedModelName: 'model',
  promptName: 'prompt_name',
  userId: 'user_id',
  sessionId: 'session_id',
  traceRelease: 'release',
  traceVersion: 'trace_version',
  costStatus: 'cost_status',
  tags: 'tags',
  metadata: 'metadata',
  startTime: 'start_time',
  endTime: 'end_time',
  latency: renderExpr(LATENCY_MS, null),
  inputTokens: 'input_usage',
  outputTokens: 'output_usage',
  totalTokens: 'total_usage',
  inputCost: 'input_cost',
  outputCost: 'output_cost',
  totalCost: 'total_cost',
  promptVersion: 'prompt_version',
};

export function observationFilterSql(f: CheckedFilter): RawBuilder<unknown> {
  return filterCondition(f, sql.raw(OBSERVATION_SQL[f.target]!));
}
