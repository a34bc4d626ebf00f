// The Langfuse-managed ("isLangfuseManaged") model list, derived from the price dataset in
// @pydantic/genai-prices rather than copied from Langfuse, so a dependency bump refreshes
// prices. Ids derive from model names and stay stable across runs and releases.
import type { ModelDefinition } from '../models/types.ts';
import type { FamilyEntry } from './family.ts';
import { amazonEntries } from './families/amazon.ts';
import { anthropicEntries } from './families/anthropic.ts';
import { googleEntries } from './families/google.ts';
import { openaiEntries } from './families/openai.ts';
import { buildPricingTiers } from './pricing.ts';

export { CONTEXT_USAGE_PATTERN } from './pricing.ts';

export function managedModelId(modelName: string): string {
  return `managed_${modelName.toLowerCase().replace(/[^a-z0-9-]/g, '_')}`;
}

/**
 * The managed models with the prices in force on `asOf`'s UTC day (the dataset schedules
 * price changes by date). Memoised per day; the result is deeply frozen because every
 * caller shares it.
 */
export function buildManagedModels(asOf: Date = new Date()): ModelDefinition[] {
  return build(asOf).models;
}

/** For tests: the names each entry is expected to win, by model id. */
export function managedModelProbes(asOf: Date = new Date()): Map<string, string[]> {
  return build(asOf).probes;
}

interface Built {
  day: string;
  models: ModelDefinition[];
  probes: Map<string, string[]>;
}

let memo: Built | null = null;

function build(asOf: Date): Built {
  const day = asOf.toISOString().slice(0, 10);
  if (memo?.day === day) return memo;
  // price constraints start at UTC midnight, so any instant of the day gives the same list
  const start = new Date(`${day}T00:00:00Z`);
  const models: ModelDefinition[] = [];
  const probes = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const entry of allEntries(start)) {
    const id = managedModelId(entry.modelName);
    if (seen.has(id)) continue; // first family wins; the tests keep this from happening
    const tiers = buildPricingTiers(id, entry.price, entry.flavour);
    if (tiers.length === 0) continue; // free, or priced only per hour / per request
    seen.add(id);
    models.push(deepFreeze(toDefinition(id, entry, tiers)));
    probes.set(id, entry.probes);
  }
  memo = { day, models: Object.freeze(models) as ModelDefinition[], probes };
  return memo;
}

function allEntries(asOf: Date): FamilyEntry[] {
  return [...openaiEntries(asOf), ...anthropicEntries(asOf), ...googleEntries(asOf), ...amazonEntries(asOf)];
}

function toDefinition(id: string, e: FamilyEntry, pricingTiers: ModelDefinition['pricingTiers']): ModelDefinition {
  return {
    id,
    modelName: e.modelName,
    matchPattern: e.matchPattern,
    unit: 'TOKENS',
    startDate: null,
    tokenizerId: e.tokenizerId,
    tokenizerConfig: e.tokenizerConfig,
    pricingTiers,
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
