// What the dashboard asks: a window and filters → the metrics v2 queries it sends. Kept free of
// React so the tests can check the exact queries.
import type { Filter, MetricsQuery, MetricsResponse } from '../../../../sdk/index.ts';
import type { TimeWindow } from './range.ts';
import type { DashboardFilters, FilterField } from './view.ts';

// the query and row shapes are the spec's (generated types), not restated here
export type { MetricsQuery };
export type Row = MetricsResponse['data'][number];

/** the metrics filter each dashboard filter becomes, on the observations view's dimensions */
function filterFor(field: FilterField, value: string): Filter {
  switch (field) {
    case 'user':
      return { column: 'userId', operator: '=', value, type: 'string' };
    case 'tag':
      return { column: 'tags', operator: 'any of', value: [value], type: 'arrayOptions' };
    case 'model':
      return { column: 'providedModelName', operator: '=', value, type: 'string' };
    case 'name':
      return { column: 'name', operator: '=', value, type: 'string' };
    case 'env':
      return { column: 'environment', operator: '=', value, type: 'string' };
  }
}

export function filtersFor(f: DashboardFilters): Filter[] {
  return (Object.keys(f) as FilterField[]).filter((k) => f[k]).map((k) => filterFor(k, f[k]!));
}

function base(w: TimeWindow, f: DashboardFilters): Pick<MetricsQuery, 'view' | 'filters' | 'fromTimestamp' | 'toTimestamp'> {
  return { view: 'observations', filters: filtersFor(f), fromTimestamp: w.from.toISOString(), toTimestamp: w.to.toISOString() };
}

// Without orderBy a time series comes back in time order with its empty buckets filled; 1000 rows
// (the maximum) is room for eight series of the longest range (range.ts picks its buckets so).
const series = (w: TimeWindow) => ({ timeDimension: { granularity: w.bucket }, config: { row_limit: 1000 } });

const COST = { measure: 'totalCost', aggregation: 'sum' } as const;
const COUNT = { measure: 'count', aggregation: 'count' } as const;
const TOKENS = { measure: 'totalTokens', aggregation: 'sum' } as const;

export function summaryQuery(w: TimeWindow, f: DashboardFilters): MetricsQuery {
  return { ...base(w, f), dimensions: [], metrics: [COST, COUNT, TOKENS] };
}

/** every model of the range with its cost and tokens: the legend, the models table, and which models have no price */
export function modelsQuery(w: TimeWindow, f: DashboardFilters): MetricsQuery {
  return {
    ...base(w, f),
    dimensions: [{ field: 'providedModelName' }],
    metrics: [COST, TOKENS, COUNT],
    orderBy: [{ field: 'sum_totalCost', direction: 'desc' }],
    config: { row_limit: 1000 },
  };
}

/**
 * Cost per bucket of the named models only: all models × buckets could pass the 1000-row limit
 * (which cuts the newest buckets), the chart's few never do. The rest is the total less these.
 */
export function costByModelQuery(w: TimeWindow, f: DashboardFilters, models: string[]): MetricsQuery {
  const q = base(w, f);
  return {
    ...q,
    filters: [...q.filters!, { column: 'providedModelName', operator: 'any of', value: models, type: 'stringOptions' }],
    dimensions: [{ field: 'providedModelName' }],
    metrics: [COST],
    ...series(w),
  };
}

export function costTotalQuery(w: TimeWindow, f: DashboardFilters): MetricsQuery {
  return { ...base(w, f), dimensions: [], metrics: [COST], ...series(w) };
}

/** usageByType walks each observation's usage map, one row per usage key (input, output, cached…) and bucket */
export function tokensByTypeQuery(w: TimeWindow, f: DashboardFilters): MetricsQuery {
  return { ...base(w, f), dimensions: [{ field: 'usageType' }], metrics: [{ measure: 'usageByType', aggregation: 'sum' }], ...series(w) };
}

export const TOP_LIMIT = 100;

/** userId is high-cardinality: the server wants a row limit and a desc order on a measure */
export function topByCostQuery(w: TimeWindow, f: DashboardFilters, field: 'userId' | 'name', limit = TOP_LIMIT): MetricsQuery {
  return {
    ...base(w, f),
    dimensions: [{ field }],
    metrics: [COST, TOKENS, COUNT],
    orderBy: [{ field: 'sum_totalCost', direction: 'desc' }],
    config: { row_limit: limit },
  };
}

/** the values a picker offers: those with observations in the window, never narrowed by the filters */
export function optionsQuery(w: TimeWindow, field: 'environment' | 'tags'): MetricsQuery {
  return {
    ...base(w, {}),
    dimensions: [{ field }],
    metrics: [COUNT],
    orderBy: [{ field: 'count_count', direction: 'desc' }],
    config: { row_limit: 200 },
  };
}

/** the distinct strings of an options query's rows (a tags row holds an array) */
export function optionValues(rows: Row[], field: string): string[] {
  const out = new Set<string>();
  for (const r of rows) for (const v of [r[field]].flat()) if (typeof v === 'string' && v !== '') out.add(v);
  return [...out];
}

/** generations only: the other observation types have no price to miss */
const GENERATIONS: Filter = { column: 'type', operator: 'any of', value: ['GENERATION'], type: 'stringOptions' };

/**
 * The window's generations by costStatus (ingested, inferred, partial, unpriced, none; a Tally
 * dimension), each status with its count and tokens: how many have no price, and how much of the
 * usage that is, exactly. Narrowed by the same filters as the other queries.
 */
export function costStatusQuery(w: TimeWindow, f: DashboardFilters): MetricsQuery {
  const q = base(w, f);
  return { ...q, filters: [...q.filters!, GENERATIONS], dimensions: [{ field: 'costStatus' }], metrics: [COUNT, TOKENS] };
}
