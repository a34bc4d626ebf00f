// Cost of one observation. Provided costs win outright and are never mixed
// with computed ones; otherwise each usage key is priced by exact key. Arithmetic is decimal:
// the result is stored at 12 decimal places and float sums (0.1 + 0.2) would show up there.
import { exact, plus, sum, times, toNumber, type Exact } from './exact.ts';
import { setEntry } from '../plain-map.ts';
import { otherSpellings, parentBucket } from '../usage/aliases.ts';

import type { CostStatus } from '../../../../generated/enums.ts';

export type { CostStatus };

export interface CostLine {
  usageType: string;
  units: number;
  price: number;
  cost: number;
  /** the price key used when the bucket has no price of its own: another spelling of it, or its parent (`input`/`output`) */
  priceKey?: string;
}

export interface CostResult {
  costDetails: Record<string, number>;
  status: CostStatus;
  /** usage keys with a positive count and no price (never `total`) */
  unpricedUsageKeys: string[];
  /** usage key → the price key that priced it, for keys without a price of their own */
  pricedAs: Record<string, string>;
  lines: CostLine[];
  /** the computed costs before rounding to doubles, so sums over them stay exact without re-reading the doubles */
  exactCosts?: Map<string, Exact>;
}

export interface CostInput {
  usage: Record<string, number>;
  /** provided cost map, nulls already dropped */
  providedCost?: Record<string, number> | null;
  /** prices of the selected tier; null when no model or no tier applies */
  prices: Record<string, number> | null;
}

export function calculateCost({ usage, providedCost, prices }: CostInput): CostResult {
  // loops rather than entries/filter/fromEntries: this runs once per ingested generation
  let provided: Record<string, number> | null = null;
  for (const k in providedCost) {
    const v = providedCost[k];
    if (v == null) continue;
    provided ??= {};
    setEntry(provided, k, v);
  }
  if (provided) return ingested(provided);

  const keys: string[] = [];
  const positive: string[] = [];
  for (const k in usage) {
    const v = usage[k];
    if (v == null) continue;
    keys.push(k);
    if (k !== 'total' && v > 0) positive.push(k);
  }
  if (!prices) {
    return { costDetails: {}, status: keys.length ? 'unpriced' : 'none', unpricedUsageKeys: positive, lines: [], pricedAs: {} };
  }

  const lines: CostLine[] = [];
  const exactCosts = new Map<string, Exact>();
  const costDetails: Record<string, number> = {};
  let pricedSum: Exact | null = null;
  const wholeCostPriced = Object.hasOwn(prices, 'total') && prices.total != null && usage.total != null;
  let pricedAs: Record<string, string> | null = null;
  for (const k of keys) {
    let priceKey = k;
    let price = Object.hasOwn(prices, k) ? prices[k] : undefined;
    // Tally, not Langfuse: a bucket without a price of its own is priced as the provider bills
    // it, under another spelling of the same bucket, else at its parent's rate (reasoning as
    // output, cached input as input). A priced `total` already covers every bucket.
    if (price == null && !wholeCostPriced && k !== 'total') {
      priceKey = fallbackPriceKey(k, prices) ?? k;
      price = priceKey === k ? undefined : prices[priceKey];
      if (price != null) {
        pricedAs ??= {};
        setEntry(pricedAs, k, priceKey);
      }
    }
    if (price == null) continue;
    const units = usage[k]!;
    const cost = times(exact(price), exact(units));
    exactCosts.set(k, cost);
    pricedSum = pricedSum ? plus(pricedSum, cost) : cost;
    const rounded = toNumber(cost);
    setEntry(costDetails, k, rounded);
    lines.push(priceKey === k ? { usageType: k, units, price, cost: rounded } : { usageType: k, units, price, cost: rounded, priceKey });
  }
  const totalPriced = Object.hasOwn(costDetails, 'total');
  // A priced `total` is the whole cost (embedding models price only total); the other
  // entries are not added to it. Otherwise total is the exact sum of the computed entries.
  if (!totalPriced && pricedSum) {
    costDetails.total = toNumber(pricedSum);
    exactCosts.set('total', pricedSum);
  }

  // `total` spans every bucket, so once it is priced nothing is left unpriced.
  const unpriced = totalPriced ? [] : positive.filter((k) => !Object.hasOwn(costDetails, k));
  let status: CostStatus;
  // `unpriced` means no model matched; a matched model that prices none of the buckets
  // is `partial` with every bucket listed, which points the user at the key names
  if (!keys.length) status = 'none';
  else status = unpriced.length ? 'partial' : 'inferred';
  return { costDetails, status, unpricedUsageKeys: unpriced, lines, exactCosts, pricedAs: pricedAs ?? {} };
}

/** the price a bucket without its own is billed at: another spelling of it, else its parent's */
function fallbackPriceKey(key: string, prices: Record<string, number>): string | undefined {
  for (const other of otherSpellings(key)) if (prices[other] != null && Object.hasOwn(prices, other)) return other;
  const parent = parentBucket(key);
  return parent && Object.hasOwn(prices, parent) && prices[parent] != null ? parent : undefined;
}

/**
 * Case A: the provided map as-is, plus `total` when derivable: the provided total, else
 * input + output only when those are the sole keys (a cache key makes the total unknowable).
 */
function ingested(cost: Record<string, number>): CostResult {
  const costDetails = { ...cost };
  if (!Object.hasOwn(costDetails, 'total') && Object.keys(costDetails).every((k) => k === 'input' || k === 'output')) {
    costDetails.total = sum([costDetails.input ?? 0, costDetails.output ?? 0]);
  }
  return { costDetails, status: 'ingested', unpricedUsageKeys: [], lines: [], pricedAs: {} };
}
