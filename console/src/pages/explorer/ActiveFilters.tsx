// What the list is narrowed to, each a link that drops it: a view arrived at from a link (a
// user's traces) says so, and is undone in one step.
import type { ExplorerFilters } from '../../links.ts';
import { inputValue, isPreset, PRESETS } from './time-range.ts';

const shown = (t: string | undefined, end = false) => (t ? inputValue(t, end).replace('T', ' ') : '…');

const LABELS: Partial<Record<keyof ExplorerFilters, string>> = {
  user: 'user',
  session: 'session',
  tag: 'tag',
  name: 'name',
  model: 'model',
  env: 'environment',
  costStatus: 'cost status',
};

export function ActiveFilters({ filters, href }: { filters: ExplorerFilters; href: (f: ExplorerFilters) => string }) {
  const chips: Array<{ key: string; text: string; without: ExplorerFilters }> = [];
  const base = { ...filters, page: undefined };
  for (const [k, label] of Object.entries(LABELS) as Array<[keyof ExplorerFilters, string]>) {
    if (filters[k]) chips.push({ key: k, text: `${label}: ${filters[k]}`, without: { ...base, [k]: undefined } });
  }
  if (isPreset(filters.range)) chips.push({ key: 'range', text: PRESETS[filters.range].label, without: { ...base, range: undefined } });
  else if (filters.from || filters.to)
    chips.push({
      key: 'range',
      text: `${shown(filters.from)} to ${shown(filters.to, true)} UTC`,
      without: { ...base, range: undefined, from: undefined, to: undefined },
    });
  if (!chips.length) return null;
  return (
    <ul className="active-filters" aria-label="Active filters">
      {chips.map((c) => (
        <li key={c.key}>
          <a href={href(c.without)} aria-label={`Remove filter ${c.text}`} title="Remove this filter">
            {c.text} <span aria-hidden="true">×</span>
          </a>
        </li>
      ))}
      {chips.length > 1 ? (
        <li>
          <a href={href(filters.sort ? { sort: filters.sort } : {})}>Clear all</a>
        </li>
      ) : null}
    </ul>
  );
}
