// Per-project model matchers, built once and reused by every event until the project's
// models change. Create/delete invalidate at once; the TTL only bounds staleness when
// another server instance changed the models.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { createModelMatcher, type ModelMatcher } from '../domain/models/matcher.ts';
import { modelsForMatching } from '../store/models.ts';

const TTL_MS = 60_000;

export interface ModelCatalog {
  matcherFor(em: SqlEntityManager, projectId: string): Promise<ModelMatcher>;
  invalidate(projectId?: string): void;
}

export function createModelCatalog(): ModelCatalog {
  const cache = new Map<string, { matcher: Promise<ModelMatcher>; until: number }>();
  return {
    matcherFor(em, projectId) {
      const hit = cache.get(projectId);
      if (hit && hit.until > Date.now()) return hit.matcher;
      const matcher = modelsForMatching(em, projectId).then((models) => createModelMatcher(models, projectId));
      cache.set(projectId, { matcher, until: Date.now() + TTL_MS });
      matcher.catch(() => cache.delete(projectId));
      return matcher;
    },
    invalidate(projectId) {
      if (projectId) cache.delete(projectId);
      else cache.clear();
    },
  };
}
