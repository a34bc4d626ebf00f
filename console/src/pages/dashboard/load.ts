// The dashboard's call, a metrics v2 query, re-sent only when what it asks changes (the query's
// JSON is the key), and what keeps a chart built from several answers steady between them.
import { useRef } from 'react';
import { useTally } from '../../api.ts';
import { type Loaded, useLoad } from '../../hooks.ts';
import type { MetricsQuery, Row } from './queries.ts';

export interface Metrics extends Loaded<Row[] | undefined> {
  /** the rows answer the query as it is now (`data` may still be the last query's while the new one loads) */
  fresh: boolean;
}

/** one metrics v2 query; null (a range not valid yet, or rows another query must give first) sends nothing */
export function useMetrics(query: MetricsQuery | null): Metrics {
  const tally = useTally();
  const key = query ? JSON.stringify(query) : '';
  const loaded = useLoad<{ key: string; rows: Row[] } | undefined>(async () => {
    if (!key) return undefined;
    const { data } = await tally.metrics.query({ query: { query: key } });
    return { key, rows: data.data };
  }, [key]);
  return { ...loaded, data: loaded.data?.rows, fresh: key !== '' && loaded.data?.key === key };
}

/**
 * The last value that was not undefined: a chart built from several answers keeps showing the
 * last complete one while the next is asked for, as a single query's stale rows do, rather than
 * blinking to "Loading…" (and losing the reader's place in its numbers table).
 */
export function useLastComplete<T>(value: T | undefined): T | undefined {
  const last = useRef(value);
  if (value !== undefined) last.current = value;
  return last.current;
}
