// How GET /traces counts the matching traces (meta.totalItems) from trace_counts (the per-hour
// counts by environment and name, and per tag, that PostgreSQL keeps in step with the traces):
// the whole hours of the window from the counts, the partial hours at its edges from the traces.
// A filter the counts do not hold (user, session, version, release, two tags or more) counts the
// traces themselves.
import type { TraceListFilter } from './list.ts';

const HOUR_MS = 3_600_000;

/** [from, to): null is unbounded */
export interface TimeRange {
  from: Date | null;
  to: Date | null;
}

export interface TraceCountPlan {
  /** the whole hours summed from trace_counts (hour >= from, hour < to), or none */
  hours: TimeRange | null;
  /** the ranges counted from the traces themselves: the partial hours at the window's edges */
  edges: TimeRange[];
  /** the tag whose counts are read; null: the traces' own counts */
  tag: string | null;
}

/** the plan of a count from trace_counts, or null when the filter needs the traces themselves */
export function traceCountPlan(f: TraceListFilter): TraceCountPlan | null {
  // (an empty value filters nothing, as in the list's own conditions)
  if (f.userId || f.sessionId || f.version || f.release) return null;
  if ((f.tags?.length ?? 0) > 1) return null;
  const tag = f.tags?.[0] ?? null;
  const from = f.fromTimestamp ?? null;
  const to = f.toTimestamp ?? null;
  // the first whole hour at or after `from`; the end of the last whole hour at or before `to`
  const hourFrom = from && new Date(Math.ceil(from.getTime() / HOUR_MS) * HOUR_MS);
  const hourTo = to && new Date(Math.floor(to.getTime() / HOUR_MS) * HOUR_MS);
  if (hourFrom && hourTo && hourFrom >= hourTo) return { hours: null, edges: from! < to! ? [{ from, to }] : [], tag };
  const edges: TimeRange[] = [];
  if (from && hourFrom! > from) edges.push({ from, to: hourFrom });
  if (to && hourTo! < to) edges.push({ from: hourTo, to });
  return { hours: { from: hourFrom, to: hourTo }, edges, tag };
}
