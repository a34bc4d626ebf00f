// Pure pieces of the dashboard: a chosen range → the metrics v2 queries it sends, and the rows
// that come back → chart series (every day present, the long tail folded into "other").
// Kept free of React so the tests can check the exact queries and the folding.
import type { MetricsQuery, MetricsResponse } from '../../../../sdk/index.ts';

export type Preset = '24h' | '7d' | '30d';
export type RangeChoice = { kind: 'preset'; preset: Preset } | { kind: 'custom'; from: string; to: string };

export const PRESETS: Record<Preset, { label: string; ms: number }> = {
  '24h': { label: 'Last 24 hours', ms: 24 * 3_600_000 },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000 },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000 },
};

export interface TimeWindow {
  from: Date;
  to: Date;
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC window of a choice; custom dates cover whole UTC days, both ends included. */
export function resolveRange(choice: RangeChoice, now: Date): TimeWindow {
  if (choice.kind === 'preset') return { from: new Date(now.getTime() - PRESETS[choice.preset].ms), to: now };
  if (!DATE_RE.test(choice.from) || !DATE_RE.test(choice.to)) throw new Error('Pick both a from date and a to date.');
  if (choice.from > choice.to) throw new Error('The from date must not be after the to date.');
  // toTimestamp is inclusive on the server, so the last millisecond of the to-day, not the next midnight
  return { from: new Date(`${choice.from}T00:00:00.000Z`), to: new Date(`${choice.to}T23:59:59.999Z`) };
}

/** yyyy-mm-dd of a date in UTC (the server's day buckets are UTC) */
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/** Every UTC day from the window's first to its last, as the server labels day buckets. */
export function daysOf(w: TimeWindow): string[] {
  const out: string[] = [];
  let t = Date.parse(`${utcDay(w.from)}T00:00:00Z`);
  const end = w.to.getTime();
  // guard against a reversed or absurd window: the server answers 400 for those anyway
  for (let i = 0; t <= end && i < 1000; i++, t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

// the query and row shapes are the spec's (generated types), not restated here
export type { MetricsQuery };

function base(w: TimeWindow, environment: string | null): Pick<MetricsQuery, 'view' | 'filters' | 'fromTimestamp' | 'toTimestamp'> {
  return {
    view: 'observations' as const,
    filters: environment ? [{ column: 'environment', operator: '=' as const, value: environment, type: 'string' as const }] : [],
    fromTimestamp: w.from.toISOString(),
    toTimestamp: w.to.toISOString(),
  };
}

// Without orderBy a day series comes back in time order with its empty days filled; 1000 rows
// (the maximum) leaves room for 30 days × 30 models, the default 100 would cut a month short.
const perDay = { timeDimension: { granularity: 'day' as const }, config: { row_limit: 1000 } };

export function costByModelQuery(w: TimeWindow, environment: string | null): MetricsQuery {
  return {
    ...base(w, environment),
    dimensions: [{ field: 'providedModelName' }],
    metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
    ...perDay,
  };
}

/** usageByType walks each observation's usage map, one row per usage key (input, output, cached…) and day */
export function tokensByTypeQuery(w: TimeWindow, environment: string | null): MetricsQuery {
  return {
    ...base(w, environment),
    dimensions: [{ field: 'usageType' }],
    metrics: [{ measure: 'usageByType', aggregation: 'sum' }],
    ...perDay,
  };
}

/** userId is high-cardinality: the server wants a row limit and a desc order on a measure */
export function topByCostQuery(w: TimeWindow, environment: string | null, field: 'userId' | 'name', limit = 10): MetricsQuery {
  return {
    ...base(w, environment),
    dimensions: [{ field }],
    metrics: [
      { measure: 'totalCost', aggregation: 'sum' },
      { measure: 'count', aggregation: 'count' },
    ],
    orderBy: [{ field: 'sum_totalCost', direction: 'desc' }],
    config: { row_limit: limit },
  };
}

export function summaryQuery(w: TimeWindow, environment: string | null): MetricsQuery {
  return {
    ...base(w, environment),
    dimensions: [],
    metrics: [
      { measure: 'totalCost', aggregation: 'sum' },
      { measure: 'count', aggregation: 'count' },
      { measure: 'totalTokens', aggregation: 'sum' },
    ],
  };
}

/** the environments that have observations in the window, for the picker */
export function environmentsQuery(w: TimeWindow): MetricsQuery {
  return {
    ...base(w, null),
    dimensions: [{ field: 'environment' }],
    metrics: [{ measure: 'count', aggregation: 'count' }],
    config: { row_limit: 100 },
  };
}

export type Row = MetricsResponse['data'][number];

export interface ChartData {
  labels: string[];
  series: { label: string; values: number[] }[];
}

export const OTHER = 'other';

/**
 * Day rows (`{<dimension>, time_dimension, <metric>}`) → one series per dimension value over every
 * day of `days`: the `topN` largest by total kept, the rest summed into "other", values that
 * total zero (the server's gap-filling rows) dropped, and `skip` values (usage key `total`,
 * which would count tokens twice in a stack) left out.
 */
export function toDailySeries(
  rows: Row[],
  opts: {
    dimension: string;
    metric: string;
    days: string[];
    topN?: number;
    noneLabel: string;
    skip?: string[];
  },
): ChartData {
  const { dimension, metric, topN = 8, noneLabel, skip = [] } = opts;
  const labels = [...new Set([...opts.days, ...rows.map((r) => String(r.time_dimension ?? '')).filter(Boolean)])].sort();
  const byKey = new Map<string, Map<string, number>>();
  const totals = new Map<string, number>();
  for (const r of rows) {
    const raw = r[dimension];
    const value = Number(r[metric] ?? 0) || 0;
    if (value === 0) continue;
    const key = raw === null || raw === undefined || raw === '' ? noneLabel : String(raw);
    if (skip.includes(key)) continue;
    const day = String(r.time_dimension ?? '');
    const perDay = byKey.get(key) ?? new Map<string, number>();
    perDay.set(day, (perDay.get(day) ?? 0) + value);
    byKey.set(key, perDay);
    totals.set(key, (totals.get(key) ?? 0) + value);
  }
  const ranked = [...totals.keys()].sort((a, b) => totals.get(b)! - totals.get(a)! || a.localeCompare(b));
  // folding a single leftover into "other" would only rename it
  const kept = ranked.length > topN + 1 ? ranked.slice(0, topN) : ranked;
  const folded = ranked.slice(kept.length);
  const series = kept.map((k) => ({ label: k, values: labels.map((d) => byKey.get(k)!.get(d) ?? 0) }));
  if (folded.length) {
    series.push({
      label: kept.includes(OTHER) ? `${OTHER} (${folded.length} more)` : OTHER,
      values: labels.map((d) => folded.reduce((s, k) => s + (byKey.get(k)!.get(d) ?? 0), 0)),
    });
  }
  return { labels, series };
}
