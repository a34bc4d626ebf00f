// The user and session of each listed generation's trace. An observation in the list does not
// carry them (nor does Langfuse's), but the observations table keeps its trace's user and
// session: one metrics query over the page's own time span, grouped by trace, answers for the
// whole page at once instead of one trace read per row.
import type { MetricsQuery, Observation } from '../../../../sdk/index.ts';
import type { Tally } from '../../api.ts';

export type TraceFacts = Map<string, { userId: string | null; sessionId: string | null }>;

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

export async function loadTraceFacts(tally: Tally, observations: Observation[]): Promise<TraceFacts> {
  const ids = [...new Set(observations.map((o) => o.traceId).filter((id): id is string => !!id))];
  const facts: TraceFacts = new Map();
  if (!ids.length) return facts;
  const starts = observations.map((o) => Date.parse(o.startTime));
  const query: MetricsQuery = {
    view: 'observations',
    dimensions: [{ field: 'traceId' }, { field: 'userId' }, { field: 'sessionId' }],
    metrics: [{ measure: 'count', aggregation: 'count' }],
    filters: [{ column: 'traceId', operator: 'any of', value: ids, type: 'stringOptions' }],
    // grouping by a trace id is allowed only with a row limit and an order on a measure
    orderBy: [{ field: 'count_count', direction: 'desc' }],
    config: { row_limit: 1000 },
    fromTimestamp: new Date(Math.min(...starts)).toISOString(),
    toTimestamp: new Date(Math.max(...starts) + 1).toISOString(),
  };
  const { data } = await tally.metrics.query({ query: { query: JSON.stringify(query) } });
  for (const row of data.data) {
    const id = text(row.traceId);
    if (id && !facts.has(id)) facts.set(id, { userId: text(row.userId), sessionId: text(row.sessionId) });
  }
  return facts;
}
