// Usage and cost of one merged observation: match its model, tokenise when nothing was
// provided, then let the domain core select the tier and price the buckets.
import type { ObservationRecord } from '../domain/ingestion/types.ts';
import type { ModelMatcher } from '../domain/models/matcher.ts';
import { computeFromProvided, needsTokenization } from '../domain/usage/index.ts';
import type { TokenizerPool } from '../workers/tokenizer-pool.ts';

// Langfuse tracks usage and cost on generation-like observations only
const PRICED_TYPES = new Set(['GENERATION', 'EMBEDDING', 'AGENT', 'TOOL', 'CHAIN', 'RETRIEVER', 'EVALUATOR', 'GUARDRAIL']);

export async function priceObservation(rec: ObservationRecord, matcher: ModelMatcher, tokenizers: TokenizerPool): Promise<ObservationRecord> {
  const providedUsage = rec.providedUsageDetails ?? {};
  const providedCost = rec.providedCostDetails ?? {};
  const model = PRICED_TYPES.has(rec.type) ? matcher.match(rec.model) : null;
  let inferredUsage: Record<string, number> | undefined;
  if (model && needsTokenization({ providedUsage, providedCost, model, level: rec.level })) {
    inferredUsage = await tokenizers.inferUsage({ tokenizerId: model.tokenizerId, tokenizerConfig: model.tokenizerConfig }, rec.input, rec.output);
  }
  const r = computeFromProvided({ providedUsage, providedCost, model, level: rec.level, modelParameters: rec.modelParameters, metadata: rec.metadata, inferredUsage });
  const tier = r.tier ? model?.pricingTiers.find((t) => t.id === r.tier!.id) ?? null : null;
  return {
    ...rec,
    providedUsageDetails: Object.keys(r.providedUsageDetails).length ? r.providedUsageDetails : rec.providedUsageDetails,
    usageDetails: r.usageDetails,
    costDetails: r.costDetails,
    inputUsage: r.aggregates.inputUsage,
    outputUsage: r.aggregates.outputUsage,
    totalUsage: r.aggregates.totalUsage,
    inputCost: r.aggregates.inputCost,
    outputCost: r.aggregates.outputCost,
    totalCost: r.aggregates.totalCost,
    modelId: model?.id ?? null,
    usagePricingTierId: tier?.id ?? null,
    usagePricingTierName: tier?.name ?? null,
    pricesUsed: tier ? pricesApplied(tier.prices, r.lines) : null,
    costStatus: r.costStatus,
    unpricedUsageKeys: r.unpricedUsageKeys,
  };
}

/**
 * The tier's prices that priced this observation, plus its input/output/total rates (the
 * wire shows those): not the whole alias-heavy map, which would repeat ~20 keys per row.
 */
function pricesApplied(prices: Record<string, number>, lines: { usageType: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of ['input', 'output', 'total', ...lines.map((l) => l.usageType)]) if (prices[k] !== undefined) out[k] = prices[k];
  return out;
}
