// GET /traces, the parts that do not touch a store: the filter, the order and the field groups as
// the query parameters give them (the spec has checked their shape), and a listed trace's totals.
export interface TraceListFilter {
  userId?: string;
  name?: string;
  sessionId?: string;
  /** inclusive */
  fromTimestamp?: Date;
  /** exclusive */
  toTimestamp?: Date;
  /** every one of these */
  tags?: string[];
  version?: string;
  release?: string;
  environment?: string[];
}

/** the stored column a list may be ordered by */
export type TraceOrderColumn = 'id' | 'timestamp' | 'name' | 'user_id' | 'release' | 'version' | 'public' | 'session_id';

export interface TraceOrder {
  column: TraceOrderColumn;
  direction: 'asc' | 'desc';
}

const ORDER_COLUMNS: Record<string, TraceOrderColumn> = {
  id: 'id',
  timestamp: 'timestamp',
  name: 'name',
  userId: 'user_id',
  release: 'release',
  version: 'version',
  public: 'public',
  // Tally keeps no bookmarks: every trace is unbookmarked, so the order falls to the time
  bookmarked: 'timestamp',
  sessionId: 'session_id',
};

/** `field.direction` (the spec's pattern); none: newest first */
export function parseTraceOrder(orderBy: string | undefined): TraceOrder {
  if (!orderBy) return { column: 'timestamp', direction: 'desc' };
  const [field, direction] = orderBy.split('.');
  return { column: ORDER_COLUMNS[field!]!, direction: direction === 'asc' ? 'asc' : 'desc' };
}

export type TraceFieldGroup = 'core' | 'io' | 'scores' | 'observations' | 'metrics';

/** the `fields` parameter (the spec's pattern): the groups asked for; none: all */
export function parseTraceFields(fields: string | undefined): Set<TraceFieldGroup> {
  if (!fields) return new Set(['core', 'io', 'scores', 'observations', 'metrics']);
  return new Set(['core', ...fields.split(',').map((f) => f.trim() as TraceFieldGroup)]);
}

/** a trace's observations as the list needs them */
export interface TraceTotals {
  observationIds: string[];
  /** Σ total cost, in USD */
  totalCost: number;
  /** ms */
  firstStart: number | null;
  /** ms: the latest end, or start where an observation has no end */
  lastEnd: number | null;
}

/** seconds from the first start to the last end, as trace_get gives it; null without observations */
export const traceLatency = (t: TraceTotals | undefined): number | null =>
  t && t.firstStart !== null && t.lastEnd !== null ? (t.lastEnd - t.firstStart) / 1000 : null;
