// Per-project model matchers, built once and reused by every event until the project's
// models change. Every model change bumps a revision in the database (store/models.ts) and
// callers pass the revision they just read, so a change made through any server instance
// sharing the database is seen by the next batch of every instance.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { createModelMatcher, type ModelMatcher } from '../domain/models/matcher.ts';
import type { StoredModel } from '../domain/models/types.ts';
import { modelsForMatching } from '../store/models.ts';

export interface ModelCatalog {
  /** the matcher of the project's models at `revision` (read in the caller's statement) */
  matcherFor(em: SqlEntityManager, projectId: string, revision: string): Promise<ModelMatcher>;
}

type Load = (em: SqlEntityManager, projectId: string) => Promise<StoredModel[]>;

export function createModelCatalog(load: Load = modelsForMatching): ModelCatalog {
  const cache = new Map<string, { matcher: Promise<ModelMatcher>; revision: string }>();
  return {
    matcherFor(em, projectId, revision) {
      const hit = cache.get(projectId);
      if (hit && hit.revision === revision) return hit.matcher;
      // models read after the revision was: at least as new, so never cached under an older one
      const matcher = load(em, projectId).then((models) => createModelMatcher(models, projectId));
      const entry = { matcher, revision };
      cache.set(projectId, entry);
      matcher.catch(() => {
        if (cache.get(projectId) === entry) cache.delete(projectId);
      });
      return matcher;
    },
  };
}
