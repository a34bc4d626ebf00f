// How the console writes money and counts, in one place: per-token prices and one call's cost as
// plain decimals with six significant digits (never 8e-7: exponent notation hides how small a
// price is); totals over many calls (the dashboard) to the cent, with more decimals only when small.

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

/** USD with enough decimals that a tiny cost (a few tokens) never shows as $0.00 */
export function formatUsd(v: number): string {
  if (!Number.isFinite(v)) return '–';
  const abs = Math.abs(v);
  if (abs === 0) return '$0.00';
  const decimals = abs >= 1 ? 2 : Math.min(10, Math.max(2, 3 - Math.floor(Math.log10(abs))));
  let s = abs.toFixed(decimals);
  // trailing zeros past the cents say nothing
  s = s.replace(/(\.\d\d\d*?)0+$/, '$1');
  const [int, frac] = s.split('.');
  return `${v < 0 ? '-' : ''}$${Number(int).toLocaleString('en-US')}.${frac}`;
}

export const formatCount = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');

/** an ISO instant as the console shows every time: UTC, to the second */
export const formatTime = (iso: string | null | undefined) =>
  iso
    ? new Date(iso)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, ' UTC')
    : '—';

/** a duration in seconds (the API's latency): ms below a second, else seconds to two decimals */
export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s) || s < 0) return '—';
  return s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(2)} s`;
}
