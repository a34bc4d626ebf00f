// How the Models page writes tier conditions and price lists (numbers through ../../format.ts).
import type { PricingTier, PricingTierCondition } from '../../../../sdk/index.ts';
import { formatPrice } from '../../format.ts';

const OPERATOR_TEXT: Record<string, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤', eq: '=', neq: '≠' };

export function conditionText(c: PricingTierCondition): string {
  if ('source' in c) return `${c.source}.${c.key} in [${c.values.join(', ')}]`;
  const flags = c.caseSensitive ? '' : 'i';
  return `sum of /${c.usageDetailPattern}/${flags} ${OPERATOR_TEXT[c.operator] ?? c.operator} ${c.value}`;
}

export function conditionsSummary(tier: PricingTier): string {
  if (tier.conditions.length === 0) return tier.isDefault ? 'when no other tier matches' : 'no conditions';
  return `when ${tier.conditions.map(conditionText).join(' and ')}`;
}

export function pricesText(prices: Record<string, number>): string {
  const entries = Object.entries(prices);
  return entries.length ? entries.map(([k, v]) => `${k} ${formatPrice(v)}`).join(', ') : 'no prices';
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso.length > 10 ? iso.slice(0, 10) : iso;
}
