// Turns one dataset price set (USD per million tokens, possibly tiered by prompt size) into
// Langfuse-style pricing tiers (USD per single unit, keyed by usage-detail name).
import type { PricingTierDef, UsageCondition } from '../models/types.ts';
import type { ModelPrice } from './source.ts';
import { usageKeysFor, type KeyFlavour } from './usage-keys.ts';

type PriceValue = NonNullable<ModelPrice[string]>;

/**
 * genai-prices picks a tier when the request's input tokens (uncached + cache reads + cache
 * writes) exceed `start`. Every input-side key contains "input", "prompt" or "cached", so
 * summing the keys that match this pattern is the same count. Output keys never match.
 */
export const CONTEXT_USAGE_PATTERN = '(input|prompt|cached)';

export function defaultTierId(modelId: string): string {
  return `${modelId}_tier_default`;
}

export function buildPricingTiers(modelId: string, price: ModelPrice, flavour: KeyFlavour): PricingTierDef[] {
  const priced = expandKeys(withDerivedPrices(price, flavour), flavour);
  if (priced.length === 0) return [];

  const thresholds = [...new Set(priced.flatMap(([, v]) => (typeof v === 'number' ? [] : v.tiers.map((t) => t.start))))];
  // highest threshold first: tier matching takes the lowest priority whose condition holds
  thresholds.sort((a, b) => b - a);

  const tiers: PricingTierDef[] = [
    { id: defaultTierId(modelId), name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: pricesAt(priced, null) },
  ];
  thresholds.forEach((start, i) => {
    const name = `Large Context (>${Math.round(start / 1000)}K)`;
    const condition: UsageCondition = { usageDetailPattern: CONTEXT_USAGE_PATTERN, operator: 'gt', value: start, caseSensitive: false };
    tiers.push({
      id: `${modelId}_tier_${slug(name)}`,
      name,
      isDefault: false,
      priority: i + 1,
      conditions: [condition],
      prices: pricesAt(priced, start),
    });
  });
  return tiers;
}

/** Anthropic bills 1h cache writes at 2x base input; fill it in when the dataset omits it. */
function withDerivedPrices(price: ModelPrice, flavour: KeyFlavour): [string, PriceValue][] {
  const entries = Object.entries(price).filter((e): e is [string, PriceValue] => e[1] !== undefined);
  const input = price.input_mtok;
  if (flavour.anthropic && input !== undefined && price.cache_write_mtok !== undefined && price.cache_write_1h_mtok === undefined) {
    entries.push(['cache_write_1h_mtok', scale(input, 2)]);
  }
  return entries;
}

function expandKeys(entries: [string, PriceValue][], flavour: KeyFlavour): [string, PriceValue][] {
  return entries.flatMap(([priceKey, value]) => usageKeysFor(priceKey, flavour).map((k): [string, PriceValue] => [k, value]));
}

function pricesAt(priced: [string, PriceValue][], inputTokensAbove: number | null): Record<string, number> {
  const prices: Record<string, number> = {};
  for (const [key, value] of priced) prices[key] = perUnit(valueAt(value, inputTokensAbove));
  return prices;
}

/** The per-million price once the prompt exceeds `above` tokens (null: the base price). */
function valueAt(value: PriceValue, above: number | null): number {
  if (typeof value === 'number') return value;
  let price = value.base;
  if (above === null) return price;
  for (const tier of [...value.tiers].sort((a, b) => a.start - b.start)) if (tier.start <= above) price = tier.price;
  return price;
}

function scale(value: PriceValue, factor: number): PriceValue {
  if (typeof value === 'number') return value * factor;
  return { base: value.base * factor, tiers: value.tiers.map((t) => ({ start: t.start, price: t.price * factor })) };
}

/** Per-million to per-token, without binary noise such as 2.4999999999999998e-6. */
export function perUnit(perMillion: number): number {
  return Number((perMillion / 1e6).toPrecision(15));
}

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}
