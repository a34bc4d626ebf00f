// How the Models page writes prices and tier conditions: plain decimals (never 8e-7), since
// per-token prices are tiny and exponent notation hides their size.
import type { PricingTier, PricingTierCondition } from '../../../../sdk/index.ts';

/** 0.0000008 → "0.0000008"; keeps six significant digits without exponent notation. */
export function formatPrice(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  if (n === 0) return '0';
  const digits = Math.min(20, Math.max(0, 6 - Math.floor(Math.log10(Math.abs(n)))));
  const fixed = n.toFixed(digits);
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** A per-token price as USD per million tokens, the figure price lists quote. */
export function perMillion(n: number): string {
  return `$${formatPrice(Math.round(n * 1e6 * 1e6) / 1e6)} / 1M`;
}

export function formatCost(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : `$${formatPrice(n)}`;
}

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
