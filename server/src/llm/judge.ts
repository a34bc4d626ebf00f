// One LLM-as-a-judge evaluation: the judge call through a connection, the judge's own trace in
// environment langfuse-llm-as-a-judge (its generation priced like any ingested one), and the
// scores it gives a target. Used by the evaluation worker and by POST
// /api/public/evaluations/llm-as-a-judge.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { judgeCall, readJudgeAnswer, type JudgedScore, type OutputDefinition } from '../domain/evaluation/judge.ts';
import type { LlmParams } from '../domain/llm/call.ts';
import { recordLlmCall } from '../ingestion/record-llm-call.ts';
import type { Services } from '../app-context.ts';
import type { StoredConnection } from '../store/llm-connections.ts';
import { storedValues } from '../domain/scores/data-type.ts';
import { putScore } from '../store/scores.ts';
import { kysely } from '../store/sql.ts';
import { callThroughConnection } from './llm-gateway.ts';

export const JUDGE_ENVIRONMENT = 'langfuse-llm-as-a-judge';

/** the judge answered, but not with a usable extract call (never retried: the same call would answer the same way) */
export class JudgeAnswerError extends Error {}

export interface JudgeRequest {
  connection: StoredConnection;
  model: string;
  /** the compiled prompt */
  prompt: string;
  params?: LlmParams;
  providerOptions?: Record<string, unknown>;
  outputDefinition: OutputDefinition | null;
  /** the trace name's evaluator part: `Execute evaluator: <name>` */
  evaluatorName: string;
  executionTraceId: string;
  /** what the scores are about; none: the verdict is returned, nothing scored */
  target?: { traceId: string; observationId: string | null; environment: string };
  scoreName: string;
  /** the id of the n-th score of this evaluation (a re-run writes the same ids) */
  scoreId: (name: string, occurrence: number) => string;
  metadata: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface JudgeVerdict {
  scores: (JudgedScore & { id: string | null })[];
  reasoning: string;
  executionTraceId: string;
  model: string;
  usageDetails: Record<string, number>;
  costDetails: Record<string, number>;
  totalCost: number | null;
  costStatus: string;
  warnings: string[];
}

/** throws LlmError (the provider failed) or JudgeAnswerError (after recording the call: its tokens were spent) */
export async function runJudge(em: SqlEntityManager, services: Services, projectId: string, j: JudgeRequest): Promise<JudgeVerdict> {
  const call = judgeCall({
    model: j.model,
    prompt: j.prompt,
    params: j.params,
    providerOptions: j.providerOptions,
    outputDefinition: j.outputDefinition,
  });
  const started = new Date();
  const result = await callThroughConnection(services, j.connection, { ...call, signal: j.signal });
  const recorded = await recordLlmCall(em, services, projectId, {
    traceId: j.executionTraceId,
    traceName: `Execute evaluator: ${j.evaluatorName}`,
    environment: JUDGE_ENVIRONMENT,
    generationName: 'llm-as-a-judge',
    model: j.model,
    messages: call.messages,
    params: call.params,
    result,
    started,
    ended: new Date(),
    metadata: j.metadata,
  });
  const answer = readJudgeAnswer(result.toolCalls, j.outputDefinition, j.model);
  if (!answer.ok) throw new JudgeAnswerError(answer.message);

  const scores: JudgeVerdict['scores'] = [];
  const seen = new Map<string, number>();
  for (const s of answer.scores) {
    if (!j.target) {
      scores.push({ ...s, id: null });
      continue;
    }
    const occurrence = seen.get(j.scoreName) ?? 0;
    seen.set(j.scoreName, occurrence + 1);
    const id = j.scoreId(j.scoreName, occurrence);
    await putScore(kysely(em), projectId, {
      id,
      timestamp: new Date(),
      name: j.scoreName,
      ...storedValues(s.value, s.dataType),
      dataType: s.dataType,
      source: 'EVAL',
      traceId: j.target.traceId,
      observationId: j.target.observationId,
      sessionId: null,
      datasetRunId: null,
      configId: null,
      comment: answer.reasoning,
      metadata: j.metadata,
      environment: j.target.environment,
      queueId: null,
      executionTraceId: j.executionTraceId,
    });
    scores.push({ ...s, id });
  }
  const o = recorded.observation;
  // null, not the stored calculatedTotalCost's 0, when nothing was priced (as the explain endpoint says it)
  return {
    scores,
    reasoning: answer.reasoning,
    executionTraceId: j.executionTraceId,
    model: j.model,
    usageDetails: o.usageDetails,
    costDetails: o.costDetails,
    totalCost: o.costDetails.total ?? null,
    costStatus: o.costStatus,
    warnings: recorded.warnings,
  };
}
