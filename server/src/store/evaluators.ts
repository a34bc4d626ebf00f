// Evaluators at rest: one row per evaluator (id stable across versions, blocked state) and one
// per version. Raw SQL through Kysely, the same on PostgreSQL and PGlite.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { newId } from '../db/ids.ts';
import { kysely, sql, toDate, type Numeric, type Timestamp } from './sql.ts';
import type { OutputDefinition } from '../domain/evaluation/output-definition.ts';
import type { Mapping } from '../domain/evaluation/mapping.ts';
import type { EvaluatorType } from '../../../generated/enums.ts';

export type { EvaluatorType };
export interface ModelConfig {
  provider: string;
  model: string;
}

export interface BlockedState {
  reason: string;
  message: string | null;
  at: Date;
}

export interface StoredEvaluator {
  id: string;
  projectId: string;
  name: string;
  type: EvaluatorType;
  version: number;
  versionId: string;
  prompt: string | null;
  outputDefinition: OutputDefinition | null;
  modelConfig: ModelConfig | null;
  /** the version's default mapping; null when it has none */
  mapping: Mapping[] | null;
  sourceCode: string | null;
  sourceCodeLanguage: string | null;
  blocked: BlockedState | null;
  /** rule assignments referencing this evaluator */
  evaluationRuleCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** a jsonb column holding a `T` Tally wrote: parsed by the driver, or its text */
export type Jsonb<T> = T | string;
export const json = <T>(v: Jsonb<T>): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

/** an evaluator's blocked state, as its columns */
export interface BlockedColumns {
  blocked_reason: string | null;
  blocked_message: string | null;
  blocked_at: Timestamp | null;
}

export function blockedOf(r: BlockedColumns): BlockedState | null {
  return r.blocked_reason ? { reason: r.blocked_reason, message: r.blocked_message ?? null, at: toDate(r.blocked_at) } : null;
}

/** a row of SELECT: the evaluator, its latest version and how many rule assignments use it */
interface EvaluatorRow extends BlockedColumns {
  id: string;
  project_id: string;
  name: string;
  type: EvaluatorType;
  latest_version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  version_id: string;
  prompt: string | null;
  output_definition: Jsonb<OutputDefinition> | null;
  model_config: Jsonb<ModelConfig> | null;
  mapping: Jsonb<Mapping[]> | null;
  source_code: string | null;
  source_code_language: string | null;
  rule_count: Numeric;
}

function fromRow(r: EvaluatorRow): StoredEvaluator {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    type: r.type,
    version: Number(r.latest_version),
    versionId: r.version_id,
    prompt: r.prompt ?? null,
    outputDefinition: json(r.output_definition) ?? null,
    modelConfig: json(r.model_config) ?? null,
    mapping: json(r.mapping) ?? null,
    sourceCode: r.source_code ?? null,
    sourceCodeLanguage: r.source_code_language ?? null,
    blocked: blockedOf(r),
    evaluationRuleCount: Number(r.rule_count ?? 0),
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
  };
}

const SELECT = sql`select e.id, e.project_id, e.name, e.type, e.latest_version, e.blocked_reason, e.blocked_message, e.blocked_at,
    e.created_at, e.updated_at, v.id as version_id, v.prompt, v.output_definition, v.model_config, v.mapping, v.source_code, v.source_code_language,
    (select count(*) from evaluation_rule_assignments a where a.evaluator_id = e.id) as rule_count
  from evaluators e join evaluator_versions v on v.evaluator_id = e.id and v.version = e.latest_version`;

/** One page of the project's evaluators (latest versions), by updatedAt desc then id desc. */
export async function listEvaluators(em: SqlEntityManager, projectId: string, page: number, limit: number) {
  const db = kysely(em);
  const { rows } =
    await sql<EvaluatorRow>`${SELECT} where e.project_id = ${projectId} order by e.updated_at desc, e.id desc limit ${limit} offset ${(page - 1) * limit}`.execute(
      db,
    );
  const { rows: count } = await sql<{ n: string }>`select count(*) as n from evaluators where project_id = ${projectId}`.execute(db);
  return { evaluators: rows.map(fromRow), total: Number(count[0]!.n) };
}

/** The evaluator with its latest version, or null when the id is not in the project. */
export async function getEvaluator(em: SqlEntityManager, projectId: string, id: string): Promise<StoredEvaluator | null> {
  const { rows } = await sql<EvaluatorRow>`${SELECT} where e.project_id = ${projectId} and e.id = ${id}`.execute(kysely(em));
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Every evaluator of the project with this exact name (more than one only in data from elsewhere). */
export async function evaluatorsNamed(em: SqlEntityManager, projectId: string, name: string): Promise<StoredEvaluator[]> {
  const { rows } =
    await sql<EvaluatorRow>`${SELECT} where e.project_id = ${projectId} and e.name = ${name} order by e.created_at, e.id`.execute(
      kysely(em),
    );
  return rows.map(fromRow);
}

export interface EvaluatorVersionWrite {
  name: string;
  type: EvaluatorType;
  prompt: string | null;
  outputDefinition: OutputDefinition | null;
  modelConfig: ModelConfig | null;
  mapping: Mapping[] | null;
  sourceCode?: string | null;
  sourceCodeLanguage?: string | null;
}

/**
 * Version 1 of a new evaluator (`existing` null), or version latest+1 of `existing` (which
 * clears a blocked state: the evaluator changed). Returns
 * null when `existing` moved on meanwhile (a concurrent append): the caller answers 409.
 */
export async function appendEvaluatorVersion(
  em: SqlEntityManager,
  projectId: string,
  existing: { id: string; version: number } | null,
  w: EvaluatorVersionWrite,
): Promise<StoredEvaluator | null> {
  return em.transactional(async (tx) => {
    const db = kysely(tx);
    let id: string;
    let version: number;
    if (existing) {
      const r = await sql`update evaluators set latest_version = latest_version + 1, updated_at = clock_timestamp(),
          blocked_reason = null, blocked_message = null, blocked_at = null
        where project_id = ${projectId} and id = ${existing.id} and latest_version = ${existing.version}`.execute(db);
      if (Number(r.numAffectedRows ?? 0) === 0) return null;
      id = existing.id;
      version = existing.version + 1;
    } else {
      id = newId();
      version = 1;
      await sql`insert into evaluators (project_id, id, name, type, latest_version, created_at, updated_at)
        values (${projectId}, ${id}, ${w.name}, ${w.type}, 1, clock_timestamp(), clock_timestamp())`.execute(db);
    }
    await sql`insert into evaluator_versions (evaluator_id, version, id, prompt, output_definition, model_config, mapping, source_code, source_code_language, created_at)
      values (${id}, ${version}, ${newId()}, ${w.prompt}, ${w.outputDefinition === null ? null : JSON.stringify(w.outputDefinition)}::jsonb,
        ${w.modelConfig === null ? null : JSON.stringify(w.modelConfig)}::jsonb, ${w.mapping === null ? null : JSON.stringify(w.mapping)}::jsonb,
        ${w.sourceCode ?? null}, ${w.sourceCodeLanguage ?? null}, clock_timestamp())`.execute(db);
    return getEvaluator(tx, projectId, id);
  });
}

/** The mapping overrides (null: inherits) of every rule assignment of this evaluator. */
export async function assignmentOverrides(em: SqlEntityManager, projectId: string, evaluatorId: string): Promise<(Mapping[] | null)[]> {
  const { rows } = await sql<{ mapping: Jsonb<Mapping[]> | null }>`select a.mapping from evaluation_rule_assignments a
    where a.project_id = ${projectId} and a.evaluator_id = ${evaluatorId} order by a.created_at, a.id`.execute(kysely(em));
  return rows.map((r) => json(r.mapping) ?? null);
}

/**
 * Deletes the evaluator, all its versions and every rule assignment of it; a rule left with no
 * assignment is set INACTIVE. Scores stay. False when the id is not in the project.
 */
export async function deleteEvaluator(em: SqlEntityManager, projectId: string, id: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const db = kysely(tx);
    const { rows } = await sql<{
      rule_id: string;
    }>`delete from evaluation_rule_assignments where project_id = ${projectId} and evaluator_id = ${id} returning rule_id`.execute(db);
    const r = await sql`delete from evaluators where project_id = ${projectId} and id = ${id}`.execute(db);
    if (Number(r.numAffectedRows ?? 0) === 0) return false;
    const ruleIds = [...new Set(rows.map((x) => x.rule_id))];
    if (ruleIds.length) {
      await sql`update evaluation_rules r set state = 'INACTIVE', updated_at = clock_timestamp()
        where r.project_id = ${projectId} and r.id in (select jsonb_array_elements_text(${JSON.stringify(ruleIds)}::jsonb))
          and not exists (select 1 from evaluation_rule_assignments a where a.rule_id = r.id)`.execute(db);
    }
    return true;
  });
}

/**
 * Marks the evaluator blocked (its model is unusable: `reason` is one of the spec's
 * pausedReason values, `message` the human explanation). Every rule using it then reads
 * `paused`, and enabledRulesFor still returns its assignments with `blocked` set so the
 * engine can skip them. False when the evaluator is not in the project.
 */
export async function blockEvaluator(
  em: SqlEntityManager,
  projectId: string,
  evaluatorId: string,
  reason: string,
  message: string | null,
): Promise<boolean> {
  const r = await sql`update evaluators set blocked_reason = ${reason}, blocked_message = ${message}, blocked_at = clock_timestamp()
    where project_id = ${projectId} and id = ${evaluatorId}`.execute(kysely(em));
  return Number(r.numAffectedRows ?? 0) > 0;
}

/**
 * Clears the evaluator's blocked state (its connection or configuration changed); rules using
 * it read `active` again when enabled. False when the evaluator is not in the project.
 */
export async function unblockEvaluator(em: SqlEntityManager, projectId: string, evaluatorId: string): Promise<boolean> {
  const r = await sql`update evaluators set blocked_reason = null, blocked_message = null, blocked_at = null
    where project_id = ${projectId} and id = ${evaluatorId}`.execute(kysely(em));
  return Number(r.numAffectedRows ?? 0) > 0;
}

/**
 * A connection was written: evaluators whose model goes through it and that were paused for a
 * reason the connection can fix (auth, billing, reachability, a missing connection, the model)
 * run again; if it still fails, the next job pauses them again. The number unblocked.
 */
export async function unblockEvaluatorsOfProvider(em: SqlEntityManager, projectId: string, provider: string): Promise<number> {
  const r = await sql`update evaluators e set blocked_reason = null, blocked_message = null, blocked_at = null
    where e.project_id = ${projectId} and e.blocked_reason is not null
      and exists (select 1 from evaluator_versions v where v.evaluator_id = e.id and v.version = e.latest_version and v.model_config ->> 'provider' = ${provider})`.execute(
    kysely(em),
  );
  return Number(r.numAffectedRows ?? 0);
}
