// Stored score → the v1 and v2 wire shapes of the spec (types from the generated client).
import type { Score, ScoreV1 } from '../../../../generated/client/types.gen.ts';
import type { StoredScore } from '../../store/scores.ts';

function common(s: StoredScore, projectId: string) {
  return {
    id: s.id,
    projectId,
    environment: s.environment,
    name: s.name,
    source: s.source as Score['source'],
    authorUserId: s.authorUserId,
    comment: s.comment,
    metadata: s.metadata ?? null,
    configId: s.configId,
    queueId: s.queueId,
    executionTraceId: s.executionTraceId,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    timestamp: s.timestamp.toISOString(),
    traceId: s.traceId,
    observationId: s.observationId,
    dataType: s.dataType,
    // omitted for TEXT; CATEGORICAL and CORRECTION scores carry no mapped number (0)
    ...(s.dataType === 'TEXT' ? {} : { value: s.value ?? 0 }),
    stringValue: s.dataType === 'NUMERIC' ? null : s.stringValue,
  };
}

export function presentScoreV1(s: StoredScore, projectId: string): ScoreV1 {
  return {
    ...common(s, projectId),
    trace: { userId: s.trace?.userId ?? null, tags: s.trace?.tags ?? [], environment: s.trace?.environment ?? null },
  };
}

export function presentScore(s: StoredScore, projectId: string, withTrace = true): Score {
  const out: Score = { ...common(s, projectId), sessionId: s.sessionId, datasetRunId: s.datasetRunId };
  if (withTrace)
    out.trace = s.trace
      ? { userId: s.trace.userId, tags: s.trace.tags, environment: s.trace.environment, sessionId: s.trace.sessionId }
      : null;
  return out;
}
