// POST /api/public/evaluations/llm-as-a-judge (one evaluation now),
// POST /api/public/evaluations/prompt-preview (a judge prompt filled from an observation) and
// GET /api/public/unstable/evaluation-rules/{id}/executions (a rule's jobs).
import { randomBytes } from 'node:crypto';
import type { EvaluationJob, LlmAsAJudgeResult } from '../../../../generated/client/types.gen.ts';
import { scoreId } from '../../domain/evaluation/ids.ts';
import type { OutputDefinition } from '../../domain/evaluation/judge.ts';
import { jsonPathSyntaxProblem } from '../../domain/evaluation/json-path.ts';
import { checkMapping, normaliseMapping } from '../../domain/evaluation/mapping.ts';
import { compilePrompt, promptVariables, stringifyVariable } from '../../domain/evaluation/prompt.ts';
import { extractVariables } from '../../domain/evaluation/variables.ts';
import { LlmError } from '../../domain/llm/call.ts';
import { JudgeAnswerError, runJudge } from '../../llm/judge.ts';
import { ConnectionSecretsUnreadable } from '../../llm/llm-gateway.ts';
import { listRuleJobs, retryJob, type StoredJob } from '../../store/evaluation-jobs.ts';
import { getRule } from '../../store/evaluation-rules.ts';
import { getConnectionByProvider } from '../../store/llm-connections.ts';
import { getObservation } from '../../store/observations.ts';
import { kysely } from '../../store/sql.ts';
import { getTrace } from '../../store/traces.ts';
import { ApiError, invalidRequest, notFound, unstableError } from '../errors.ts';
import { paginated, pagination, projectOf, type OperationHandler } from '../handler.ts';
import { llmErrorBody, llmErrorStatus } from '../llm-call-error.ts';
import { unreadableSecrets } from '../llm-call-error.ts';
import { RULE_NOT_FOUND } from './evaluation-rules.ts';

export const evaluationsLlmAsAJudge: OperationHandler<'evaluations_llmAsAJudge'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const req = ctx.body;
  const connection = await getConnectionByProvider(ctx.em, projectId, req.provider);
  if (!connection) throw notFound(`No LLM connection with provider "${req.provider}" in this project`);
  const scoreName = req.scoreName ?? 'llm-as-a-judge';
  let target: { traceId: string; observationId: string | null; environment: string } | undefined;
  if (req.target) {
    // the scores take the target's environment, as a rule's scores do
    const obs = req.target.observationId ? await getObservation(kysely(ctx.em), projectId, req.target.observationId) : null;
    const trace = obs ? null : await getTrace(kysely(ctx.em), projectId, req.target.traceId);
    target = {
      traceId: req.target.traceId,
      observationId: req.target.observationId ?? null,
      environment: obs?.environment ?? trace?.environment ?? 'default',
    };
  }
  // a random execution: nothing to make idempotent, so the score ids are fresh too
  const execution = randomBytes(16).toString('hex');
  try {
    const v = await runJudge(ctx.em, ctx.services, projectId, {
      connection,
      model: req.model,
      prompt: compilePrompt(req.prompt, req.variables ?? {}),
      params: req.modelParams,
      providerOptions: req.providerOptions,
      outputDefinition: (req.outputDefinition as OutputDefinition | undefined) ?? null,
      evaluatorName: scoreName,
      executionTraceId: execution,
      target,
      scoreName,
      scoreId: (name, i) => scoreId(execution, name, i),
      metadata: { evaluation: 'api', target_trace_id: target?.traceId ?? null, target_observation_id: target?.observationId ?? null },
      signal: ctx.signal,
    });
    const body: LlmAsAJudgeResult = {
      score: v.scores[0]!.value,
      dataType: v.scores[0]!.dataType,
      reasoning: v.reasoning,
      scores: v.scores.map((s) => ({ dataType: s.dataType, value: s.value, scoreId: s.id })),
      scoreId: v.scores[0]!.id,
      executionTraceId: v.executionTraceId,
      model: v.model,
      usage: v.usageDetails,
      costDetails: v.costDetails,
      cost: v.totalCost,
      costStatus: v.costStatus as LlmAsAJudgeResult['costStatus'],
      warnings: v.warnings,
    };
    return { status: 200, body };
  } catch (e) {
    if (e instanceof LlmError) return { status: llmErrorStatus(e), body: llmErrorBody(e) };
    if (e instanceof JudgeAnswerError) throw new ApiError(422, e.message, 'JudgeAnswerError');
    if (e instanceof ConnectionSecretsUnreadable) throw unreadableSecrets(e);
    throw e;
  }
};

export const evaluationRulesExecutions: OperationHandler<'evaluationRules_executions'> = async (ctx) => {
  const projectId = projectOf(ctx);
  if (!(await getRule(ctx.em, projectId, ctx.params.evaluationRuleId!))) throw unstableError(404, 'resource_not_found', RULE_NOT_FOUND);
  const { page, limit } = pagination(ctx.query);
  const { jobs, total } = await listRuleJobs(ctx.em, projectId, ctx.params.evaluationRuleId!, page, limit);
  return { status: 200, body: paginated(jobs.map(presentJob), page, limit, total) };
};

const presentJob = (j: StoredJob): EvaluationJob => ({
  id: j.id,
  status: j.status,
  observationId: j.observationId,
  traceId: j.traceId,
  evaluatorId: j.evaluatorId,
  attempts: j.attempts,
  runAfter: j.runAfter.toISOString(),
  error: j.error,
  scoreId: j.scoreId,
  executionTraceId: j.executionTraceId,
  createdAt: j.createdAt.toISOString(),
  updatedAt: j.updatedAt.toISOString(),
});

/** POST …/executions/{executionId}/retry: a failed or cancelled execution queued again */
export const evaluationRulesRetryExecution: OperationHandler<'evaluationRules_retryExecution'> = async (ctx) => {
  const r = await retryJob(ctx.em, projectOf(ctx), ctx.params.evaluationRuleId!, ctx.params.executionId!);
  if (!r) throw unstableError(404, 'resource_not_found', 'Evaluation execution not found');
  if ('status' in r)
    throw unstableError(409, 'invalid_request', `Only a failed or cancelled execution can be retried; this one is ${r.status}`);
  return { status: 200, body: presentJob(r.job) };
};

/** POST /api/public/evaluations/prompt-preview: the prompt a rule's judge would get for one observation */
export const evaluationsPromptPreview: OperationHandler<'evaluations_promptPreview'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const { prompt, observationId } = ctx.body;
  const mapping = normaliseMapping(ctx.body.mapping ?? []);
  const variables = promptVariables(prompt);
  // an unsaved evaluator may be mapped in part: the rest is what the preview shows as unfilled
  const problem = checkMapping(mapping, variables, 'observation');
  const pathProblem = mapping
    .map((m) => (m.jsonPath === undefined ? null : ([m, jsonPathSyntaxProblem(m.jsonPath)] as const)))
    .find((x) => x?.[1]);
  if (problem && problem.code !== 'missing_variable_mapping') throw invalidRequest(problem.message);
  if (pathProblem)
    throw invalidRequest(
      `Mapping for variable "${pathProblem[0].variable}" has an invalid jsonPath "${pathProblem[0].jsonPath}". ${pathProblem[1]}`,
    );
  const obs = await getObservation(kysely(ctx.em), projectId, observationId);
  if (!obs) throw notFound(`Observation not found: ${observationId}`);
  // the worker's own two steps (evaluation-worker.ts): the values, then the substitution
  const values = extractVariables(obs, mapping);
  const shown: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(values)) shown[name] = value === undefined || value === null ? null : stringifyVariable(value);
  return {
    status: 200,
    body: {
      prompt: compilePrompt(prompt, values),
      variables: shown,
      unfilled: variables.filter((v) => shown[v] === undefined || shown[v] === null),
      observation: { id: obs.id, traceId: obs.traceId ?? null, name: obs.name ?? null, type: obs.type },
    },
  };
};
