// Stage 2: decisions about a parsed query that do not depend on SQL. The concrete time
// granularity, the order (explicit or default), whether empty buckets are filled, and the
// source: the roll-ups for the whole hours of the window (the daily one for its whole UTC days
// when the buckets are days or longer, the hourly one for the other whole hours) plus the base
// table for the partial hours at its edges, or the base table alone.
import { wholeDays, type Bucket } from './granularity.ts';
import type { ParsedMetric, ParsedQuery } from './parse.ts';
import { TIME_ALIAS } from './parse.ts';
import { ROLLUP_KEYS, USER_ROLLUP_KEYS } from './rollup.ts';

export interface OrderTerm {
  /** output name: a dimension field, a metric alias or time_dimension */
  field: string;
  direction: 'asc' | 'desc';
  /** nulls first (by default nulls come last) */
  nulls?: 'first';
}

export interface Plan {
  query: ParsedQuery;
  bucket: Bucket | null;
  order: OrderTerm[];
  /** fill empty time buckets (a time series without explicit orderBy) */
  fill: boolean;
  /**
   * whole hours [from, to) read from the roll-ups; of them, the whole UTC days [days.from,
   * days.to) from the daily one. null: the base table only. `keys: 'user'` (ClickHouse only):
   * the day × model × user roll-up, whole days only (from = days.from, to = days.to)
   */
  rollup: { from: Date; to: Date; days: { from: Date; to: Date } | null; keys: 'main' | 'user' } | null;
  /** metrics of the main query; histograms are computed by queries of their own */
  scalars: ParsedMetric[];
  histograms: ParsedMetric[];
}

const HOUR = 3_600_000;
const DAY = 86_400_000;
const ROLLUP_AGGREGATIONS = new Set(['sum', 'count', 'avg']);
const ROLLUP_FILTER_TYPES = new Set(['string', 'stringOptions', 'null']);

/** `auto` aims at about 50 buckets, as Langfuse's does */
export function autoBucket(from: Date, to: Date): Bucket {
  const hours = (to.getTime() - from.getTime()) / HOUR;
  if (hours < 2) return 'minute';
  if (hours < 72) return 'hour';
  if (hours < 1440) return 'day';
  if (hours < 8760) return 'week';
  return 'month';
}

function defaultOrder(q: ParsedQuery, bucket: Bucket | null, scalars: ParsedMetric[]): OrderTerm[] {
  if (bucket) return [{ field: TIME_ALIAS, direction: 'asc' }];
  if (scalars.length) return [{ field: scalars[0]!.alias, direction: 'desc' }];
  if (q.dimensions.length) return [{ field: q.dimensions[0]!.field, direction: 'asc' }];
  return [];
}

/** the roll-up keyed by `keys` can answer the query exactly: additive measures over those keys only */
export function rollupServes(
  q: ParsedQuery,
  bucket: Bucket | null,
  scalars: ParsedMetric[],
  keys: readonly string[] = ROLLUP_KEYS,
): boolean {
  const keyed = (k: string | undefined) => k !== undefined && keys.includes(k);
  return (
    q.view.name === 'observations' &&
    bucket !== 'minute' &&
    q.dimensions.every((d) => keyed(d.dimension.rollup)) &&
    scalars.every((m) => m.measure.rollup && ROLLUP_AGGREGATIONS.has(m.aggregation)) &&
    q.filters.every((f) => ROLLUP_FILTER_TYPES.has(f.type) && keyed(q.view.dimensions[f.target]?.rollup))
  );
}

export interface PlanOptions {
  useRollup: boolean;
  /** the store keeps the day × model × user roll-up (ClickHouse) */
  userRollup?: boolean;
}

export function planQuery(q: ParsedQuery, opts: PlanOptions = { useRollup: true }): Plan {
  const { window } = q;
  // a query without a window (Tally's own) names its bucket: `auto` picks by the window
  const bucket = q.granularity === 'auto' ? autoBucket(window!.from, window!.to) : q.granularity;
  const scalars = q.metrics.filter((m) => m.aggregation !== 'histogram');
  const histograms = q.metrics.filter((m) => m.aggregation === 'histogram');
  let rollup: Plan['rollup'] = null;
  if (opts.useRollup && window && rollupServes(q, bucket, scalars)) {
    // whole hours inside [from, to]: `to` is inclusive, so its own hour is whole only if it ends at to
    const from = new Date(Math.ceil(window.from.getTime() / HOUR) * HOUR);
    const to = new Date(Math.floor((window.to.getTime() + 1) / HOUR) * HOUR);
    if (from < to) {
      const dayFrom = new Date(Math.ceil(from.getTime() / DAY) * DAY),
        dayTo = new Date(Math.floor(to.getTime() / DAY) * DAY);
      // the daily roll-up serves buckets made of whole UTC days, or no buckets at all
      const daily = bucket === null || wholeDays(bucket);
      rollup = { from, to, days: daily && dayFrom < dayTo ? { from: dayFrom, to: dayTo } : null, keys: 'main' };
    }
  } else if (
    opts.useRollup &&
    opts.userRollup &&
    window &&
    (bucket === null || wholeDays(bucket)) &&
    rollupServes(q, bucket, scalars, USER_ROLLUP_KEYS)
  ) {
    // whole UTC days only: the rest of the window is read from the base table
    const from = new Date(Math.ceil(window.from.getTime() / DAY) * DAY);
    const to = new Date(Math.floor((window.to.getTime() + 1) / DAY) * DAY);
    if (from < to) rollup = { from, to, days: { from, to }, keys: 'user' };
  }
  return {
    query: q,
    bucket,
    scalars,
    histograms,
    rollup,
    order: q.orderBy ?? defaultOrder(q, bucket, scalars),
    fill: bucket !== null && q.orderBy === null && window !== null,
  };
}
