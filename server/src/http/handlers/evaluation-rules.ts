// /api/public/unstable/evaluation-rules for target `observation`: list,
// POST, GET, PATCH, DELETE. Target `experiment` is refused with a clear 400.
import {
  checkMapping,
  normaliseMapping,
  OBSERVATION_SOURCES,
  storageMappingProblem,
  type Mapping,
} from '../../domain/evaluation/mapping.ts';
import type { Issue } from '../../domain/evaluation/output-definition.ts';
import { promptVariables } from '../../domain/evaluation/prompt.ts';
import { cleanFilters, filterTypeIssues, filterValueProblem, type RuleFilter } from '../../domain/evaluation/rule-filters.ts';
import {
  ACTIVE_RULE_LIMIT,
  countActiveRules,
  deleteRule,
  getRule,
  isActiveLimit,
  listRules,
  ruleIdNamed,
  saveRule,
  type StoredRule,
} from '../../store/evaluation-rules.ts';
import { evaluatorsNamed, type StoredEvaluator } from '../../store/evaluators.ts';
import { unstableError } from '../errors.ts';
import { paginated, pagination, projectOf, type OperationHandler, type RequestScope } from '../handler.ts';
import { presentRule, ruleStatus } from '../present/evaluation-rule.ts';
import { invalidBody } from './evaluators.ts';

export const RULE_NOT_FOUND = 'Evaluation rule not found within authorized project';
export const EXPERIMENT_NOT_SUPPORTED =
  'Evaluation rules with target "experiment" are not supported by this server; only target "observation" is.';
const CODE_MAPPING = 'Code evaluator mappings are managed by Langfuse and cannot be provided in the request body.';
const MAPPING_WITH_EVALUATORS =
  '`mapping` is the deprecated single-evaluator alias and cannot be combined with `evaluators`. Set the mapping on the matching entry in `evaluators` instead.';
const EVALUATORS_WITH_ALIASES =
  '`evaluators` replaces the whole assignment set and cannot be combined with the deprecated `evaluator` or `mapping` fields.';
const EMPTY_PATCH = 'Request body cannot be empty. At least one field must be provided for update.';
const NO_ASSIGNMENT_TO_MAP =
  'This evaluation rule has no evaluator assignments, so there is no mapping to update. Provide `evaluators` to attach one.';
const PATCH_KEYS = ['name', 'enabled', 'sampling', 'evaluator', 'evaluators', 'target', 'filter', 'mapping'] as const;

type Ref = { name: string; type?: 'llm_as_judge' | 'code' };
interface Requested {
  ref: Ref;
  mapping: Mapping[] | null;
}
interface Resolved {
  evaluator: StoredEvaluator;
  mapping: Mapping[] | null;
}

const has = <T extends object, K extends keyof T>(body: T, key: K): body is T & { [P in K]-?: Exclude<T[P], undefined> } =>
  body[key] !== undefined;
const notFound = () => unstableError(404, 'resource_not_found', RULE_NOT_FOUND);

/** the body-schema checks of a target's filters and mapping sources (observation only here) */
function bodyShapeIssues(filters: RuleFilter[] | undefined, mappings: { at: (string | number)[]; mapping: Mapping[] | null }[]): Issue[] {
  const issues = filters ? filterTypeIssues(filters, 'observation') : [];
  for (const { at, mapping } of mappings) {
    (mapping ?? []).forEach((m, i) => {
      if (m.source === null || !OBSERVATION_SOURCES.includes(m.source)) {
        issues.push({
          code: 'invalid_value',
          path: [...at, i, 'source'],
          message: `Invalid option: expected one of ${OBSERVATION_SOURCES.map((s) => JSON.stringify(s)).join('|')}`,
        });
      }
    });
  }
  return issues;
}

async function resolve(ctx: RequestScope, projectId: string, requested: Requested[]): Promise<Resolved[]> {
  const out: Resolved[] = [];
  for (const r of requested) {
    const type = r.ref.type ?? 'llm_as_judge';
    const found = (await evaluatorsNamed(ctx.em, projectId, r.ref.name)).find((e) => e.type === type);
    if (!found) throw unstableError(404, 'resource_not_found', 'Latest evaluator version not found within authorized project');
    out.push({ evaluator: found, mapping: r.mapping });
  }
  if (new Set(out.map((r) => r.evaluator.id)).size !== out.length)
    throw unstableError(409, 'conflict', 'An evaluator can only be attached once to an evaluation rule.');
  return out;
}

/** the rule's checks, in Langfuse's order: filter values for the target, then each LLM assignment's mapping */
function checkRule(filters: RuleFilter[], assignments: Resolved[], enabled: boolean) {
  const filterProblem = filterValueProblem(filters, 'observation');
  if (filterProblem) throw unstableError(400, 'invalid_filter_value', filterProblem.message, filterProblem.details);
  for (const a of assignments) {
    if (a.evaluator.type !== 'llm_as_judge') continue;
    const variables = promptVariables(a.evaluator.prompt ?? '');
    const mapping = a.mapping ?? a.evaluator.mapping ?? [];
    const problem = checkMapping(mapping, variables, 'observation');
    if (problem) throw unstableError(400, problem.code, problem.message, problem.details);
  }
  // the preflight: Tally runs no code evaluators
  if (enabled && assignments.some((a) => a.evaluator.type === 'code'))
    throw unstableError(403, 'access_denied', 'Code evals are not enabled');
  for (const a of assignments) {
    if (a.evaluator.type !== 'llm_as_judge' || a.mapping === null) continue;
    const problem = storageMappingProblem(a.mapping, promptVariables(a.evaluator.prompt ?? ''));
    if (problem) throw unstableError(400, 'invalid_request', problem);
  }
}

const activeLimit = () =>
  unstableError(
    409,
    'conflict',
    `This project already has the maximum number of active evaluation rules (${ACTIVE_RULE_LIMIT}). Disable an existing active evaluation rule before enabling another one.`,
    { limit: ACTIVE_RULE_LIMIT },
  );

async function save(
  ctx: RequestScope,
  projectId: string,
  id: string | null,
  rule: { name: string; filters: RuleFilter[]; sampling: number; enabled: boolean; assignments: Resolved[] },
) {
  try {
    const saved = await saveRule(ctx.em, projectId, id, {
      name: rule.name,
      target: 'observation',
      filters: rule.filters,
      sampling: rule.sampling,
      state: rule.enabled ? 'ACTIVE' : 'INACTIVE',
      assignments: rule.assignments.map((a) => ({ evaluatorId: a.evaluator.id, mapping: a.mapping })),
    });
    // this process's ingestion matches the new rule from its next batch (others within the cache's TTL)
    ctx.services.evaluation?.rules.invalidate(projectId);
    return saved;
  } catch (e) {
    if (isActiveLimit(e)) throw activeLimit();
    throw e;
  }
}

export const evaluationRulesList: OperationHandler<'evaluationRules_list'> = async (ctx) => {
  const { page, limit } = pagination(ctx.query);
  const { rules, total } = await listRules(ctx.em, projectOf(ctx), page, limit);
  return { status: 200, body: paginated(rules.map(presentRule), page, limit, total) };
};

export const evaluationRulesGet: OperationHandler<'evaluationRules_get'> = async (ctx) => {
  const rule = await getRule(ctx.em, projectOf(ctx), ctx.params.evaluationRuleId!);
  if (!rule) throw notFound();
  return { status: 200, body: presentRule(rule) };
};

export const evaluationRulesDelete: OperationHandler<'evaluationRules_delete'> = async (ctx) => {
  if (!(await deleteRule(ctx.em, projectOf(ctx), ctx.params.evaluationRuleId!))) throw notFound();
  ctx.services.evaluation?.rules.invalidate(projectOf(ctx));
  return { status: 200, body: { message: 'Evaluation rule successfully deleted' } };
};

const mappingOf = (m: unknown): Mapping[] | null => (Array.isArray(m) ? normaliseMapping(m) : null);

export const evaluationRulesCreate: OperationHandler<'evaluationRules_create'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const body = ctx.body ?? {};
  // the schema's refinements
  const issues: Issue[] = [];
  if (has(body, 'evaluator') === has(body, 'evaluators'))
    issues.push({ code: 'custom', path: ['evaluators'], message: 'Provide exactly one of evaluator or evaluators.' });
  if (has(body, 'evaluators') && has(body, 'mapping')) issues.push({ code: 'custom', path: ['mapping'], message: MAPPING_WITH_EVALUATORS });
  const requested: Requested[] = has(body, 'evaluators')
    ? body.evaluators.map((e) => ({ ref: e.evaluator, mapping: mappingOf(e.mapping) }))
    : has(body, 'evaluator')
      ? [{ ref: body.evaluator, mapping: mappingOf(body.mapping) }]
      : [];
  if (requested.some((r) => r.ref.type === 'code' && r.mapping !== null))
    issues.push({ code: 'custom', path: ['mapping'], message: CODE_MAPPING });
  if (issues.length) throw invalidBody(issues);
  if (body.target === 'experiment')
    throw unstableError(400, 'invalid_request', EXPERIMENT_NOT_SUPPORTED, { field: 'target', value: 'experiment' });
  const filters: RuleFilter[] = cleanFilters(body.filter ?? []);
  const shape = bodyShapeIssues(
    filters,
    has(body, 'evaluators')
      ? requested.map((r, i) => ({ at: ['evaluators', i, 'mapping'], mapping: r.mapping }))
      : [{ at: ['mapping'], mapping: requested[0]?.mapping ?? null }],
  );
  if (shape.length) throw invalidBody(shape);

  // 1. the name
  const existing = await ruleIdNamed(ctx.em, projectId, body.name);
  if (existing) {
    throw unstableError(
      409,
      'name_conflict',
      `An evaluation rule named "${body.name}" already exists in this project. Use PATCH /api/public/unstable/evaluation-rules/${existing} to update it instead of creating a duplicate.`,
      { field: 'name' },
    );
  }
  // 2. the active-rule limit
  if (body.enabled && (await countActiveRules(ctx.em, projectId)) >= ACTIVE_RULE_LIMIT) throw activeLimit();
  // 4–5. the evaluators
  const assignments = await resolve(ctx, projectId, requested);
  checkRule(filters, assignments, body.enabled);
  const rule = await save(ctx, projectId, null, {
    name: body.name,
    filters,
    sampling: body.sampling ?? 1,
    enabled: body.enabled,
    assignments,
  });
  return { status: 200, body: presentRule(rule!) };
};

export const evaluationRulesUpdate: OperationHandler<'evaluationRules_update'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const body = ctx.body ?? {};
  if (!PATCH_KEYS.some((k) => has(body, k))) throw invalidBody([{ code: 'custom', path: [], message: EMPTY_PATCH }]);
  const issues: Issue[] = [];
  if (has(body, 'evaluators') && (has(body, 'evaluator') || has(body, 'mapping')))
    issues.push({ code: 'custom', path: ['evaluators'], message: EVALUATORS_WITH_ALIASES });
  for (const k of ['filter', 'mapping'] as const) {
    if (has(body, k) && !has(body, 'target'))
      issues.push({ code: 'custom', path: [k], message: `\`${k}\` can only be updated together with \`target\`.` });
  }
  if (issues.length) throw invalidBody(issues);

  const current: StoredRule | null = await getRule(ctx.em, projectId, ctx.params.evaluationRuleId!);
  if (!current || !['observation', 'experiment'].includes(current.target)) throw notFound();
  if (body.target === 'experiment')
    throw unstableError(400, 'invalid_request', EXPERIMENT_NOT_SUPPORTED, { field: 'target', value: 'experiment' });

  const filters: RuleFilter[] = body.filter ? cleanFilters(body.filter) : current.filters;
  const bodyMapping = mappingOf(body.mapping);
  const entries: Requested[] | null = has(body, 'evaluators')
    ? body.evaluators.map((e) => ({ ref: { name: e.evaluator.name, type: e.evaluator.type }, mapping: mappingOf(e.mapping) }))
    : null;
  const shape = bodyShapeIssues(
    has(body, 'filter') ? filters : undefined,
    entries
      ? entries.map((r, i) => ({ at: ['evaluators', i, 'mapping'], mapping: r.mapping }))
      : [{ at: ['mapping'], mapping: bodyMapping }],
  );
  if (entries?.some((r) => r.ref.type === 'code' && r.mapping !== null))
    shape.push({ code: 'custom', path: ['mapping'], message: CODE_MAPPING });
  if (shape.length) throw invalidBody(shape);

  let requested: Requested[];
  if (entries) requested = entries;
  else {
    requested = current.assignments.map((a) => ({ ref: { name: a.evaluatorName, type: a.evaluatorType }, mapping: a.mapping }));
    const first = current.assignments[0];
    if (has(body, 'mapping') && !first && !has(body, 'evaluator'))
      throw unstableError(400, 'invalid_body', NO_ASSIGNMENT_TO_MAP, { field: 'mapping' });
    if (has(body, 'evaluator')) {
      // a PATCH reference is `{name}`: the rule keeps its current evaluator type
      const ref: Ref = { name: body.evaluator.name, type: first?.evaluatorType ?? 'llm_as_judge' };
      requested[0] = { ref, mapping: has(body, 'mapping') ? bodyMapping : (first?.mapping ?? null) };
    } else if (has(body, 'mapping')) requested[0] = { ...requested[0]!, mapping: bodyMapping };
    if (has(body, 'mapping') && requested[0]!.ref.type === 'code')
      throw unstableError(400, 'invalid_body', CODE_MAPPING, { field: 'mapping' });
  }
  const enabled: boolean = (body.enabled ?? current.state === 'ACTIVE') && requested.length > 0;
  if (enabled && ruleStatus(current).status !== 'active' && (await countActiveRules(ctx.em, projectId, current.id)) >= ACTIVE_RULE_LIMIT)
    throw activeLimit();
  const assignments = await resolve(ctx, projectId, requested);
  checkRule(filters, assignments, enabled);
  const rule = await save(ctx, projectId, current.id, {
    name: body.name ?? current.name,
    filters,
    sampling: body.sampling ?? current.sampling,
    enabled,
    assignments,
  });
  if (!rule) throw notFound();
  return { status: 200, body: presentRule(rule) };
};
