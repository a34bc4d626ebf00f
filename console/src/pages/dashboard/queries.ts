// Pure pieces of the dashboard: a window and filters → the metrics v2 queries (and observation
// list counts) it sends, and the rows that come back → chart series (every bucket present, the
// long tail folded into "other"). Kept free of React so the tests can check the exact queries.
import type { Filter, MetricsQuery, MetricsResponse, ObservationsGetManyData } from '../../../../sdk/index.ts';
import { colorFor, NEUTRAL } from '../../components/colors.ts';
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

export type CostStatus = 'unpriced' | 'partial';

/**
 * How many generations of the window have this costStatus: one row of the observation list,
 * read for its totalItems (the metrics views have no costStatus dimension). The same narrowing
 * as the Generations page the count links to.
 */
export function costStatusCountQuery(
  w: TimeWindow,
  f: DashboardFilters,
  status: CostStatus,
): NonNullable<ObservationsGetManyData['query']> {
  const filter: Filter[] = [{ column: 'costStatus', operator: '=', value: status, type: 'string' }];
  if (f.model) filter.push(filterFor('model', f.model));
  if (f.tag) filter.push(filterFor('tag', f.tag));
  return {
    type: 'GENERATION',
    page: 1,
    limit: 1,
    userId: f.user,
    name: f.name,
    environment: f.env,
    fromStartTime: w.from.toISOString(),
    // the list's upper bound is exclusive, the metrics' inclusive
    toStartTime: new Date(w.to.getTime() + 1).toISOString(),
    filter: JSON.stringify(filter),
  };
}

export interface ChartData {
  labels: string[];
  series: { label: string; values: number[]; color?: string }[];
}

export const OTHER = 'other';

const keyOf = (raw: unknown, noneLabel: string) => (raw === null || raw === undefined || raw === '' ? noneLabel : String(raw));

/** bucket → value per key of `dimension`, and each key's total; gap-filling rows (zero) dropped */
function byKeyAndBucket(rows: Row[], dimension: string | null, metric: string, noneLabel: string) {
  const byKey = new Map<string, Map<string, number>>();
  const totals = new Map<string, number>();
  for (const r of rows) {
    const value = Number(r[metric] ?? 0) || 0;
    if (value === 0) continue;
    const key = dimension ? keyOf(r[dimension], noneLabel) : '';
    const bucket = String(r.time_dimension ?? '');
    const perBucket = byKey.get(key) ?? new Map<string, number>();
    perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + value);
    byKey.set(key, perBucket);
    totals.set(key, (totals.get(key) ?? 0) + value);
  }
  return { byKey, totals };
}

/** the window's buckets and any the server answered besides (ISO labels of one bucket sort as their instants) */
const labelsOf = (buckets: string[], rows: Row[]) =>
  [...new Set([...buckets, ...rows.map((r) => String(r.time_dimension ?? '')).filter(Boolean)])].sort();

/**
 * Bucket rows (`{<dimension>, time_dimension, <metric>}`) → one series per dimension value over
 * every bucket: the `topN` largest by total kept, the rest summed into "other", and `skip` values
 * (usage key `total`, which would count tokens twice in a stack) left out.
 */
export function toSeries(
  rows: Row[],
  opts: { dimension: string; metric: string; buckets: string[]; topN?: number; noneLabel: string; skip?: string[] },
): ChartData {
  const { dimension, metric, topN = 8, noneLabel, skip = [] } = opts;
  const labels = labelsOf(opts.buckets, rows);
  const counted = rows.filter((r) => !skip.includes(keyOf(r[dimension], noneLabel)));
  const { byKey, totals } = byKeyAndBucket(counted, dimension, metric, noneLabel);
  const ranked = [...totals.keys()].sort((a, b) => totals.get(b)! - totals.get(a)! || a.localeCompare(b));
  // folding a single leftover into "other" would only rename it
  const kept = ranked.length > topN + 1 ? ranked.slice(0, topN) : ranked;
  const folded = ranked.slice(kept.length);
  const out: ChartData['series'] = kept.map((k) => ({ label: k, values: labels.map((d) => byKey.get(k)!.get(d) ?? 0) }));
  if (folded.length) {
    out.push({
      color: NEUTRAL,
      label: kept.includes(OTHER) ? `${OTHER} (${folded.length} more)` : OTHER,
      values: labels.map((d) => folded.reduce((s, k) => s + (byKey.get(k)!.get(d) ?? 0), 0)),
    });
  }
  return { labels, series: out };
}

export interface ModelRow {
  /** null: observations without a model */
  model: string | null;
  cost: number;
  tokens: number;
  count: number;
  /** tokens but no cost in the whole window: no price matched it */
  unpriced: boolean;
}

/** one entry per model (the server gives one row each; a model's rows are summed should it not) */
export function modelRows(rows: Row[]): ModelRow[] {
  const byModel = new Map<string | null, ModelRow>();
  for (const r of rows) {
    const model = keyOf(r.providedModelName, '') || null;
    const m = byModel.get(model) ?? { model, cost: 0, tokens: 0, count: 0, unpriced: false };
    m.cost += Number(r.sum_totalCost ?? 0) || 0;
    m.tokens += Number(r.sum_totalTokens ?? 0) || 0;
    m.count += Number(r.count_count ?? 0) || 0;
    byModel.set(model, m);
  }
  const out = [...byModel.values()].filter((m) => m.count > 0 || m.cost !== 0 || m.tokens > 0);
  for (const m of out) m.unpriced = m.model !== null && m.cost === 0 && m.tokens > 0;
  return out.sort((a, b) => b.cost - a.cost || b.tokens - a.tokens);
}

export const CHART_SERIES = 8;
const UNPRICED_IN_LEGEND = 3;

/**
 * The models the cost chart names: the largest unpriced ones first (a few, so the legend says
 * they exist though their bars are empty), then the most expensive up to eight series.
 */
export function chartModels(models: ModelRow[]): { priced: string[]; unpriced: string[] } {
  const unpriced = models
    .filter((m) => m.unpriced)
    .sort((a, b) => b.tokens - a.tokens)
    .slice(0, UNPRICED_IN_LEGEND)
    .map((m) => m.model!);
  const costly = models.filter((m) => m.model !== null && m.cost > 0).sort((a, b) => b.cost - a.cost || a.model!.localeCompare(b.model!));
  const room = CHART_SERIES - unpriced.length;
  // as in toSeries: one leftover is named rather than folded
  const priced = (costly.length > room + 1 ? costly.slice(0, room) : costly).map((m) => m.model!);
  return { priced, unpriced };
}

/** differences of exact decimal sums carried as floats leave dust like 1e-17 */
const DUST = 1e-9;

/**
 * The cost chart: a series per priced model from `byModel`, "other" for the total less those
 * (the folded models and observations without a model), and an empty series per unpriced model
 * so the legend shows it, labelled as having no price.
 */
export function costSeries(byModel: Row[], totals: Row[], models: ModelRow[], buckets: string[]): ChartData {
  const { priced, unpriced } = chartModels(models);
  const labels = labelsOf(buckets, [...byModel, ...totals]);
  const named = byKeyAndBucket(byModel, 'providedModelName', 'sum_totalCost', '');
  const total = byKeyAndBucket(totals, null, 'sum_totalCost', '').byKey.get('') ?? new Map<string, number>();
  const out: ChartData['series'] = priced.map((m) => ({ label: m, values: labels.map((b) => named.byKey.get(m)?.get(b) ?? 0) }));
  const rest = labels.map((b, i) => {
    const v = (total.get(b) ?? 0) - out.reduce((s, x) => s + x.values[i]!, 0);
    return Math.abs(v) < DUST ? 0 : v;
  });
  if (rest.some((v) => v !== 0)) {
    const folded = models.filter((m) => m.model !== null && m.cost > 0 && !priced.includes(m.model)).length;
    out.push({ label: folded ? OTHER : '(no model)', values: rest, color: NEUTRAL });
  }
  // the model's own colour, not its label's: the same model is the same colour when it gets a price
  for (const m of unpriced) out.push({ label: `${m} (no price)`, values: labels.map(() => 0), color: colorFor(m) });
  return { labels, series: out };
}
