// The dashboard's time range: a preset counted back from now or whole custom UTC days, the
// bucket that fits it (minutes for an hour, hours for a day, days up to a quarter), and every
// bucket label the server uses for it, so empty buckets still get a bar.
import type { MetricsGranularity } from '../../../../sdk/index.ts';

export type Bucket = Exclude<MetricsGranularity, 'auto'>;

const HOUR = 3_600_000;
const DAY = 86_400_000;

export const PRESETS = {
  '1h': { label: 'Last hour', ms: HOUR, bucket: 'minute' },
  '24h': { label: 'Last 24 hours', ms: DAY, bucket: 'hour' },
  '7d': { label: 'Last 7 days', ms: 7 * DAY, bucket: 'day' },
  '14d': { label: 'Last 14 days', ms: 14 * DAY, bucket: 'day' },
  '30d': { label: 'Last 30 days', ms: 30 * DAY, bucket: 'day' },
  '90d': { label: 'Last 90 days', ms: 90 * DAY, bucket: 'day' },
  // from 00:00 UTC on the 1st of this month
  mtd: { label: 'Month to date', ms: null, bucket: 'day' },
} as const satisfies Record<string, { label: string; ms: number | null; bucket: Bucket }>;
export type Preset = keyof typeof PRESETS;
export const DEFAULT_PRESET: Preset = '7d';

export const isPreset = (r: string | undefined): r is Preset => r !== undefined && Object.hasOwn(PRESETS, r);

export type RangeChoice = { kind: 'preset'; preset: Preset } | { kind: 'custom'; from: string; to: string };

export interface TimeWindow {
  from: Date;
  /** inclusive, as the metrics API reads toTimestamp */
  to: Date;
  bucket: Bucket;
}

/** what is wrong with a custom range, and which of its two dates the message belongs to */
export interface RangeProblem {
  field: 'from' | 'to';
  message: string;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
export const FIRST_YEAR = 1970;
const MAX_YEARS = 10;

/**
 * A custom range's problem, or undefined when it can be queried. A date input passes through
 * every year typed so far (0002, 0020, 0202, 2026), each a valid date: a year outside
 * FIRST_YEAR..next year is taken as one still being typed.
 */
export function customProblem(from: string, to: string, now: Date): RangeProblem | undefined {
  const lastYear = now.getUTCFullYear() + 1;
  for (const [field, text] of [
    ['from', from],
    ['to', to],
  ] as const) {
    const m = DATE_RE.exec(text);
    if (!m) return { field, message: 'Pick both a from date and a to date.' };
    const year = Number(m[1]);
    if (year < FIRST_YEAR || year > lastYear) return { field, message: `Pick a year from ${FIRST_YEAR} to ${lastYear}.` };
    // Date rolls 2026-02-30 over into March; a real date survives the round trip
    if (new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) !== text) return { field, message: `${text} is not a date.` };
  }
  if (from > to) return { field: 'to', message: 'The from date must not be after the to date.' };
  if (Date.parse(to) - Date.parse(from) > MAX_YEARS * 366 * DAY) return { field: 'to', message: `Pick at most ${MAX_YEARS} years.` };
  return undefined;
}

/**
 * Enough buckets to see a shape, few enough that eight models × buckets stay under the
 * metrics API's 1000 rows (10 years of months is 121).
 */
export function bucketFor(spanMs: number): Bucket {
  if (spanMs <= 2 * HOUR) return 'minute';
  if (spanMs <= 3 * DAY) return 'hour';
  if (spanMs <= 100 * DAY) return 'day';
  if (spanMs <= 2 * 366 * DAY) return 'week';
  return 'month';
}

/** The UTC window of a choice; custom dates cover whole UTC days, both ends included. Throws a custom range's problem. */
export function resolveRange(choice: RangeChoice, now: Date): TimeWindow {
  if (choice.kind === 'preset') {
    const p = PRESETS[choice.preset];
    const from = p.ms === null ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) : new Date(now.getTime() - p.ms);
    return { from, to: now, bucket: p.bucket };
  }
  const problem = customProblem(choice.from, choice.to, now);
  if (problem) throw new Error(problem.message);
  // toTimestamp is inclusive on the server, so the last millisecond of the to-day, not the next midnight
  const from = new Date(`${choice.from}T00:00:00.000Z`);
  const to = new Date(`${choice.to}T23:59:59.999Z`);
  return { from, to, bucket: bucketFor(to.getTime() + 1 - from.getTime()) };
}

/** yyyy-mm-dd of a date in UTC (the server's buckets are UTC) */
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);

function bucketStart(bucket: Bucket, d: Date): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (bucket) {
    case 'minute':
      return new Date(Math.floor(d.getTime() / 60_000) * 60_000);
    case 'hour':
      return new Date(Math.floor(d.getTime() / HOUR) * HOUR);
    case 'day':
      return new Date(Date.UTC(y, m, d.getUTCDate()));
    case 'week': {
      // weeks start on Monday, as the server's do
      const day = new Date(Date.UTC(y, m, d.getUTCDate()));
      return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY);
    }
    case 'month':
      return new Date(Date.UTC(y, m, 1));
  }
}

function next(bucket: Bucket, d: Date): Date {
  switch (bucket) {
    case 'minute':
      return new Date(d.getTime() + 60_000);
    case 'hour':
      return new Date(d.getTime() + HOUR);
    case 'day':
      return new Date(d.getTime() + DAY);
    case 'week':
      return new Date(d.getTime() + 7 * DAY);
    case 'month':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  }
}

/** a bucket's label as the server writes it: a date for day, week and month; `…T10:00:00Z` below a day */
export const bucketLabel = (bucket: Bucket, d: Date): string =>
  bucket === 'minute' || bucket === 'hour' ? d.toISOString().replace(/\.000Z$/, 'Z') : utcDay(d);

/** Every bucket from the window's first to its last (the server fills only up to the last, not including it). */
export function bucketsOf(w: TimeWindow): string[] {
  const out: string[] = [];
  const end = w.to.getTime();
  // a guard, not a limit: the buckets are chosen to be at most a few hundred
  for (let b = bucketStart(w.bucket, w.from); b.getTime() <= end && out.length < 2000; b = next(w.bucket, b))
    out.push(bucketLabel(w.bucket, b));
  return out;
}

/** how a bucket label reads on the axis and in the numbers table: UTC, without the seconds */
export const displayBucket = (label: string): string => (label.includes('T') ? label.slice(0, 16).replace('T', ' ') : label);

/** the axis's reading: the year goes, for minutes and hours the date shortens to month-day */
export const axisBucket = (label: string): string => (label.includes('T') ? label.slice(5, 16).replace('T', ' ') : label);
