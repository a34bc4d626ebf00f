// Usage and cost of one generation: match its model, tokenise when nothing was provided,
// then let the domain core select the tier and price the buckets. Ingestion and the explain
// endpoint both price through here, so what explain shows is what ingestion stores.
import type { ObservationRecord, TraceRecord } from '../domain/ingestion/types.ts';
import type { ModelMatcher } from '../domain/models/matcher.ts';
import { computeFromProvided, needsTokenization, type UsageAndCost } from '../domain/usage/index.ts';
import type { StoredModel } from '../domain/models/types.ts';
import { isPricedType } from '../domain/usage/priced-types.ts';
import type { TokenizerPool } from '../threads/tokenizer-pool.ts';

export interface PricingInput {
  model: StoredModel | null;
  providedUsage: Record<string, number>;
  providedCost: Record<string, number>;
  level: string;
  modelParameters?: unknown;
  metadata?: unknown;
  input?: unknown;
  output?: unknown;
  /** for warnings: usageDetails as received, and its parse */
  rawUsageDetails?: unknown;
  parsedUsageDetails?: Parameters<typeof computeFromProvided>[0]['parsedUsageDetails'];
  rawCostDetails?: unknown;
}

export async function priceUsage(p: PricingInput, tokenizers: TokenizerPool): Promise<UsageAndCost> {
  let inferredUsage: Record<string, number> | undefined;
  if (p.model && needsTokenization({ providedUsage: p.providedUsage, providedCost: p.providedCost, model: p.model, level: p.level })) {
    inferredUsage = await tokenizers.inferUsage(
      { tokenizerId: p.model.tokenizerId, tokenizerConfig: p.model.tokenizerConfig },
      p.input ?? null,
      p.output ?? null,
    );
  }
  return computeFromProvided({
    providedUsage: p.providedUsage,
    providedCost: p.providedCost,
    model: p.model,
    level: p.level,
    modelParameters: p.modelParameters,
    metadata: p.metadata,
    inferredUsage,
    rawUsageDetails: p.rawUsageDetails,
    parsedUsageDetails: p.parsedUsageDetails,
    rawCostDetails: p.rawCostDetails,
  });
}

/** the applied tier of a result, looked up on its model */
export const appliedTier = (model: StoredModel | null, r: UsageAndCost) =>
  r.tier ? (model?.pricingTiers.find((t) => t.id === r.tier!.id) ?? null) : null;

/**
 * The observation priced, as a new record; `trace`, when given, is its trace, whose grouping
 * fields the record takes (one copy of the record for both: each copy of its ~46 fields was a
 * visible share of ingestion's CPU per event).
 */
export async function priceObservation(
  rec: ObservationRecord,
  matcher: ModelMatcher,
  tokenizers: TokenizerPool,
  trace?: TraceRecord,
): Promise<ObservationRecord> {
  const { model, result: r } = await pricingOf(rec, matcher, tokenizers);
  return pricedRecord(rec, model, r, trace);
}

/** the model an observation matches and what pricing it comes to (explain shows every step of it) */
export async function pricingOf(
  rec: ObservationRecord,
  matcher: ModelMatcher,
  tokenizers: TokenizerPool,
): Promise<{ model: StoredModel | null; result: UsageAndCost }> {
  // the definition in force when the call started (a model's start_date)
  const model = isPricedType(rec.type) ? matcher.match(rec.model, rec.startTime) : null;
  const result = await priceUsage(
    {
      model,
      providedUsage: rec.providedUsageDetails ?? {},
      providedCost: rec.providedCostDetails ?? {},
      level: rec.level,
      modelParameters: rec.modelParameters,
      metadata: rec.metadata,
      input: rec.input,
      output: rec.output,
    },
    tokenizers,
  );
  return { model, result };
}

/**
 * A stored observation priced again with the definitions `matcher` holds now (a reprice job): as
 * ingestion prices it, except that usage counted by a tokenizer at ingestion is taken as stored
 * (the text has not changed; counting it again is the costliest step and would only repeat it).
 */
export function repriceObservation(
  rec: ObservationRecord,
  matcher: ModelMatcher,
): { model: StoredModel | null; record: ObservationRecord } {
  const model = isPricedType(rec.type) ? matcher.match(rec.model, rec.startTime) : null;
  const result = computeFromProvided({
    providedUsage: rec.providedUsageDetails ?? {},
    providedCost: rec.providedCostDetails ?? {},
    model,
    level: rec.level,
    modelParameters: rec.modelParameters,
    metadata: rec.metadata,
    inferredUsage: rec.usageDetails,
  });
  return { model, record: pricedRecord(rec, model, result) };
}

function pricedRecord(rec: ObservationRecord, model: StoredModel | null, r: UsageAndCost, trace?: TraceRecord): ObservationRecord {
  const tier = appliedTier(model, r);
  const out: ObservationRecord = {
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
    usagePricedAs: Object.keys(r.pricedAs).length ? r.pricedAs : null,
  };
  if (trace) {
    out.traceName = trace.name;
    out.userId = trace.userId;
    out.sessionId = trace.sessionId;
    out.release = trace.release;
    out.traceVersion = trace.version;
    out.tags = trace.tags;
  }
  return out;
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
