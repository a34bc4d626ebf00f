// The enabled rules of each project, as ingestion reads them on every batch: held for a short
// time so a project without rules costs ingestion one map lookup, not a four-table join per
// batch. Writes through this process's API invalidate at once; another instance's writes are
// seen within TTL_MS.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { enabledRulesFor, type EnabledRule } from '../store/evaluation-rules.ts';

const TTL_MS = 2_000;

export class EvaluationRulesCache {
  private readonly entries = new Map<string, { rules: EnabledRule[]; at: number }>();

  async get(em: SqlEntityManager, projectId: string): Promise<EnabledRule[]> {
    const hit = this.entries.get(projectId);
    if (hit && performance.now() - hit.at < TTL_MS) return hit.rules;
    const rules = await enabledRulesFor(em, projectId);
    this.entries.set(projectId, { rules, at: performance.now() });
    return rules;
  }

  invalidate(projectId?: string): void {
    if (projectId === undefined) this.entries.clear();
    else this.entries.delete(projectId);
  }
}
