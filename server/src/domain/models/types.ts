// Internal shapes of a model definition, shared by the domain core (validation,
// matching, cost) and persistence. The wire shapes live in openapi/ only; these
// mirror them field for field so handlers can pass values through unchanged.

export const USAGE_UNITS = ['TOKENS', 'CHARACTERS', 'MILLISECONDS', 'SECONDS', 'REQUESTS', 'IMAGES'] as const;
export type UsageUnit = (typeof USAGE_UNITS)[number];

export type UsageOperator = 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'neq';

export interface UsageCondition {
  usageDetailPattern: string;
  operator: UsageOperator;
  value: number;
  caseSensitive: boolean;
}

export interface AttributeCondition {
  source: 'model_parameters' | 'metadata';
  key: string;
  operator: 'in';
  values: string[];
}

export type PricingTierCondition = UsageCondition | AttributeCondition;

export interface PricingTierDef {
  id: string;
  name: string;
  isDefault: boolean;
  priority: number;
  conditions: PricingTierCondition[];
  /** USD per single unit, keyed by usage type (must equal the usage_details key exactly) */
  prices: Record<string, number>;
}

export type TokenizerId = 'openai' | 'claude';

export interface TokenizerConfig {
  tokenizerModel?: string;
  tokensPerMessage?: number;
  tokensPerName?: number;
}

export interface ModelDefinition {
  id: string;
  modelName: string;
  matchPattern: string;
  unit: UsageUnit | null;
  startDate: Date | null;
  tokenizerId: TokenizerId | null;
  tokenizerConfig: TokenizerConfig | Record<string, unknown> | null;
  pricingTiers: PricingTierDef[];
}

/** One problem with a request, in the shape of a zod v4 issue (what Langfuse clients expect). */
export interface Issue {
  code: string;
  path: (string | number)[];
  message: string;
}

/** A model definition as the service holds it: a project's (projectId set) or a managed one (null). */
export interface StoredModel extends ModelDefinition {
  projectId: string | null;
  createdAt: Date;
}
