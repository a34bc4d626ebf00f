// Usage counts above 2^53 − 1 cannot be kept exactly: JSON.parse has already rounded
// 9007199254740993 to …992 before Tally sees it. Such a count is refused (with the field named)
// rather than stored rounded or dropped with a warning; no real usage comes near it.
import { isPlainObject } from './normalise.ts';

export const MAX_EXACT_COUNT = Number.MAX_SAFE_INTEGER;

export interface InexactCount {
  path: (string | number)[];
  value: number;
}

/** the first whole-number count in a usage map (and its detail maps) beyond 2^53 − 1 */
export function findInexactCount(usage: unknown, path: (string | number)[]): InexactCount | null {
  if (!isPlainObject(usage)) return null;
  for (const [k, v] of Object.entries(usage)) {
    if (typeof v === 'number' && Math.abs(v) > MAX_EXACT_COUNT) return { path: [...path, k], value: v };
    if (isPlainObject(v)) {
      for (const [dk, dv] of Object.entries(v)) {
        if (typeof dv === 'number' && Math.abs(dv) > MAX_EXACT_COUNT) return { path: [...path, k, dk], value: dv };
      }
    }
  }
  return null;
}

export const inexactCountMessage = (c: InexactCount) =>
  `Usage count ${c.value} is beyond 2^53 - 1 (${MAX_EXACT_COUNT}) and cannot be kept exactly`;

/**
 * Ingested costs are capped at a trillion USD a value, and prices at a million USD a unit (in
 * the spec), so every cost Tally computes or sums stays a finite double: a price of 1e308 made
 * costs Infinity, which JSON answers as null and which failed every read of the row.
 */
export const MAX_COST_USD = 1e12;
export const LEGACY_COST_KEYS = ['inputCost', 'outputCost', 'totalCost'];

/** the first cost in a cost map (or the legacy usage object's *Cost fields) beyond MAX_COST_USD */
export function findOversizedCost(costs: unknown, path: (string | number)[], keys?: string[]): InexactCount | null {
  if (!isPlainObject(costs)) return null;
  for (const [k, v] of Object.entries(costs)) {
    if (keys && !keys.includes(k)) continue;
    if (typeof v === 'number' && Math.abs(v) > MAX_COST_USD) return { path: [...path, k], value: v };
  }
  return null;
}

export const oversizedCostMessage = (c: InexactCount) => `Cost ${c.value} is beyond ${MAX_COST_USD} USD`;
