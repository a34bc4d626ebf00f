// Model definitions at rest: project models (project_id set) and managed ones (null).
import type { SqlEntityManager } from '@mikro-orm/sql';
import { ModelRow, PricingTierRow } from '../db/entities.ts';
import { newId } from '../db/ids.ts';
import { kysely, sql, type Db } from './sql.ts';
import type { PricingTierCondition, PricingTierDef, StoredModel, TokenizerId, UsageUnit } from '../domain/models/types.ts';

export type { StoredModel };

type Row = {
  id: string;
  projectId?: string | null;
  modelName: string;
  matchPattern: string;
  startDate?: Date | null;
  unit?: string | null;
  tokenizerId?: string | null;
  tokenizerConfig?: Record<string, unknown> | null;
  createdAt: Date;
};

async function withTiers(em: SqlEntityManager, rows: Row[]): Promise<StoredModel[]> {
  if (!rows.length) return [];
  const tiers = await em.find(PricingTierRow, { modelId: { $in: rows.map((r) => r.id) } }, { orderBy: { priority: 'asc' } });
  const byModel = new Map<string, PricingTierDef[]>();
  for (const t of tiers) {
    const list = byModel.get(t.modelId) ?? [];
    list.push({
      id: t.id,
      name: t.name,
      isDefault: t.isDefault,
      priority: t.priority,
      conditions: t.conditions as PricingTierCondition[],
      prices: t.prices,
    });
    byModel.set(t.modelId, list);
  }
  return rows.map((r) => ({
    id: r.id,
    projectId: r.projectId ?? null,
    modelName: r.modelName,
    matchPattern: r.matchPattern,
    startDate: r.startDate ?? null,
    unit: (r.unit ?? null) as UsageUnit | null,
    tokenizerId: (r.tokenizerId ?? null) as TokenizerId | null,
    tokenizerConfig: r.tokenizerConfig ?? null,
    createdAt: r.createdAt,
    pricingTiers: byModel.get(r.id) ?? [],
  }));
}

const visibleTo = (projectId: string) => ({ $or: [{ projectId }, { projectId: null }] });

export async function listModels(em: SqlEntityManager, projectId: string, page: number, limit: number) {
  const [rows, total] = await em.findAndCount(ModelRow, visibleTo(projectId), {
    orderBy: [{ modelName: 'asc' }, { unit: 'asc' }, { startDate: 'desc nulls last' }, { id: 'asc' }],
    limit,
    offset: (page - 1) * limit,
  });
  return { models: await withTiers(em, rows), total };
}

export async function getVisibleModel(em: SqlEntityManager, projectId: string, id: string): Promise<StoredModel | null> {
  const row = await em.findOne(ModelRow, { id, ...visibleTo(projectId) });
  return row ? (await withTiers(em, [row]))[0]! : null;
}

/** All models a project can match against, project models first. */
export async function modelsForMatching(em: SqlEntityManager, projectId: string): Promise<StoredModel[]> {
  const rows = await em.find(ModelRow, visibleTo(projectId));
  return withTiers(em, rows);
}

export async function projectModelNameTaken(em: SqlEntityManager, projectId: string, modelName: string): Promise<boolean> {
  return (await em.count(ModelRow, { projectId, modelName })) > 0;
}

export interface NewModel {
  modelName: string;
  matchPattern: string;
  startDate: Date | null;
  unit: string | null;
  tokenizerId: string | null;
  tokenizerConfig: Record<string, unknown> | null;
  tiers: Omit<PricingTierDef, 'id'>[];
  /** flat-price models get the Langfuse id `<modelId>_tier_default` for their single tier */
  flatPrices: boolean;
}

/** scope of the managed list in model_revisions */
export const MANAGED_SCOPE = '*';

/** the channel a change of a scope's models is notified on (its payload: the scope), at the change's commit */
export const MODEL_REVISIONS_CHANNEL = 'tally_model_revisions';

/** Counts a change of a scope's models; call inside the transaction that makes the change. */
export async function bumpModelRevision(em: SqlEntityManager, scope: string): Promise<void> {
  await sql`with bumped as (insert into model_revisions (scope, revision) values (${scope}, 1)
      on conflict (scope) do update set revision = model_revisions.revision + 1 returning scope)
    select pg_notify(${MODEL_REVISIONS_CHANNEL}, scope) from bumped`.execute(kysely(em));
}

/** SQL for the revision of the models a project sees (its own and the managed ones), as text */
export const modelRevisionSql = (projectId: string) => sql<string>`(select
  coalesce(max(revision) filter (where scope = ${projectId}), 0) || ':' || coalesce(max(revision) filter (where scope = ${MANAGED_SCOPE}), 0)
  from model_revisions where scope in (${projectId}, ${MANAGED_SCOPE}))`;

export async function modelRevision(db: Db, projectId: string): Promise<string> {
  const { rows } = await sql<{ revision: string }>`select ${modelRevisionSql(projectId)} as revision`.execute(db);
  return rows[0]!.revision;
}

export async function insertModel(
  em: SqlEntityManager,
  projectId: string | null,
  m: NewModel,
  id = newId(),
  contentHash: string | null = null,
): Promise<string> {
  // one transaction: a model is never visible without its tiers or before its revision
  await em.transactional(async (tx) => {
    const now = new Date();
    tx.create(ModelRow, {
      id,
      projectId,
      modelName: m.modelName,
      matchPattern: m.matchPattern,
      startDate: m.startDate,
      unit: m.unit,
      tokenizerId: m.tokenizerId,
      tokenizerConfig: m.tokenizerConfig,
      contentHash,
      createdAt: now,
      updatedAt: now,
    });
    await tx.flush();
    for (const t of m.tiers) {
      const tierId = m.flatPrices && t.isDefault ? `${id}_tier_default` : newId();
      tx.create(PricingTierRow, {
        id: tierId,
        modelId: id,
        name: t.name,
        isDefault: t.isDefault,
        priority: t.priority,
        conditions: t.conditions,
        prices: t.prices,
      });
    }
    await tx.flush();
    await bumpModelRevision(tx, projectId ?? MANAGED_SCOPE);
  });
  return id;
}

export async function deleteProjectModel(em: SqlEntityManager, projectId: string, id: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const n = await tx.nativeDelete(ModelRow, { id, projectId });
    if (n > 0) await bumpModelRevision(tx, projectId);
    return n > 0;
  });
}
