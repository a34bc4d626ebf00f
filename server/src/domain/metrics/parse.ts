// Stage 1 of the metrics engine: a query object that already matches the spec's MetricsQuery
// shape → a typed, validated query with every name resolved against the view declarations.
// The checks and their wording follow Langfuse's; each failure
// is a MetricsQueryError, which the HTTP layer answers with 400 InvalidRequestError.
import type { MetricsQueryV1 } from '../../../../generated/client/types.gen.ts';
import { checkFilters, type CheckedFilter, type ColumnType } from '../filters/check.ts';
import { col, type Expr } from './expressions.ts';
import type { Bucket, Granularity } from './granularity.ts';
import {
  AGGREGATIONS,
  aggregationsFor,
  INTERNAL_VIEWS,
  VIEWS,
  type Aggregation,
  type Dimension,
  type InternalViewName,
  type Measure,
  type View,
  type ViewName,
} from './views.ts';

export class MetricsQueryError extends Error {}

/** the wire query after schema validation: v1's shape, which is v2's plus the `traces` view */
export type MetricsQueryInput = MetricsQueryV1;

export interface EngineOptions {
  /** v2: the high-cardinality rules and a default row limit; v1: neither */
  version: 'v1' | 'v2';
}

export interface OrderInput {
  field: string;
  direction: 'asc' | 'desc';
  /** nulls first (a query of Tally's own only; by default nulls come last) */
  nulls?: 'first';
}

/** what a query asks beside its view and window */
type QueryBody = Pick<MetricsQueryInput, 'dimensions' | 'metrics' | 'filters' | 'config'> & {
  timeDimension?: { granularity: Granularity } | null;
  orderBy?: OrderInput[] | null;
};

/**
 * A query of Tally's own, never a caller's (GET /api/public/metrics/daily asks two): it may name
 * an internal view, has no time window (its filters bound the time) and may order nulls first.
 * v1's rules otherwise.
 */
export interface InternalQueryInput extends QueryBody {
  view: ViewName | InternalViewName;
  timeDimension?: { granularity: Bucket };
}

export interface ParsedDimension {
  field: string;
  dimension: Dimension;
}
export interface ParsedMetric {
  measureName: string;
  measure: Measure;
  aggregation: Aggregation;
  alias: string;
}
export interface ParsedFilter extends CheckedFilter {
  /** what the filter's column reads */
  expr: Expr;
}

export interface ParsedQuery {
  view: View;
  dimensions: ParsedDimension[];
  metrics: ParsedMetric[];
  filters: ParsedFilter[];
  granularity: Granularity | null;
  /** [from, to], both inclusive; null: no window (a query of Tally's own) */
  window: { from: Date; to: Date } | null;
  /** null: the default order applies (and a time series gets its gaps filled) */
  orderBy: OrderInput[] | null;
  rowLimit: number | null;
  bins: number;
}

export const DEFAULT_ROW_LIMIT = 100;
export const DEFAULT_BINS = 10;
const ORDERABLE = AGGREGATIONS.filter((a) => a !== 'histogram');
const TIME_ALIAS = 'time_dimension';

const fail = (message: string): never => {
  throw new MetricsQueryError(message);
};

const unavailable = (kind: 'Dimension' | 'Measure', name: string, reason: string) =>
  fail(`${kind} ${name} is not available in Tally: ${reason}`);

function highCardinalityRule(q: MetricsQueryInput, view: View) {
  const hc = (q.dimensions ?? []).map((d) => d.field).filter((f) => view.dimensions[f]?.highCardinality);
  if (!hc.length) return;
  const list = `'${hc.join(', ')}'`;
  if (q.timeDimension) {
    fail(
      `High cardinality dimension(s) ${list} cannot be used with timeDimension. Time series queries with high cardinality dimensions produce unbounded result sets.`,
    );
  }
  const desc = (q.orderBy ?? []).filter((o) => o.direction === 'desc');
  if (q.config?.row_limit === undefined || !desc.length) {
    fail(`High cardinality dimension(s) ${list} require both 'config.row_limit' and 'orderBy' with direction 'desc' on a measure field.`);
  }
  const measures = q.metrics.map((m) => m.measure);
  const notMeasures = desc.map((o) => o.field).filter((f) => !measures.some((m) => f === m || f.endsWith(`_${m}`)));
  if (notMeasures.length) {
    fail(
      `High cardinality dimension(s) ${list} require 'orderBy' with direction 'desc' on a measure field. '${notMeasures.join(', ')}' ${notMeasures.length === 1 ? 'is' : 'are'} not a measure in this query.`,
    );
  }
}

function resolveDimensions(q: QueryBody, view: View, metrics: ParsedMetric[]): ParsedDimension[] {
  const out: ParsedDimension[] = [];
  for (const { field } of q.dimensions ?? []) {
    const dimension =
      view.dimensions[field] ?? fail(`Invalid dimension ${field}. Must be one of ${Object.keys(view.dimensions).join(', ')}`);
    if (dimension.unavailable) unavailable('Dimension', field, dimension.unavailable);
    if (!out.some((d) => d.field === field)) out.push({ field, dimension });
  }
  // costByType / usageByType bring the dimension that pairs each value with its key
  for (const m of metrics) {
    const needed = m.measure.requiresDimension;
    if (needed && !out.some((d) => d.field === needed)) out.push({ field: needed, dimension: view.dimensions[needed]! });
  }
  const pairs = out.filter((d) => d.dimension.pairExpand).map((d) => d.field);
  if (pairs.length > 1) fail(`Only one pairExpand dimension is supported per query. Found: ${pairs.join(', ')}`);
  return out;
}

function resolveMetrics(q: QueryBody, view: View): ParsedMetric[] {
  const out: ParsedMetric[] = [];
  for (const { measure: name, aggregation } of q.metrics) {
    const measure = view.measures[name] ?? fail(`Invalid metric ${name}. Must be one of ${Object.keys(view.measures).join(', ')}`);
    if (measure.unavailable) unavailable('Measure', name, measure.unavailable);
    const allowed = aggregationsFor(measure);
    if (!allowed.includes(aggregation as Aggregation)) {
      fail(
        `Aggregation "${aggregation}" is not valid for measure "${name}" (type: ${measure.type}). Valid aggregations: ${allowed.join(', ')}`,
      );
    }
    const alias = `${aggregation}_${name}`;
    if (!out.some((m) => m.alias === alias)) out.push({ measureName: name, measure, aggregation: aggregation as Aggregation, alias });
  }
  return out;
}

function resolveFilters(q: QueryBody, view: View): ParsedFilter[] {
  const filters = q.filters ?? [];
  if (!filters.length) return [];
  const columns: Record<string, ColumnType> = Object.create(null);
  const exprOf: Record<string, Expr> = Object.create(null);
  for (const [name, d] of Object.entries(view.dimensions)) {
    columns[name] = d.type;
    exprOf[name] = d.expr;
  }
  // the view's time column, under its API name and its raw name (Langfuse's `start_time`)
  for (const name of new Set([view.timeColumn, view.time])) {
    columns[name] = 'datetime';
    exprOf[name] = col(view.time);
  }
  for (const [name, c] of Object.entries(view.filterColumns ?? {})) {
    columns[name] = c.type;
    exprOf[name] = c.expr;
  }
  columns.metadata = 'object';
  exprOf.metadata = col(view.metadata);
  for (const f of filters) {
    const known = Object.hasOwn(columns, f.column) || (f.column.endsWith('Name') && Object.hasOwn(columns, 'name'));
    if (!known) fail(`Invalid filter column ${f.column}. Must be one of ${Object.keys(view.dimensions).join(', ')} or ${view.timeColumn}`);
    const d = view.dimensions[f.column];
    if (d?.unavailable) unavailable('Dimension', f.column, d.unavailable);
  }
  const checked = checkFilters(filters, columns);
  if (!checked.ok) return fail(checked.message);
  return checked.filters.map((f) => ({ ...f, expr: exprOf[f.target]! }));
}

function resolveOrder(q: QueryBody, dimensions: ParsedDimension[], metrics: ParsedMetric[], internal: boolean) {
  if (!q.orderBy?.length) return null;
  const fields = new Set([
    ...(q.timeDimension ? [TIME_ALIAS] : []),
    ...dimensions.map((d) => d.field),
    ...metrics.filter((m) => ORDERABLE.includes(m.aggregation as never)).map((m) => m.alias),
  ]);
  for (const o of q.orderBy) {
    if (!fields.has(o.field)) fail(`Invalid orderBy field: ${o.field}. Must be one of the dimension or metric fields.`);
  }
  return q.orderBy.map(
    (o): OrderInput => ({
      field: o.field,
      direction: o.direction,
      ...(internal && o.nulls === 'first' ? { nulls: o.nulls } : {}),
    }),
  );
}

export function parseQuery(q: MetricsQueryInput, opts: EngineOptions): ParsedQuery {
  const from = new Date(q.fromTimestamp);
  const to = new Date(q.toTimestamp);
  if (!(from < to)) fail('fromTimestamp must be before toTimestamp');
  const view = VIEWS[q.view as ViewName] ?? fail(`Invalid view ${q.view}`);
  // on the query as sent, before the default row limit (as Langfuse's validateQuery)
  if (opts.version === 'v2') highCardinalityRule(q, view);
  return resolve(q, view, { from, to }, q.config?.row_limit ?? (opts.version === 'v2' ? DEFAULT_ROW_LIMIT : null), false);
}

/** a query of Tally's own: v1's rules over any view, the internal ones included */
export function parseInternalQuery(q: InternalQueryInput): ParsedQuery {
  const view = (INTERNAL_VIEWS as Record<string, View>)[q.view] ?? VIEWS[q.view as ViewName] ?? fail(`Invalid view ${q.view}`);
  return resolve(q, view, null, q.config?.row_limit ?? null, true);
}

function resolve(q: QueryBody, view: View, window: ParsedQuery['window'], rowLimit: number | null, internal: boolean): ParsedQuery {
  const metrics = resolveMetrics(q, view);
  const dimensions = resolveDimensions(q, view, metrics);
  const filters = resolveFilters(q, view);
  const orderBy = resolveOrder(q, dimensions, metrics, internal);
  return {
    view,
    dimensions,
    metrics,
    filters,
    orderBy,
    window,
    granularity: q.timeDimension?.granularity ?? null,
    rowLimit,
    bins: q.config?.bins ?? DEFAULT_BINS,
  };
}

export { TIME_ALIAS };
