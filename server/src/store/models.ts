// Model definitions at rest: project models (project_id set) and managed ones (null).
import type { SqlEntityManager } from '@mikro-orm/sql';
import { ModelRow, PricingTierRow } from '../db/entities.ts';
import { newId } from '../db/ids.ts';
import type { PricingTierCondition, PricingTierDef, StoredModel, TokenizerId, UsageUnit } from '../domain/models/types.ts';

export type { StoredModel };

type Row = { id: string; projectId?: string | null; modelName: string; matchPattern: string; startDate?: Date | null; unit?: string | null; tokenizerId?: string | null; tokenizerConfig?: Record<string, unknown> | null; createdAt: Date };

async function withTiers(em: SqlEntityManager, rows: Row[]): Promise<StoredModel[]> {
  if (!rows.length) return [];
  const tiers = await em.find(PricingTierRow, { modelId: { $in: rows.map((r) => r.id) } }, { orderBy: { priority: 'asc' } });
  const byModel = new Map<string, PricingTierDef[]>();
  for (const t of tiers) {
    const list = byModel.get(t.modelId) ?? [];
    list.push({ id: t.id, name: t.name, isDefault: t.isDefault, priority: t.priority, conditions: t.conditions as PricingTierCondition[], prices: t.prices });
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

export async function insertModel(em: SqlEntityManager, projectId: string | null, m: NewModel, id = newId(), contentHash: string | null = null): Promise<string> {
  const now = new Date();
  em.create(ModelRow, {
    id, projectId, modelName: m.modelName, matchPattern: m.matchPattern, startDate: m.startDate, unit: m.unit,
    tokenizerId: m.tokenizerId, tokenizerConfig: m.tokenizerConfig, contentHash, createdAt: now, updatedAt: now,
  });
  await em.flush();
  for (const t of m.tiers) {
    const tierId = m.flatPrices && t.isDefault ? `${id}_tier_default` : newId();
    em.create(PricingTierRow, { id: tierId, modelId: id, name: t.name, isDefault: t.isDefault, priority: t.priority, conditions: t.conditions, prices: t.prices });
  }
  await em.flush();
  return id;
}

export async function deleteProjectModel(em: SqlEntityManager, projectId: string, id: string): Promise<boolean> {
  const n = await em.nativeDelete(ModelRow, { id, projectId });
  return n > 0;
}
