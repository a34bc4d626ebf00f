// Series colours that belong to a name, not to a position: a model keeps its colour whatever the
// range, the filters or the other models on the chart (a position-based palette repainted a model
// whenever the ranking changed). Two names may share a colour; the chart separates stacked
// segments with a white edge, and the legend, tooltip and numbers table name every series.

/** eleven hues apart in hue and lightness, each at least 3:1 against white (WCAG 1.4.11) */
export const PALETTE = [
  '#2563eb',
  '#d97706',
  '#047857',
  '#db2777',
  '#7c3aed',
  '#0891b2',
  '#b91c1c',
  '#65a30d',
  '#854d0e',
  '#1e3a8a',
  '#0f766e',
] as const;

/** "other" and other catch-alls: a grey no name hashes to */
export const NEUTRAL = '#6b7280';

/** FNV-1a: tiny, stable across browsers and releases, and spreads similar names (gpt-4o, gpt-4o-mini) apart */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export const colorFor = (name: string): string => PALETTE[hash(name) % PALETTE.length]!;
