// Time granularity of a metrics query, in one place: the spec's MetricsGranularity (`auto` or a
// bucket), and what each bucket is. The planner picks the bucket (and which buckets the daily
// roll-up serves), the compiler renders it, the shape stage labels and fills buckets, the schema
// endpoint lists the granularities: all from here.
import { MetricsGranularityValues, type MetricsGranularity } from '../../../../generated/enums.ts';

export type Granularity = MetricsGranularity;
/** every granularity a query may ask for, in the spec's order */
export const GRANULARITIES: readonly Granularity[] = MetricsGranularityValues;

/** a concrete bucket (`auto` resolved) */
export type Bucket = Exclude<Granularity, 'auto'>;

export type StrideUnit = 'minute' | 'hour' | 'day';

export const UNIT_MS: Record<StrideUnit, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * Each bucket as a fixed stride from 0001-01-01 UTC (a Monday, so weeks start on Mondays), or
 * null for calendar months (not a fixed stride).
 */
export const STRIDES: Record<Bucket, { count: number; unit: StrideUnit } | null> = {
  minute: { count: 1, unit: 'minute' },
  hour: { count: 1, unit: 'hour' },
  day: { count: 1, unit: 'day' },
  week: { count: 7, unit: 'day' },
  month: null,
};

/** the length of a fixed-stride bucket in ms (undefined for months) */
export function strideMs(bucket: Bucket): number | undefined {
  const s = STRIDES[bucket];
  return s ? s.count * UNIT_MS[s.unit] : undefined;
}

/** buckets made of whole UTC days (day, week, month): labelled by their date, served by the daily roll-up */
export const wholeDays = (bucket: Bucket): boolean => (STRIDES[bucket]?.unit ?? 'day') === 'day';
