// Model lookup by name, in Langfuse's order: the models whose match_pattern finds the name,
// project models before managed ones, then newest start_date (NULLs last). Given the time of the
// generation, a definition whose start_date is after it is not yet in force and is passed over:
// the price in force when the call was made wins (a price history). Instead of testing
// each pattern, all patterns form one RE2.Set in preference order, so a lookup is one linear
// scan of the name and the winner is simply the lowest matching index.
//
// RE2 accepts the leading `(?i)` of Langfuse patterns inside a Set (it scopes to that pattern),
// and, like Postgres `~`, Set matching is unanchored unless the pattern anchors itself.
import RE2 from 're2';
import type { StoredModel } from './types.ts';

export interface ModelMatcher {
  /** the definition in force at `at` (every definition when no time is given, as Langfuse picks) */
  match(modelName: string | null | undefined, at?: Date): StoredModel | null;
}

const MEMO_MAX = 10_000;

interface Part {
  set: InstanceType<typeof RE2.Set>;
  /** model index of the set's pattern 0 */
  offset: number;
}

/** Compiles the patterns into as few sets as possible; a pattern that cannot compile is skipped. */
function compileParts(patterns: string[]): { parts: Part[]; index: number[] } {
  // index[i] = model index of the i-th kept pattern
  let kept = patterns.map((p, i) => ({ p, i }));
  try {
    return { parts: [{ set: new RE2.Set(kept.map((k) => k.p)), offset: 0 }], index: kept.map((k) => k.i) };
  } catch {
    // Slow path, only when something is wrong: drop patterns that fail alone, then split the
    // rest until every chunk fits the DFA memory budget.
    kept = kept.filter((k) => {
      try {
        new RE2.Set([k.p]);
        return true;
      } catch {
        return false;
      }
    });
    const parts: Part[] = [];
    const build = (from: number, to: number) => {
      if (from >= to) return;
      try {
        parts.push({ set: new RE2.Set(kept.slice(from, to).map((k) => k.p)), offset: from });
      } catch {
        if (to - from === 1) return;
        const mid = (from + to) >> 1;
        build(from, mid);
        build(mid, to);
      }
    };
    build(0, kept.length);
    return { parts, index: kept.map((k) => k.i) };
  }
}

export function createModelMatcher(models: StoredModel[], projectId: string): ModelMatcher {
  const ranked = models
    .map((m, i) => ({ m, i }))
    .filter(({ m }) => m.projectId === projectId || m.projectId === null)
    .sort((a, b) => {
      const scope = Number(a.m.projectId === null) - Number(b.m.projectId === null);
      if (scope) return scope;
      const sa = a.m.startDate?.getTime() ?? null;
      const sb = b.m.startDate?.getTime() ?? null;
      if (sa !== sb) return sa === null ? 1 : sb === null ? -1 : sb - sa;
      return a.i - b.i; // equal keys: input order, so results are reproducible
    })
    .map(({ m }) => m);

  const { parts, index } = ranked.length ? compileParts(ranked.map((m) => m.matchPattern)) : { parts: [], index: [] };
  const memo = new Map<string, StoredModel[]>();

  /** every definition whose pattern finds the name, in rank order */
  function lookup(name: string): StoredModel[] {
    // parts are in rank order and match() lists indexes ascending
    const hits: number[] = [];
    for (const { set, offset } of parts) for (const h of set.match(name)) hits.push(index[offset + h]!);
    return hits.sort((a, b) => a - b).map((i) => ranked[i]!);
  }

  return {
    match(modelName, at) {
      if (!modelName) return null;
      let found = memo.get(modelName);
      if (!found) {
        found = lookup(modelName);
        // oldest-first eviction; names repeat heavily so the working set is small
        if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!);
        memo.set(modelName, found);
      }
      if (!at) return found[0] ?? null;
      const t = at.getTime();
      return found.find((m) => m.startDate === null || m.startDate.getTime() <= t) ?? null;
    },
  };
}
