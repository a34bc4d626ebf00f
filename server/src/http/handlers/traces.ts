// GET /traces: one page of traces with their observation and score ids, cost and latency. A window
// reaching past PostgreSQL's retention (or none) is answered from ClickHouse, which holds every row.
import { parseTraceFields, parseTraceOrder, type TraceListFilter } from '../../domain/traces/list.ts';
import { kysely } from '../../store/sql.ts';
import { listTraces, traceScoreIds, traceTotals } from '../../store/traces.ts';
import { paginated, pagination, projectOf, type OperationHandler } from '../handler.ts';
import { presentListedTrace } from '../present/observation.ts';

const many = (v: string | string[] | undefined) => (v === undefined ? undefined : ([] as string[]).concat(v));

export const traceList: OperationHandler<'trace_list'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const { page, limit } = pagination(ctx.query);
  const q = ctx.query;
  const filter: TraceListFilter = {
    userId: q.userId,
    name: q.name,
    sessionId: q.sessionId,
    version: q.version,
    release: q.release,
    tags: many(q.tags),
    environment: many(q.environment),
    fromTimestamp: q.fromTimestamp ? new Date(q.fromTimestamp) : undefined,
    toTimestamp: q.toTimestamp ? new Date(q.toTimestamp) : undefined,
  };
  const order = parseTraceOrder(q.orderBy);
  const fields = parseTraceFields(q.fields);
  const archive = ctx.services.analytics?.archive;
  const reachesPast =
    archive && (!filter.fromTimestamp || filter.fromTimestamp.getTime() < Date.now() - archive.retentionDays * 86_400_000);
  const db = kysely(ctx.em);
  const store = reachesPast
    ? {
        list: (p: string, f: TraceListFilter, o: typeof order, pg: number, l: number) => {
          const listed = archive.listTraces(p, f, o, pg, l);
          return { traces: listed.then((r) => r.traces), total: listed.then((r) => r.total) };
        },
        totals: archive.traceTotals,
        scores: archive.traceScoreIds,
      }
    : {
        list: (p: string, f: TraceListFilter, o: typeof order, pg: number, l: number) => listTraces(db, p, f, o, pg, l),
        totals: (p: string, ids: string[]) => traceTotals(db, p, ids),
        scores: (p: string, ids: string[]) => traceScoreIds(db, p, ids),
      };
  // the count runs while the page's totals and scores are read
  const listed = store.list(projectId, filter, order, page, limit);
  listed.total.catch(() => {}); // awaited below; a failure before then is not unhandled
  const traces = await listed.traces;
  const ids = traces.map((t) => t.id);
  const [totals, scores, total] = await Promise.all([
    fields.has('metrics') || fields.has('observations') ? store.totals(projectId, ids) : new Map(),
    fields.has('scores') ? store.scores(projectId, ids) : new Map(),
    listed.total,
  ]);
  return {
    status: 200,
    body: paginated(
      traces.map((t) => presentListedTrace(t, totals.get(t.id), scores.get(t.id) ?? [], fields, projectId)),
      page,
      limit,
      total,
    ),
  };
};
