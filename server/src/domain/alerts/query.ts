// An alert as metrics v2 queries: its metric over the window, per group as a top-N (the groups with
// the largest values: cardinality stays bounded however many users there are), and in baseline
// mode the same over the 7 days before; then each group's value, or its ratio to its own average.
import type { MetricsQueryInput } from '../metrics/index.ts';
import type { AlertDefinition } from './types.ts';
import type { TimeWindow } from './window.ts';

/** the metric's column in a metrics v2 row */
export const metricAlias = (a: AlertDefinition) => `${a.query.metric.aggregation}_${a.query.metric.measure}`;

export function alertQuery(a: AlertDefinition, w: TimeWindow): MetricsQueryInput {
  const alias = metricAlias(a);
  return {
    view: a.query.view,
    metrics: [{ measure: a.query.metric.measure, aggregation: a.query.metric.aggregation }],
    filters: a.query.filters,
    dimensions: a.groupBy ? [{ field: a.groupBy.field }] : [],
    ...(a.groupBy ? { orderBy: [{ field: alias, direction: 'desc' as const }], config: { row_limit: a.groupBy.topN } } : {}),
    fromTimestamp: w.from.toISOString(),
    toTimestamp: w.to.toISOString(),
  } as MetricsQueryInput;
}

const groupOf = (a: AlertDefinition, r: Record<string, unknown>) => (a.groupBy ? String(r[a.groupBy.field] ?? '') : '');
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * Each group's value from the rows of alertQuery. In baseline mode the value is divided by the
 * group's own average per window over the 7 days before (its 7-day total over `spans` windows): a
 * group with no history, or none of the metric, has no ratio (null).
 */
export function groupValues(
  a: AlertDefinition,
  rows: Record<string, unknown>[],
  baseline?: { rows: Record<string, unknown>[]; spans: number },
): Map<string, number | null> {
  const alias = metricAlias(a);
  const values = new Map(rows.map((r) => [groupOf(a, r), num(r[alias])]));
  if (!baseline) return values;
  const before = new Map(baseline.rows.map((r) => [groupOf(a, r), num(r[alias])]));
  const out = new Map<string, number | null>();
  for (const [group, value] of values) {
    const total = before.get(group) ?? null;
    out.set(group, value === null || !total || baseline.spans <= 0 ? null : value / (total / baseline.spans));
  }
  return out;
}

/**
 * what an alert definition may not be beyond what the spec's schema says (ranges, lengths) and the
 * egress check decides (the webhook URL); empty: fine
 */
export function alertProblems(a: AlertDefinition, minIntervalSeconds: number): string[] {
  const out: string[] = [];
  const { condition } = a;
  if (condition.warning !== null && !(condition.warning < condition.alert))
    out.push('condition.warning must be below condition.alert (it is crossed first)');
  if (a.intervalSeconds < minIntervalSeconds) out.push(`intervalSeconds must be at least ${minIntervalSeconds}`);
  if (a.baseline && !['sum', 'count'].includes(a.query.metric.aggregation))
    out.push('baseline compares totals: the metric must be a sum or a count');
  return out;
}
