// Usage and cost of one generation, end to end.
// Tokenization happens outside (async, worker threads): the caller asks needsTokenization()
// and passes the counts in as `inferredUsage`.
import { calculateCost, type CostLine, type CostStatus } from '../cost/calculate.ts';
import { selectPricingTier } from '../cost/tiers.ts';
import type { StoredModel } from '../models/types.ts';
import { aggregates, type Aggregates } from './aggregate.ts';
import { hasEntries, setEntry } from '../plain-map.ts';
import {
  finaliseUsage,
  parseCostDetails,
  parseUsageDetails,
  providedCost,
  providedUsage,
  type LegacyUsage,
  type ParsedUsageDetails,
} from './normalise.ts';
import { droppedValueWarnings, usageWarnings } from './warnings.ts';
import { repairOverlap } from './overlap.ts';
import type { ObservationLevel } from '../../../../generated/enums.ts';

export type { ObservationLevel };

export interface TokenizationQuestion {
  providedUsage: Record<string, unknown>;
  providedCost: Record<string, unknown>;
  model: StoredModel | null;
  level?: ObservationLevel | string | null;
}

/** Tokenize only when nothing usable was provided, a model with a tokenizer matched, and the call did not fail. */
export function needsTokenization({ providedUsage, providedCost, model, level }: TokenizationQuestion): boolean {
  return tokenizes(model, level, finaliseUsage(providedUsage).provided, providedCost);
}

/**
 * The rule itself, on a provided usage map already finalised (finaliseUsage's `provided`): a
 * model with a tokenizer matched, the call did not fail, no usage count and no cost was provided.
 */
function tokenizes(
  model: StoredModel | null,
  level: ObservationLevel | string | null | undefined,
  finalProvidedUsage: Record<string, number>,
  providedCost: Record<string, unknown>,
): boolean {
  return !!model?.tokenizerId && level !== 'ERROR' && !hasEntries(finalProvidedUsage) && !hasValue(providedCost);
}

function hasValue(o: Record<string, unknown>): boolean {
  for (const k in o) if (o[k] != null) return true;
  return false;
}

export interface FromProvidedInput {
  /** provided usage of the (merged) observation */
  providedUsage: Record<string, unknown>;
  /** provided cost of the (merged) observation */
  providedCost: Record<string, number>;
  model: StoredModel | null;
  level?: ObservationLevel | string | null;
  modelParameters?: unknown;
  metadata?: unknown;
  /** tokenizer counts, used only when needsTokenization() held; undefined = tokenization failed */
  inferredUsage?: Record<string, number>;
  /**
   * For warnings only: the usageDetails as received and its parse. Without a parse no warnings
   * are computed (ingestion warns per event, about each payload as sent, before merging).
   */
  rawUsageDetails?: unknown;
  parsedUsageDetails?: ParsedUsageDetails;
  /** costDetails as received, for the warnings about values that were not stored */
  rawCostDetails?: unknown;
}

export interface UsageAndCost {
  usageDetails: Record<string, number>;
  costDetails: Record<string, number>;
  providedUsageDetails: Record<string, number>;
  providedCostDetails: Record<string, number>;
  tier: { id: string; name: string } | null;
  tierReason: string;
  costStatus: CostStatus;
  unpricedUsageKeys: string[];
  /** usage key → price key, for buckets priced under another spelling or at their parent's rate */
  pricedAs: Record<string, string>;
  warnings: string[];
  aggregates: Aggregates;
  lines: CostLine[];
  /** true when usageDetails came from the tokenizer */
  usageInferred: boolean;
}

/** For the merge path: provided maps already combined across events. */
export function computeFromProvided(input: FromProvidedInput): UsageAndCost {
  const { provided, usage: finalProvided } = finaliseUsage(input.providedUsage);
  const providedCostDetails: Record<string, number> = {};
  for (const k in input.providedCost) {
    const v = input.providedCost[k];
    if (v != null) setEntry(providedCostDetails, k, v);
  }
  // needsTokenization's rule on the maps already finalised (without finalising `provided` again)
  const infer = tokenizes(input.model, input.level, provided, providedCostDetails);
  // Tokenizer failure leaves usage empty: no zero is written and no fallback runs.
  const repair = infer ? null : repairOverlap(finalProvided, provided);
  const usageDetails = infer ? { ...(input.inferredUsage ?? {}) } : (repair?.usage ?? finalProvided);

  const selection = input.model
    ? selectPricingTier(input.model.pricingTiers, usageDetails, { modelParameters: input.modelParameters, metadata: input.metadata })
    : { tier: null, reason: 'no model matched' };
  const cost = calculateCost({ usage: usageDetails, providedCost: providedCostDetails, prices: selection.tier?.prices ?? null });

  const parsed = input.parsedUsageDetails;
  return {
    usageDetails,
    costDetails: cost.costDetails,
    providedUsageDetails: provided,
    providedCostDetails,
    // Langfuse records the tier even when provided cost makes its prices moot.
    tier: selection.tier ? { id: selection.tier.id, name: selection.tier.name } : null,
    // a getter: the text is only needed by explain
    get tierReason() {
      return cost.status === 'ingested' ? `cost was provided, so model prices are ignored (${selection.reason})` : selection.reason;
    },
    costStatus: cost.status,
    unpricedUsageKeys: cost.unpricedUsageKeys,
    pricedAs: cost.pricedAs,
    warnings: parsed
      ? [
          ...(repair ? [repair.note] : []),
          ...(infer ? [] : usageWarnings(input.rawUsageDetails, parsed, usageDetails, provided)),
          ...droppedValueWarnings(input.rawUsageDetails, parsed, input.rawCostDetails),
        ]
      : [],
    aggregates: aggregates(usageDetails, cost.costDetails, cost.exactCosts),
    lines: cost.lines,
    usageInferred: infer,
  };
}

export interface EventUsageInput
  extends Omit<FromProvidedInput, 'providedUsage' | 'providedCost' | 'rawUsageDetails' | 'parsedUsageDetails' | 'rawCostDetails'> {
  /** legacy `usage`, already validated by parseLegacyUsage */
  legacyUsage?: LegacyUsage;
  /** raw `usageDetails` */
  usageDetails?: unknown;
  /** raw `costDetails` */
  costDetails?: unknown;
}

/** The usage and cost an event carries: its usageDetails read (strictly), merged with the legacy `usage` object. */
export function readProvided(input: { legacyUsage?: LegacyUsage; usageDetails?: unknown; costDetails?: unknown }) {
  const parsed = parseUsageDetails(input.usageDetails);
  return {
    parsed,
    providedUsage: providedUsage(input.legacyUsage, parsed.usage),
    providedCost: providedCost(input.legacyUsage, parseCostDetails(input.costDetails)),
  };
}

/** One event on its own: parse, build the provided maps, then compute. */
export function computeUsageAndCost(input: EventUsageInput): UsageAndCost {
  const { legacyUsage, usageDetails, costDetails, ...rest } = input;
  const { parsed, providedUsage, providedCost } = readProvided({ legacyUsage, usageDetails, costDetails });
  return computeFromProvided({
    ...rest,
    providedUsage,
    providedCost,
    rawUsageDetails: usageDetails,
    parsedUsageDetails: parsed,
    rawCostDetails: costDetails,
  });
}
