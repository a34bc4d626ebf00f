// Loads the shipped managed model list into the database at start. Idempotent: each
// row keeps a fingerprint of its definition, so a restart with the same list writes
// nothing, a changed entry is replaced with its tiers, and a dropped one is removed.
import { createHash } from 'node:crypto';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { ModelRow, PricingTierRow } from '../db/entities.ts';
import type { ModelDefinition } from '../domain/models/types.ts';
import { bumpModelRevision, MANAGED_SCOPE } from './models.ts';

const fingerprint = (d: ModelDefinition) => createHash('sha256').update(JSON.stringify(d)).digest('hex').slice(0, 32);

export interface SyncResult {
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

export async function syncManagedModels(em: SqlEntityManager, defs: ModelDefinition[]): Promise<SyncResult> {
  return em.transactional(async (tx) => {
    const existing = new Map(
      (await tx.find(ModelRow, { projectId: null }, { fields: ['id', 'contentHash'] })).map((r) => [r.id, r.contentHash]),
    );
    // forget the rows just read: a replaced model is deleted natively and created anew below, and
    // an entity of the same id still in the identity map would turn that insert into an update of nothing
    tx.clear();
    const wanted = new Set(defs.map((d) => d.id));
    const result: SyncResult = { inserted: 0, updated: 0, deleted: 0, unchanged: 0 };

    const stale = [...existing.keys()].filter((id) => !wanted.has(id));
    if (stale.length) result.deleted = await tx.nativeDelete(ModelRow, { id: { $in: stale }, projectId: null });

    const changed = defs.filter((d) => existing.get(d.id) !== fingerprint(d));
    result.unchanged = defs.length - changed.length;
    const toReplace = changed.filter((d) => existing.has(d.id)).map((d) => d.id);
    if (toReplace.length) await tx.nativeDelete(ModelRow, { id: { $in: toReplace } }); // tiers cascade
    result.updated = toReplace.length;
    result.inserted = changed.length - toReplace.length;

    const now = new Date();
    // the definitions are frozen, and the ORM rewrites json values in place as it stores them
    const thawed = <T>(v: T): T => (v === null || v === undefined ? v : structuredClone(v));
    for (const d of changed) {
      tx.create(ModelRow, {
        id: d.id,
        projectId: null,
        modelName: d.modelName,
        matchPattern: d.matchPattern,
        startDate: d.startDate,
        unit: d.unit,
        tokenizerId: d.tokenizerId,
        tokenizerConfig: thawed(d.tokenizerConfig) as Record<string, unknown> | null,
        contentHash: fingerprint(d),
        createdAt: now,
        updatedAt: now,
      });
    }
    await tx.flush(); // models before their tiers: the rows carry ids, not relations, so the ORM cannot order them
    for (const d of changed) {
      for (const t of d.pricingTiers) {
        tx.create(PricingTierRow, {
          id: t.id,
          modelId: d.id,
          name: t.name,
          isDefault: t.isDefault,
          priority: t.priority,
          conditions: thawed(t.conditions),
          prices: thawed(t.prices),
        });
      }
    }
    await tx.flush();
    if (result.inserted || result.updated || result.deleted) await bumpModelRevision(tx, MANAGED_SCOPE);
    return result;
  });
}
