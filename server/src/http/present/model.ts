// Stored model → wire `Model` (shape defined in openapi/, typed by the generated client).
import type { Model, PricingTier, PricingTierCondition } from '../../../../generated/client/types.gen.ts';
import type { StoredModel } from '../../store/models.ts';

// conditions are returned as validated, with only their known fields
function presentCondition(c: PricingTierCondition): PricingTierCondition {
  if ('source' in c) return { source: c.source, key: c.key, operator: 'in', values: c.values };
  return { usageDetailPattern: c.usageDetailPattern, operator: c.operator, value: c.value, caseSensitive: c.caseSensitive ?? false };
}

export function presentModel(m: StoredModel): Model {
  const tiers = [...m.pricingTiers].sort((a, b) => a.priority - b.priority);
  const standard = tiers.find((t) => t.isDefault);
  const price = (k: string) => standard?.prices[k] ?? null;
  return {
    id: m.id,
    modelName: m.modelName,
    matchPattern: m.matchPattern,
    startDate: m.startDate ? m.startDate.toISOString() : null,
    unit: m.unit,
    inputPrice: price('input'),
    outputPrice: price('output'),
    totalPrice: price('total'),
    tokenizerId: m.tokenizerId,
    tokenizerConfig: m.tokenizerConfig,
    isLangfuseManaged: m.projectId === null,
    createdAt: m.createdAt.toISOString(),
    prices: Object.fromEntries(Object.entries(standard?.prices ?? {}).map(([k, v]) => [k, { price: v }])),
    pricingTiers: tiers.map(
      (t): PricingTier => ({
        id: t.id,
        name: t.name,
        isDefault: t.isDefault,
        priority: t.priority,
        conditions: t.conditions.map(presentCondition),
        prices: t.prices,
      }),
    ),
  };
}
