// Business rules for POST /api/public/models, applied after the request body has passed the
// schema (types, enums, ranges). Messages, paths and order follow Langfuse's superRefine on
// PostModelsV1Body and its validatePricingTiers, because clients and tests match on the text.
import { compileRe2 } from '../regex.ts';
import type { Issue, PricingTierCondition, PricingTierDef } from './types.ts';
import type { PricingTierCondition as WirePricingTierCondition } from '../../../../generated/client/types.gen.ts';

export interface PricingTierInput {
  name: string;
  isDefault?: boolean;
  priority: number;
  conditions: WirePricingTierCondition[];
  prices: Record<string, number>;
}

export interface CreateModelInput {
  modelName: string;
  matchPattern: string;
  unit: string;
  startDate?: string | null;
  inputPrice?: number | null;
  outputPrice?: number | null;
  totalPrice?: number | null;
  pricingTiers?: PricingTierInput[] | null;
  tokenizerId?: string | null;
  tokenizerConfig?: unknown;
}

export type NormalisedTier = Omit<PricingTierDef, 'id'>;

export interface ModelValidationResult {
  issues: Issue[];
  /** The tiers to store (flat prices become one "Standard" tier); null when there are issues. */
  tiers: NormalisedTier[] | null;
}

const USAGE_TYPE = /^[a-zA-Z0-9_-]+$/;
const MAX_PATTERN_LENGTH = 200;

function custom(message: string, path: (string | number)[] = []): Issue {
  return { code: 'custom', path, message };
}

export function validateModelDefinitionInput(input: CreateModelInput): ModelValidationResult {
  const hasFlatPrices = input.inputPrice != null || input.outputPrice != null || input.totalPrice != null;
  const hasTiers = Array.isArray(input.pricingTiers) && input.pricingTiers.length > 0;

  // Rule 1 stops everything else, as Langfuse's refinement returns early here.
  if (hasFlatPrices && hasTiers) {
    return rejected(custom('Must provide either flat prices (inputPrice/outputPrice/totalPrice) OR pricingTiers, not both'));
  }
  if (!hasFlatPrices && !hasTiers) {
    return rejected(custom('Must provide either flat prices (inputPrice/outputPrice/totalPrice) OR pricingTiers'));
  }

  let tiers: NormalisedTier[];
  if (hasFlatPrices) {
    // Truthiness, not null-ness: Langfuse lets `totalPrice: 0` sit beside an input price.
    if ((input.inputPrice || input.outputPrice) && input.totalPrice) {
      return rejected(custom('If input and/or output price is set, total price must be null', ['totalPrice']));
    }
    tiers = [flatPricesTier(input)];
  } else {
    tiers = input.pricingTiers!.map(normaliseTier);
    const error = firstTierError(tiers);
    if (error) return rejected(custom(error, ['pricingTiers']));
  }

  // Langfuse checks the match pattern in the handler, i.e. only once the body itself is valid.
  const compiled = compileRe2(input.matchPattern);
  if (compiled instanceof Error) {
    return rejected(
      custom(`matchPattern is not a valid regex pattern: ${compiled.message.replace(/^Invalid regex syntax: /, '')}`, ['matchPattern']),
    );
  }
  return { issues: [], tiers };
}

function rejected(issue: Issue): ModelValidationResult {
  return { issues: [issue], tiers: null };
}

function flatPricesTier(input: CreateModelInput): NormalisedTier {
  const prices: Record<string, number> = {};
  if (input.inputPrice != null) prices.input = input.inputPrice;
  if (input.outputPrice != null) prices.output = input.outputPrice;
  if (input.totalPrice != null) prices.total = input.totalPrice;
  return { name: 'Standard', isDefault: true, priority: 0, conditions: [], prices };
}

function normaliseTier(tier: PricingTierInput): NormalisedTier {
  return {
    name: tier.name.trim(),
    isDefault: tier.isDefault ?? false,
    priority: tier.priority,
    conditions: (tier.conditions ?? []).map(normaliseCondition),
    prices: { ...tier.prices },
  };
}

function normaliseCondition(c: WirePricingTierCondition): PricingTierCondition {
  if (c && typeof c === 'object' && 'source' in c) {
    return { source: c.source, key: c.key, operator: c.operator, values: [...c.values] };
  }
  return {
    usageDetailPattern: c.usageDetailPattern,
    operator: c.operator,
    value: c.value,
    caseSensitive: c.caseSensitive ?? false,
  };
}

/** Langfuse reports only the first broken tier rule; the order below is part of the contract. */
function firstTierError(tiers: NormalisedTier[]): string | null {
  const defaults = tiers.filter((t) => t.isDefault);
  if (defaults.length === 0) return 'Exactly one pricing tier must have isDefault: true';
  if (defaults.length > 1) return `Only one pricing tier can have isDefault: true, found ${defaults.length}`;
  const defaultTier = defaults[0]!;
  if (defaultTier.priority !== 0) return 'Default pricing tier must have priority: 0';
  if (defaultTier.conditions.length > 0) return 'Default pricing tier must have empty conditions array';

  const bare = tiers.find((t) => !t.isDefault && t.conditions.length === 0);
  if (bare) return `Non-default pricing tier "${bare.name}" must have at least one condition`;

  if (new Set(tiers.map((t) => t.priority)).size !== tiers.length) {
    return 'Pricing tier priorities must be unique within a model';
  }
  if (new Set(tiers.map((t) => t.name)).size !== tiers.length) return 'Pricing tier names must be unique';

  for (const tier of tiers) {
    for (const condition of tier.conditions) {
      if (!('usageDetailPattern' in condition)) continue;
      const reason = usagePatternProblem(condition.usageDetailPattern);
      if (reason) return `Invalid regex pattern in tier "${tier.name}": ${reason}`;
    }
  }

  for (const tier of tiers) {
    if (Object.keys(tier.prices).length === 0) return `Pricing tier "${tier.name}" must have at least one price defined`;
  }

  for (const tier of tiers) {
    const bad = Object.keys(tier.prices).find((key) => !USAGE_TYPE.test(key));
    if (bad !== undefined) {
      return `Invalid usage type "${bad}" in tier "${tier.name}": only letters, digits, "_" and "-" are allowed`;
    }
  }

  if (tiers.length > 1) {
    const expected = Object.keys(defaultTier.prices).sort();
    for (const tier of tiers) {
      if (tier.isDefault) continue;
      const got = Object.keys(tier.prices).sort();
      if (got.length !== expected.length || !got.every((key, i) => key === expected[i])) {
        return `Pricing tier "${tier.name}" must have the same usage keys as the default tier. Expected: [${expected.join(', ')}], Got: [${got.join(', ')}]`;
      }
    }
  }
  return null;
}

function usagePatternProblem(pattern: string): string | null {
  if (pattern.length === 0) return 'Pattern cannot be empty';
  if (pattern.length > MAX_PATTERN_LENGTH) return `Pattern exceeds maximum length of ${MAX_PATTERN_LENGTH} characters`;
  const compiled = compileRe2(pattern);
  return compiled instanceof Error ? `Invalid regex syntax: ${compiled.message}` : null;
}
