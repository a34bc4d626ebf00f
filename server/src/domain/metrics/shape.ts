// Stage 5: database rows → the response rows. Names come back (d0 → providedModelName, m0 →
// sum_totalCost, t → time_dimension), numbers become numbers (PostgreSQL's numeric arrives as
// text), histogram bins are attached to their group, and a time series without explicit
// orderBy gets its empty buckets filled.
import { TIME_ALIAS } from './parse.ts';
import { strideMs, UNIT_MS, wholeDays, type Bucket } from './granularity.ts';
import type { Plan } from './plan.ts';

export type Row = Record<string, unknown>;
export type HistogramRow = Row & { lower: unknown; upper: unknown; n: unknown };

const DAY = UNIT_MS.day;

/** the start of the bucket holding `d`, as PostgreSQL's date_trunc(bucket, d, 'UTC') */
export function bucketStart(bucket: Bucket, d: Date): Date {
  const t = d.getTime();
  switch (bucket) {
    case 'month':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
    case 'week': {
      const day = Math.floor(t / DAY) * DAY;
      const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
      return new Date(day - sinceMonday * DAY);
    }
    default:
      return new Date(Math.floor(t / strideMs(bucket)!) * strideMs(bucket)!);
  }
}

const nextBucket = (bucket: Bucket, d: Date) =>
  bucket === 'month' ? new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)) : new Date(d.getTime() + strideMs(bucket)!);

/** date only for day/week/month buckets, date-time with Z for minute/hour (as Langfuse answers) */
export function formatBucket(bucket: Bucket, d: Date): string {
  const iso = d.toISOString();
  return wholeDays(bucket) ? iso.slice(0, 10) : iso.replace(/\.000Z$/, 'Z');
}

const toDate = (v: unknown) =>
  v instanceof Date
    ? v
    : new Date(
        String(v)
          .replace(' ', 'T')
          .replace(/([+-]\d\d)$/, '$1:00'),
      );
const toNumber = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function dimensionValue(type: string, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (type === 'number') return Number(v);
  if (type === 'boolean') return v === true || v === 't' || v === 'true';
  return v;
}

export function shape(plan: Plan, rows: Row[], histograms: { alias: string; rows: HistogramRow[] }[]): Row[] {
  const { dimensions } = plan.query;
  const keyOf = (r: Row) => JSON.stringify([...dimensions.map((_, i) => r[`d${i}`]), plan.bucket ? toDate(r.t).getTime() : null]);
  const bins = histograms.map((h) => {
    const byKey = new Map<string, [number, number, number][]>();
    for (const r of h.rows) {
      const k = keyOf(r);
      const list = byKey.get(k) ?? [];
      list.push([Number(r.lower), Number(r.upper), Number(r.n)]);
      byKey.set(k, list);
    }
    return { alias: h.alias, byKey };
  });

  let out: Row[] = rows.map((r) => {
    const row: Row = {};
    dimensions.forEach((d, i) => {
      row[d.field] = dimensionValue(d.dimension.type, r[`d${i}`]);
    });
    if (plan.bucket) row[TIME_ALIAS] = formatBucket(plan.bucket, toDate(r.t));
    if (!plan.query.metrics.length) row.count = toNumber(r.m0);
    const k = keyOf(r);
    for (const m of plan.query.metrics) {
      if (m.aggregation === 'histogram') row[m.alias] = bins.find((b) => b.alias === m.alias)!.byKey.get(k) ?? [];
      else row[m.alias] = toNumber(r[`m${plan.scalars.indexOf(m)}`]);
    }
    return row;
  });

  if (plan.fill && plan.bucket) out = fillGaps(plan, out);
  if (plan.fill && plan.query.rowLimit !== null) out = out.slice(0, plan.query.rowLimit);
  return out;
}

/**
 * ClickHouse's WITH FILL FROM bucket(from) TO bucket(to): every bucket from the first up to,
 * not including, the bucket of `to` appears; a missing one as a row of zero metrics and
 * empty-string dimensions. Rows arrive ordered by time.
 */
function fillGaps(plan: Plan, rows: Row[]): Row[] {
  const bucket = plan.bucket!;
  const seen = new Set(rows.map((r) => r[TIME_ALIAS]));
  const filler = (label: string): Row => {
    const row: Row = {};
    for (const d of plan.query.dimensions) row[d.field] = '';
    row[TIME_ALIAS] = label;
    if (!plan.query.metrics.length) row.count = 0;
    for (const m of plan.query.metrics) row[m.alias] = m.aggregation === 'histogram' ? [] : 0;
    return row;
  };
  const missing: Row[] = [];
  const { from, to } = plan.query.window!; // filling needs a window (plan.ts)
  const end = bucketStart(bucket, to).getTime();
  for (let b = bucketStart(bucket, from); b.getTime() < end; b = nextBucket(bucket, b)) {
    const label = formatBucket(bucket, b);
    if (!seen.has(label)) missing.push(filler(label));
  }
  if (!missing.length) return rows;
  // ISO labels of one granularity sort as their instants do
  return [...rows, ...missing].sort((x, y) =>
    String(x[TIME_ALIAS]) < String(y[TIME_ALIAS]) ? -1 : String(x[TIME_ALIAS]) > String(y[TIME_ALIAS]) ? 1 : 0,
  );
}
