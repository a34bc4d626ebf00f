// Evaluation rules at rest: the rule (filters, sampling, state) and its evaluator assignments,
// each with an optional mapping override. Raw SQL through Kysely, on PostgreSQL and PGlite.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { newId } from '../db/ids.ts';
import { kysely, sql, toDate, type Numeric, type Timestamp } from './sql.ts';
import { blockedOf, json, type BlockedColumns, type BlockedState, type EvaluatorType, type Jsonb, type ModelConfig } from './evaluators.ts';
import type { Mapping } from '../domain/evaluation/mapping.ts';
import type { OutputDefinition } from '../domain/evaluation/output-definition.ts';
import type { RuleFilter } from '../domain/evaluation/rule-filters.ts';

export type RuleState = 'ACTIVE' | 'INACTIVE';

export interface StoredAssignment {
  id: string;
  evaluatorId: string;
  evaluatorName: string;
  evaluatorType: EvaluatorType;
  /** the assignment's own mapping; null: inherits the evaluator's default */
  mapping: Mapping[] | null;
  /** the evaluator's latest version's default mapping */
  defaultMapping: Mapping[] | null;
  blocked: BlockedState | null;
  createdAt: Date;
}

export interface StoredRule {
  id: string;
  projectId: string;
  name: string;
  target: string;
  filters: RuleFilter[];
  sampling: number;
  state: RuleState;
  delayMs: number;
  assignments: StoredAssignment[];
  createdAt: Date;
  updatedAt: Date;
}

export const ACTIVE_RULE_LIMIT = 500;

/** a row of `evaluation_rules` */
interface RuleRow {
  id: string;
  project_id: string;
  name: string;
  target: string;
  filters: Jsonb<RuleFilter[]>;
  sampling: Numeric;
  state: RuleState;
  delay_ms: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** an assignment with its evaluator's name, type and blocked state and its latest version's mapping */
interface AssignmentRow extends BlockedColumns {
  id: string;
  rule_id: string;
  evaluator_id: string;
  mapping: Jsonb<Mapping[]> | null;
  created_at: Timestamp;
  name: string;
  type: EvaluatorType;
  default_mapping: Jsonb<Mapping[]> | null;
}

/** an ACTIVE rule's assignment with its evaluator and the evaluator's latest version */
interface EnabledRow extends BlockedColumns {
  rule_id: string;
  rule_name: string;
  filters: Jsonb<RuleFilter[]>;
  sampling: Numeric;
  rule_created_at: Timestamp;
  assignment_id: string;
  override: Jsonb<Mapping[]> | null;
  evaluator_id: string;
  name: string;
  type: EvaluatorType;
  latest_version: number;
  version_id: string;
  prompt: string | null;
  output_definition: Jsonb<OutputDefinition> | null;
  model_config: Jsonb<ModelConfig> | null;
  default_mapping: Jsonb<Mapping[]> | null;
}

function ruleFromRow(r: RuleRow, assignments: StoredAssignment[]): StoredRule {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    target: r.target,
    filters: json(r.filters) ?? [],
    sampling: Number(r.sampling),
    state: r.state,
    delayMs: Number(r.delay_ms),
    assignments,
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
  };
}

async function assignmentsOf(em: SqlEntityManager, ruleIds: string[]): Promise<Map<string, StoredAssignment[]>> {
  const out = new Map<string, StoredAssignment[]>(ruleIds.map((id) => [id, []]));
  if (!ruleIds.length) return out;
  const { rows } =
    await sql<AssignmentRow>`select a.id, a.rule_id, a.evaluator_id, a.mapping, a.created_at, e.name, e.type, e.blocked_reason, e.blocked_message, e.blocked_at,
      v.mapping as default_mapping
    from evaluation_rule_assignments a join evaluators e on e.id = a.evaluator_id
      left join evaluator_versions v on v.evaluator_id = e.id and v.version = e.latest_version
    where a.rule_id in (select jsonb_array_elements_text(${JSON.stringify(ruleIds)}::jsonb))
    order by a.created_at, a.id`.execute(kysely(em));
  for (const r of rows) {
    out.get(r.rule_id)?.push({
      id: r.id,
      evaluatorId: r.evaluator_id,
      evaluatorName: r.name,
      evaluatorType: r.type,
      mapping: json(r.mapping) ?? null,
      defaultMapping: json(r.default_mapping) ?? null,
      blocked: blockedOf(r),
      createdAt: toDate(r.created_at),
    });
  }
  return out;
}

async function withAssignments(em: SqlEntityManager, rows: RuleRow[]): Promise<StoredRule[]> {
  const byRule = await assignmentsOf(
    em,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ruleFromRow(r, byRule.get(r.id) ?? []));
}

/** One page of the project's rules, by createdAt desc then id desc. */
export async function listRules(em: SqlEntityManager, projectId: string, page: number, limit: number) {
  const db = kysely(em);
  const { rows } = await sql<RuleRow>`select * from evaluation_rules where project_id = ${projectId}
    order by created_at desc, id desc limit ${limit} offset ${(page - 1) * limit}`.execute(db);
  const { rows: count } = await sql<{ n: string }>`select count(*) as n from evaluation_rules where project_id = ${projectId}`.execute(db);
  return { rules: await withAssignments(em, rows), total: Number(count[0]!.n) };
}

/** The rule with its assignments, or null when the id is not in the project. */
export async function getRule(em: SqlEntityManager, projectId: string, id: string): Promise<StoredRule | null> {
  const { rows } = await sql<RuleRow>`select * from evaluation_rules where project_id = ${projectId} and id = ${id}`.execute(kysely(em));
  return rows[0] ? (await withAssignments(em, rows))[0]! : null;
}

/** The id of an observation or experiment rule with exactly this name, or null. */
export async function ruleIdNamed(em: SqlEntityManager, projectId: string, name: string): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`select id from evaluation_rules where project_id = ${projectId} and name = ${name}
    and target in ('observation', 'experiment') order by created_at, id limit 1`.execute(kysely(em));
  return rows[0]?.id ?? null;
}

/** ACTIVE observation and experiment rules of the project, except `exceptId`. */
export async function countActiveRules(em: SqlEntityManager, projectId: string, exceptId: string | null = null): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from evaluation_rules where project_id = ${projectId} and state = 'ACTIVE'
    and target in ('observation', 'experiment') and id <> ${exceptId ?? ''}`.execute(kysely(em));
  return Number(rows[0]!.n);
}

export interface RuleWrite {
  name: string;
  target: string;
  filters: RuleFilter[];
  sampling: number;
  state: RuleState;
  /** the whole assignment set, in order; an assignment whose evaluator already has one keeps its id */
  assignments: { evaluatorId: string; mapping: Mapping[] | null }[];
}

class ActiveLimitReached extends Error {}
export const isActiveLimit = (e: unknown) => e instanceof ActiveLimitReached;

/**
 * Creates (`id` null) or replaces a rule and its assignment set. A rule with no assignments is
 * stored INACTIVE. The active-rule limit is re-checked inside the transaction: over it, this
 * throws an error `isActiveLimit` recognises. Null when `id` is not in the project.
 */
export async function saveRule(em: SqlEntityManager, projectId: string, id: string | null, w: RuleWrite): Promise<StoredRule | null> {
  return em.transactional(async (tx) => {
    const db = kysely(tx);
    const state: RuleState = w.assignments.length ? w.state : 'INACTIVE';
    const ruleId = id ?? newId();
    if (id === null) {
      await sql`insert into evaluation_rules (project_id, id, name, target, filters, sampling, state, delay_ms, created_at, updated_at)
        values (${projectId}, ${ruleId}, ${w.name}, ${w.target}, ${JSON.stringify(w.filters)}::jsonb, ${w.sampling}, ${state}, 0, clock_timestamp(), clock_timestamp())`.execute(
        db,
      );
    } else {
      const r = await sql`update evaluation_rules set name = ${w.name}, target = ${w.target}, filters = ${JSON.stringify(w.filters)}::jsonb,
        sampling = ${w.sampling}, state = ${state}, updated_at = clock_timestamp() where project_id = ${projectId} and id = ${id}`.execute(
        db,
      );
      if (Number(r.numAffectedRows ?? 0) === 0) return null;
    }
    if (state === 'ACTIVE' && (await countActiveRules(tx, projectId)) > ACTIVE_RULE_LIMIT) throw new ActiveLimitReached();
    const keep = w.assignments.map((a) => a.evaluatorId);
    await sql`delete from evaluation_rule_assignments where rule_id = ${ruleId}
      and evaluator_id not in (select jsonb_array_elements_text(${JSON.stringify(keep)}::jsonb))`.execute(db);
    for (const a of w.assignments) {
      const mapping = a.mapping === null ? null : JSON.stringify(a.mapping);
      const u =
        await sql`update evaluation_rule_assignments set mapping = ${mapping}::jsonb where rule_id = ${ruleId} and evaluator_id = ${a.evaluatorId}`.execute(
          db,
        );
      if (Number(u.numAffectedRows ?? 0) === 0) {
        await sql`insert into evaluation_rule_assignments (project_id, id, rule_id, evaluator_id, mapping, created_at)
          values (${projectId}, ${newId()}, ${ruleId}, ${a.evaluatorId}, ${mapping}::jsonb, clock_timestamp())`.execute(db);
      }
    }
    return getRule(tx, projectId, ruleId);
  });
}

/** Deletes the rule and its assignments (evaluators and scores stay). False when not in the project. */
export async function deleteRule(em: SqlEntityManager, projectId: string, id: string): Promise<boolean> {
  const r = await sql`delete from evaluation_rules where project_id = ${projectId} and id = ${id}`.execute(kysely(em));
  return Number(r.numAffectedRows ?? 0) > 0;
}

export interface EnabledAssignment {
  assignmentId: string;
  evaluatorId: string;
  evaluatorName: string;
  evaluatorType: EvaluatorType;
  evaluatorVersion: number;
  evaluatorVersionId: string;
  prompt: string | null;
  outputDefinition: OutputDefinition | null;
  /** null: the project's default evaluation model */
  modelConfig: ModelConfig | null;
  /** the override, else the version's default, else [] */
  mapping: Mapping[];
  /** set when the evaluator is blocked: the engine schedules nothing for it */
  blocked: BlockedState | null;
}

export interface EnabledRule {
  id: string;
  name: string;
  filters: RuleFilter[];
  sampling: number;
  assignments: EnabledAssignment[];
}

/**
 * Every ACTIVE observation-target rule of the project with its filters, sampling and
 * assignments; each assignment carries the evaluator's latest version (prompt, output
 * definition, model config), its effective mapping and its blocked state. Rules whose
 * assignments are all blocked are still returned (the caller skips blocked assignments).
 */
export async function enabledRulesFor(em: SqlEntityManager, projectId: string): Promise<EnabledRule[]> {
  const { rows } =
    await sql<EnabledRow>`select r.id as rule_id, r.name as rule_name, r.filters, r.sampling, r.created_at as rule_created_at,
      a.id as assignment_id, a.mapping as override, e.id as evaluator_id, e.name, e.type, e.latest_version, e.blocked_reason, e.blocked_message, e.blocked_at,
      v.id as version_id, v.prompt, v.output_definition, v.model_config, v.mapping as default_mapping
    from evaluation_rules r
      join evaluation_rule_assignments a on a.rule_id = r.id
      join evaluators e on e.id = a.evaluator_id
      join evaluator_versions v on v.evaluator_id = e.id and v.version = e.latest_version
    where r.project_id = ${projectId} and r.state = 'ACTIVE' and r.target = 'observation'
    order by r.created_at, r.id, a.created_at, a.id`.execute(kysely(em));
  const rules = new Map<string, EnabledRule>();
  for (const r of rows) {
    let rule = rules.get(r.rule_id);
    if (!rule) {
      rule = { id: r.rule_id, name: r.rule_name, filters: json(r.filters) ?? [], sampling: Number(r.sampling), assignments: [] };
      rules.set(r.rule_id, rule);
    }
    rule.assignments.push({
      assignmentId: r.assignment_id,
      evaluatorId: r.evaluator_id,
      evaluatorName: r.name,
      evaluatorType: r.type,
      evaluatorVersion: Number(r.latest_version),
      evaluatorVersionId: r.version_id,
      prompt: r.prompt ?? null,
      outputDefinition: json(r.output_definition) ?? null,
      modelConfig: json(r.model_config) ?? null,
      mapping: json(r.override) ?? json(r.default_mapping) ?? [],
      blocked: blockedOf(r),
    });
  }
  return [...rules.values()];
}
