// The explorer's time range, as the URL holds it: no range (all time), a preset counted back from
// now when the page loads, or custom from/to instants. Dates from a link (`2026-11-22`) cover
// whole UTC days; a date-time without a zone is UTC, as the console shows every time.
import type { ExplorerFilters } from '../../links.ts';

export const PRESETS = {
  '1h': { label: 'Last hour', ms: 3_600_000 },
  '24h': { label: 'Last 24 hours', ms: 86_400_000 },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000 },
  '14d': { label: 'Last 14 days', ms: 14 * 86_400_000 },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000 },
  '90d': { label: 'Last 90 days', ms: 90 * 86_400_000 },
  // from 00:00 UTC on the 1st of this month (the dashboard's presets, so its links carry over)
  mtd: { label: 'Month to date', ms: null },
} as const satisfies Record<string, { label: string; ms: number | null }>;
export type Preset = keyof typeof PRESETS;

export const isPreset = (r: string | undefined): r is Preset => r !== undefined && Object.hasOwn(PRESETS, r);

export interface Window {
  from?: string;
  to?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * An instant from the URL, or why not. `end` makes a bare date mean the end of that day. Years
 * before 1970 are refused here: a date input being typed passes through years like 0002, which
 * are valid dates but never what anyone means.
 */
export function parseInstant(text: string, end = false): { at?: Date; error?: string } {
  let at: Date;
  if (DATE.test(text)) {
    at = new Date(`${text}T00:00:00Z`);
    if (end) at = new Date(at.getTime() + 86_400_000);
  } else if (DATE_TIME.test(text)) {
    at = new Date(/Z|[+-]\d{2}:\d{2}$/.test(text) ? text : `${text}Z`);
  } else {
    return { error: `"${text}" is not a date (YYYY-MM-DD) or a date and time (YYYY-MM-DDTHH:MM)` };
  }
  // engines roll 2026-02-30 over to March 2 rather than refuse it
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (Number.isNaN(at.getTime()) || new Date(Date.UTC(y, m - 1, d)).getUTCDate() !== d) return { error: `"${text}" is not a real date` };
  const year = at.getUTCFullYear();
  if (year < 1970 || year > 9999) return { error: `the year ${String(year).padStart(4, '0')} is not between 1970 and 9999` };
  return { at };
}

/** the window the filters select (empty: all time), or why it cannot be queried yet */
export function resolveWindow(f: ExplorerFilters, now: Date): { window?: Window; error?: string } {
  if (isPreset(f.range)) {
    const ms = PRESETS[f.range].ms;
    const from = ms === null ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) : new Date(now.getTime() - ms);
    return { window: { from: from.toISOString() } };
  }
  if (f.range !== 'custom' && !f.from && !f.to) return { window: {} };
  const from = f.from ? parseInstant(f.from) : {};
  const to = f.to ? parseInstant(f.to, true) : {};
  if (from.error) return { error: `From: ${from.error}` };
  if (to.error) return { error: `To: ${to.error}` };
  if (from.at && to.at && from.at >= to.at) return { error: 'From must be before To' };
  return { window: { from: from.at?.toISOString(), to: to.at?.toISOString() } };
}

/** a datetime-local input's value (UTC) for what the URL holds, so the field shows it */
export function inputValue(text: string | undefined, end = false): string {
  if (!text) return '';
  const { at } = parseInstant(text, end);
  // seconds only when there are some: a dashboard link's window ends at a millisecond, and
  // rounding it to the minute would leave out that minute's calls
  return at
    ? at
        .toISOString()
        .slice(0, 23)
        .replace(/\.000$/, '')
        .replace(/:00$/, '')
    : text;
}
