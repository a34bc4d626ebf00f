// /api/public/unstable/evaluators: list, upsert-by-name POST (a new
// version each time), GET, DELETE. Errors in the unstable envelope, in Langfuse's order.
import { checkMapping, missingVariables, normaliseMapping, storageMappingProblem, type Mapping } from '../../domain/evaluation/mapping.ts';
import { parseOutputDefinition, storageOutputDefinitionIssues, type Issue } from '../../domain/evaluation/output-definition.ts';
import { promptVariables } from '../../domain/evaluation/prompt.ts';
import {
  appendEvaluatorVersion,
  assignmentOverrides,
  deleteEvaluator,
  evaluatorsNamed,
  getEvaluator,
  listEvaluators,
} from '../../store/evaluators.ts';
import { unstableError } from '../errors.ts';
import { paginated, pagination, projectOf, type OperationHandler } from '../handler.ts';
import { presentEvaluator } from '../present/evaluator.ts';

export const EVALUATOR_NOT_FOUND = 'Evaluator not found';
export const SOURCE_CODE_MAX_BYTES = 262144;

export const invalidBody = (issues: Issue[]) => unstableError(400, 'invalid_body', 'Invalid request body', { issues });
const present = (body: object, key: string) => Object.hasOwn(body, key) && (body as Record<string, unknown>)[key] !== undefined;
const mustBeAbsent = (key: string): Issue => ({ code: 'invalid_type', path: [key], message: 'Invalid input: expected undefined' });
const required = (key: string, type: string): Issue => ({
  code: 'invalid_type',
  path: [key],
  message: `Invalid input: expected ${type}, received undefined`,
});

export const evaluatorsList: OperationHandler<'evaluators_list'> = async (ctx) => {
  const { page, limit } = pagination(ctx.query);
  const { evaluators, total } = await listEvaluators(ctx.em, projectOf(ctx), page, limit);
  return { status: 200, body: paginated(evaluators.map(presentEvaluator), page, limit, total) };
};

export const evaluatorsGet: OperationHandler<'evaluators_get'> = async (ctx) => {
  const e = await getEvaluator(ctx.em, projectOf(ctx), ctx.params.evaluatorId!);
  if (!e) throw unstableError(404, 'resource_not_found', EVALUATOR_NOT_FOUND);
  return { status: 200, body: presentEvaluator(e) };
};

export const evaluatorsDelete: OperationHandler<'evaluators_delete'> = async (ctx) => {
  if (!(await deleteEvaluator(ctx.em, projectOf(ctx), ctx.params.evaluatorId!)))
    throw unstableError(404, 'resource_not_found', EVALUATOR_NOT_FOUND);
  ctx.services.evaluation?.rules.invalidate(projectOf(ctx));
  return { status: 200, body: { message: 'Evaluator successfully deleted' } };
};

export const evaluatorsCreate: OperationHandler<'evaluators_create'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const body = ctx.body ?? {};
  const type: 'llm_as_judge' | 'code' = body.type ?? 'llm_as_judge';
  const name: string = body.name;

  // 1. the schema's per-type rules
  const issues: Issue[] = [];
  if (type === 'code') {
    for (const k of ['prompt', 'outputDefinition', 'modelConfig', 'mapping']) if (present(body, k)) issues.push(mustBeAbsent(k));
    if (!present(body, 'sourceCode')) issues.push(required('sourceCode', 'string'));
    else if (Buffer.byteLength(body.sourceCode ?? '', 'utf8') > SOURCE_CODE_MAX_BYTES)
      issues.push({ code: 'custom', path: ['sourceCode'], message: 'Source code must be 262144 bytes or less' });
    if (!present(body, 'sourceCodeLanguage')) issues.push(required('sourceCodeLanguage', 'string'));
    if (issues.length) throw invalidBody(issues);
    // 3. no code-eval dispatcher in Tally
    throw unstableError(403, 'access_denied', 'Code evals are not enabled');
  }
  for (const k of ['sourceCode', 'sourceCodeLanguage']) if (present(body, k)) issues.push(mustBeAbsent(k));
  if (!present(body, 'prompt')) issues.push(required('prompt', 'string'));
  let outputDefinition = null;
  if (!present(body, 'outputDefinition')) issues.push(required('outputDefinition', 'object'));
  else {
    const parsed = parseOutputDefinition(body.outputDefinition);
    issues.push(...parsed.issues);
    outputDefinition = parsed.value ?? null;
  }
  if (issues.length) throw invalidBody(issues);
  // an llm_as_judge body without a prompt was refused above
  const prompt = body.prompt ?? '';
  const variables = promptVariables(prompt);
  const mapping: Mapping[] | null = body.mapping === undefined || body.mapping === null ? null : normaliseMapping(body.mapping);

  // 2. the supplied default mapping against the prompt, for target observation
  if (mapping) {
    const problem = checkMapping(mapping, variables, 'observation');
    if (problem) throw unstableError(400, problem.code, problem.message, problem.details);
  }
  // 4. storage-level checks
  if (mapping) {
    const problem = storageMappingProblem(mapping, variables);
    if (problem) throw unstableError(400, 'invalid_request', problem);
  }
  const storageIssues = storageOutputDefinitionIssues(outputDefinition!);
  if (storageIssues.length) throw unstableError(400, 'invalid_request', 'Invalid request data', { issues: storageIssues });

  // 5. the name: one evaluator of this type, or none
  const named = await evaluatorsNamed(ctx.em, projectId, name);
  if (named.length > 1)
    throw unstableError(409, 'name_conflict', `Multiple evaluators named "${name}" exist in this project`, { field: 'name' });
  const existing = named[0] ?? null;
  if (existing && existing.type !== type)
    throw unstableError(409, 'name_conflict', `An evaluator named "${name}" already exists with a different type`, { field: 'name' });

  // 6. a new version must still be fully mapped by every rule assignment
  if (existing) {
    for (const override of await assignmentOverrides(ctx.em, projectId, existing.id)) {
      const missing = missingVariables(override ?? mapping, variables);
      if (missing.length) throw unstableError(400, 'invalid_request', `Missing mappings for evaluator variables: ${missing.join(', ')}`);
    }
  }

  // 7. append
  const saved = await appendEvaluatorVersion(ctx.em, projectId, existing ? { id: existing.id, version: existing.version } : null, {
    name,
    type,
    prompt,
    outputDefinition,
    modelConfig: body.modelConfig ? { provider: body.modelConfig.provider, model: body.modelConfig.model } : null,
    mapping,
  });
  if (!saved) throw unstableError(409, 'conflict', 'Evaluator was updated concurrently. Retry the request.');
  // rules run the new version (and no longer see it paused) from ingestion's next batch
  ctx.services.evaluation?.rules.invalidate(projectId);
  return { status: 200, body: presentEvaluator(saved) };
};
