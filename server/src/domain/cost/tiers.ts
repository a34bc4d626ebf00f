// Pricing-tier selection, as in Langfuse: the first conditional tier, by
// ascending priority, whose conditions all hold; otherwise the default tier. The reason string
// is kept for the explain endpoint, so users can see why a >200K tier did (not) apply.
import type RE2 from 're2';
import type { AttributeCondition, PricingTierCondition, PricingTierDef, UsageCondition } from '../models/types.ts';
import { compileRe2 } from '../regex.ts';

export interface TierSelection {
  tier: PricingTierDef | null;
  reason: string;
}

export interface TierAttributes {
  modelParameters?: unknown;
  metadata?: unknown;
}

// Runs per event: a handful of distinct patterns across all models, and a handful of usage
// keys, so both the compiled patterns and their verdict per key are kept (bounded; cleared
// when full). A native RE2 call per key and event was a quarter of the pricing time.
interface CompiledPattern {
  re: RE2 | Error;
  matches: Map<string, boolean>;
}
const patternCache = new Map<string, CompiledPattern>();
const PATTERN_CACHE_MAX = 1000;
const KEYS_PER_PATTERN_MAX = 1000;

function compiled(pattern: string, caseSensitive: boolean): CompiledPattern {
  const key = `${caseSensitive ? 's' : 'i'}:${pattern}`;
  let entry = patternCache.get(key);
  if (!entry) {
    if (patternCache.size >= PATTERN_CACHE_MAX) patternCache.clear();
    // no g/y flag: test() must stay stateless across keys
    entry = { re: compileRe2(pattern, caseSensitive ? '' : 'i'), matches: new Map() };
    patternCache.set(key, entry);
  }
  return entry;
}

function keyMatches(p: CompiledPattern & { re: RE2 }, key: string): boolean {
  let hit = p.matches.get(key);
  if (hit === undefined) {
    if (p.matches.size >= KEYS_PER_PATTERN_MAX) p.matches.clear();
    hit = p.re.test(key);
    p.matches.set(key, hit);
  }
  return hit;
}

const OPS = { gt: '>', gte: '>=', lt: '<', lte: '<=', eq: '==', neq: '!=' } as const;

function compare(op: string, a: number, b: number): boolean {
  switch (op) {
    case 'gt':
      return a > b;
    case 'gte':
      return a >= b;
    case 'lt':
      return a < b;
    case 'lte':
      return a <= b;
    case 'eq':
      return a === b;
    case 'neq':
      return a !== b;
    default:
      return false;
  }
}

/**
 * Top-level string/number/boolean attributes as strings. A JSON string is parsed first; anything
 * that is not an object gives {} (so every attribute condition fails), as in Langfuse.
 */
export function stringAttributes(raw: unknown): Map<string, string> {
  let v = raw;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return new Map();
    }
  }
  const out = new Map<string, string>();
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return out;
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') out.set(k, String(x));
  }
  return out;
}

interface Verdict {
  ok: boolean;
  /** why, for the explain endpoint: only built when read */
  text: () => string;
}

function usageVerdict(c: UsageCondition, usage: Record<string, number>): Verdict {
  const p = compiled(c.usageDetailPattern, c.caseSensitive === true);
  const shown = () => `/${c.usageDetailPattern}/${c.caseSensitive ? '' : 'i'}`;
  if (p.re instanceof Error) return { ok: false, text: () => `pattern ${shown()} does not compile` };
  let sum = 0;
  for (const k in usage) if (keyMatches(p as CompiledPattern & { re: RE2 }, k)) sum += usage[k] || 0;
  const ok = compare(c.operator, sum, c.value);
  return {
    ok,
    text: () => `sum of usage keys matching ${shown()} = ${sum} ${ok ? '' : 'is not '}${OPS[c.operator] ?? c.operator} ${c.value}`,
  };
}

function attributeVerdict(c: AttributeCondition, attrs: { model_parameters: Map<string, string>; metadata: Map<string, string> }): Verdict {
  const source = attrs[c.source];
  const name = `${c.source}.${c.key}`;
  if (!source?.has(c.key)) return { ok: false, text: () => `${name} is not set` };
  const value = source.get(c.key)!;
  const ok = Array.isArray(c.values) && c.values.includes(value);
  return { ok, text: () => `${name} = ${JSON.stringify(value)} is ${ok ? '' : 'not '}in ${JSON.stringify(c.values)}` };
}

function verdict(c: PricingTierCondition, usage: Record<string, number>, attrs: Parameters<typeof attributeVerdict>[1]): Verdict {
  try {
    return 'source' in c ? attributeVerdict(c, attrs) : usageVerdict(c, usage);
  } catch (e) {
    return { ok: false, text: () => `condition failed to evaluate (${e instanceof Error ? e.message : String(e)})` };
  }
}

const label = (t: PricingTierDef) => `tier ${JSON.stringify(t.name)} (priority ${t.priority})`;

/** the reason text is assembled only if someone reads it (explain does; ingestion does not) */
function selection(tier: PricingTierDef | null, reason: () => string): TierSelection {
  let text: string | undefined;
  return {
    tier,
    get reason() {
      text ??= reason();
      return text;
    },
  };
}

const NO_ATTRIBUTES = { model_parameters: new Map<string, string>(), metadata: new Map<string, string>() };

export function selectPricingTier(tiers: PricingTierDef[], usage: Record<string, number>, attributes: TierAttributes = {}): TierSelection {
  if (!tiers.length) return { tier: null, reason: 'the model has no pricing tiers' };
  // Langfuse skips matching entirely for an empty usage map, so no tier and no computed cost.
  let empty = true;
  for (const _ in usage) {
    empty = false;
    break;
  }
  if (empty) return { tier: null, reason: 'no usage details: tier matching skipped' };

  const misses: (() => string)[] = [];
  const conditional = tiers.filter((t) => !t.isDefault).sort((a, b) => a.priority - b.priority);
  // most models have only a default tier: the attribute maps are built only for conditions to read
  const attrs = conditional.length
    ? { model_parameters: stringAttributes(attributes.modelParameters), metadata: stringAttributes(attributes.metadata) }
    : NO_ATTRIBUTES;
  for (const tier of conditional) {
    if (!tier.conditions.length) {
      misses.push(() => `${tier.name}: has no conditions`);
      continue;
    }
    const seen: Verdict[] = [];
    let ok = true;
    for (const c of tier.conditions) {
      const v = verdict(c, usage, attrs);
      seen.push(v);
      if (!v.ok) {
        ok = false;
        misses.push(() => `${tier.name}: ${v.text()}`);
        break;
      }
    }
    if (ok) return selection(tier, () => `${label(tier)}: ${seen.map((v) => v.text()).join(' and ')}`);
  }

  const fallback = tiers.find((t) => t.isDefault) ?? null;
  const why = () =>
    misses.length ? `no conditional tier matched (${misses.map((m) => m()).join('; ')})` : 'the model has no conditional tiers';
  if (!fallback) return selection(null, () => `${why()} and the model has no default tier`);
  return selection(fallback, () => `default tier ${JSON.stringify(fallback.name)}: ${why()}`);
}
