// The window a reprice job covers: a preset counted back from now, or whole UTC days picked by
// hand, both included (the job reports per UTC day, so a day is the unit a person thinks in).
// Checked here so that a window the server would refuse is never sent.

export const WINDOW_CHOICES = [
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: 'month', label: 'This month' },
  { value: 'custom', label: 'Custom days' },
] as const;
export type WindowChoice = (typeof WINDOW_CHOICES)[number]['value'];

export interface WindowDraft {
  choice: WindowChoice;
  /** YYYY-MM-DD, the first day (UTC); custom only */
  from: string;
  /** YYYY-MM-DD, the last day (UTC), included; custom only */
  to: string;
}

export interface RepriceWindow {
  fromTimestamp: string;
  toTimestamp: string;
}

export interface WindowErrors {
  from?: string;
  to?: string;
}

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** midnight UTC of a YYYY-MM-DD day, or why the text is not one */
function parseDay(text: string, what: string): { at?: Date; error?: string } {
  if (!text) return { error: `Pick the ${what}` };
  if (!DATE.test(text)) return { error: `"${text}" is not a date (YYYY-MM-DD)` };
  const at = new Date(`${text}T00:00:00Z`);
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  // engines roll 2026-02-30 over to March 2 rather than refuse it
  if (Number.isNaN(at.getTime()) || at.getUTCMonth() !== m - 1 || at.getUTCDate() !== d) return { error: `"${text}" is not a real date` };
  // a date being typed passes through years like 0002: valid, but never meant
  if (y < 1970) return { error: `The year ${y} is before 1970` };
  return { at };
}

/** The instants to send for a draft at `now`, or the problems to show next to the day fields. */
export function resolveWindow(d: WindowDraft, now: Date): { window?: RepriceWindow; errors: WindowErrors } {
  if (d.choice !== 'custom') {
    const from =
      d.choice === 'month'
        ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
        : new Date(now.getTime() - (d.choice === '7d' ? 7 : 30) * DAY_MS);
    return { window: { fromTimestamp: from.toISOString(), toTimestamp: now.toISOString() }, errors: {} };
  }
  const from = parseDay(d.from, 'first day');
  const to = parseDay(d.to, 'last day');
  const errors: WindowErrors = {};
  if (from.error) errors.from = from.error;
  if (to.error) errors.to = to.error;
  if (from.at && from.at.getTime() > now.getTime()) errors.from = 'The first day is in the future: no generation has started then yet';
  if (from.at && to.at && to.at < from.at) errors.to = 'The last day is before the first day';
  if (errors.from || errors.to || !from.at || !to.at) return { errors };
  return { window: { fromTimestamp: from.at.toISOString(), toTimestamp: new Date(to.at.getTime() + DAY_MS).toISOString() }, errors };
}

const isMidnight = (d: Date) => d.getTime() % DAY_MS === 0;

/** "2026-10-01 – 2026-10-31" for whole UTC days, else both instants to the minute */
export function windowText(fromTimestamp: string, toTimestamp: string): string {
  const from = new Date(fromTimestamp);
  const to = new Date(toTimestamp);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) return `${fromTimestamp} – ${toTimestamp}`;
  if (isMidnight(from) && isMidnight(to)) {
    const last = new Date(to.getTime() - DAY_MS).toISOString().slice(0, 10);
    const first = from.toISOString().slice(0, 10);
    return first === last ? `${first} (UTC)` : `${first} – ${last} (UTC)`;
  }
  const minute = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
  return `${minute(from)} – ${minute(to)} UTC`;
}
