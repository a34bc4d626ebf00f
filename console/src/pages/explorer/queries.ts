// What the explorer's URL filters ask of the API: the trace list's own parameters, and for
// generations the observation list's parameters plus its `filter` JSON for what has none.
import type { ObservationsGetManyData, TraceListData } from '../../../../sdk/index.ts';
import type { ExplorerFilters } from '../../links.ts';
import type { Window } from './time-range.ts';

export const PAGE_SIZE = 50;

export const COST_STATUSES = ['ingested', 'inferred', 'partial', 'unpriced', 'none'] as const;

/** the orders the trace list offers by column header; anything else in the URL is the default */
export const TRACE_SORT = /^(timestamp|name|userId|sessionId)\.(asc|desc)$/;
export const DEFAULT_TRACE_SORT = 'timestamp.desc';

export function pageOf(f: ExplorerFilters): number {
  const n = Number(f.page);
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

export const sortOf = (f: ExplorerFilters) => (f.sort && TRACE_SORT.test(f.sort) ? f.sort : DEFAULT_TRACE_SORT);

/** the listed costStatus values of `a,b` (unknown ones dropped) */
export const costStatusesOf = (f: ExplorerFilters) =>
  (f.costStatus ?? '').split(',').filter((s): s is (typeof COST_STATUSES)[number] => (COST_STATUSES as readonly string[]).includes(s));

export function tracesQuery(f: ExplorerFilters, w: Window): NonNullable<TraceListData['query']> {
  return {
    page: pageOf(f),
    limit: PAGE_SIZE,
    userId: f.user,
    sessionId: f.session,
    name: f.name,
    tags: f.tag,
    environment: f.env,
    fromTimestamp: w.from,
    toTimestamp: w.to,
    orderBy: sortOf(f),
    // a table row needs no input, output or metadata: they can be large
    fields: 'core,observations,metrics',
  };
}

type Filter = { type: string; column: string; operator: string; value: unknown };

export function generationsQuery(f: ExplorerFilters, w: Window): NonNullable<ObservationsGetManyData['query']> {
  const filter: Filter[] = [];
  if (f.model) filter.push({ type: 'stringOptions', column: 'providedModelName', operator: 'any of', value: [f.model] });
  const statuses = costStatusesOf(f);
  if (statuses.length) filter.push({ type: 'stringOptions', column: 'costStatus', operator: 'any of', value: statuses });
  if (f.session) filter.push({ type: 'string', column: 'sessionId', operator: '=', value: f.session });
  if (f.tag) filter.push({ type: 'arrayOptions', column: 'tags', operator: 'all of', value: [f.tag] });
  return {
    type: 'GENERATION',
    page: pageOf(f),
    limit: PAGE_SIZE,
    userId: f.user,
    name: f.name,
    environment: f.env,
    fromStartTime: w.from,
    toStartTime: w.to,
    filter: filter.length ? JSON.stringify(filter) : undefined,
  };
}
