// The input/output/total roll-ups that the legacy observation API and the UI show, as
// Langfuse computes them: every key *containing* "input" counts as input, so cached buckets
// add to input — which is why the buckets must be disjoint.
import { exact, plus, toNumber, type Exact } from '../cost/exact.ts';

export interface Aggregates {
  /** promptTokens: Σ usage keys containing "input", else 0 */
  inputUsage: number;
  /** completionTokens: Σ usage keys containing "output", else 0 */
  outputUsage: number;
  /** totalTokens: usage.total, else 0 */
  totalUsage: number;
  /** calculatedInputCost: Σ cost keys containing "input", null when there is none */
  inputCost: number | null;
  /** calculatedOutputCost */
  outputCost: number | null;
  /** calculatedTotalCost: cost.total, else 0 */
  totalCost: number;
}

/** `exactValues`: the same values before rounding, where known (computed costs) */
function sumContaining(map: Record<string, number>, needle: string, exactValues?: Map<string, Exact>): number | null {
  let sum: Exact | null = null;
  for (const k in map) {
    const v = map[k];
    if (v == null || !k.toLowerCase().includes(needle)) continue;
    const x = exactValues?.get(k) ?? exact(v);
    sum = sum ? plus(sum, x) : x;
  }
  return sum === null ? null : toNumber(sum);
}

export function aggregates(usage: Record<string, number>, cost: Record<string, number>, exactCosts?: Map<string, Exact>): Aggregates {
  return {
    inputUsage: sumContaining(usage, 'input') ?? 0,
    outputUsage: sumContaining(usage, 'output') ?? 0,
    totalUsage: usage.total ?? 0,
    inputCost: sumContaining(cost, 'input', exactCosts),
    outputCost: sumContaining(cost, 'output', exactCosts),
    totalCost: cost.total ?? 0,
  };
}
