// The metrics engine: parse → plan → compile here (in the dialect of the store that answers),
// execute in store/metrics.ts (PostgreSQL) or analytics/metrics.ts (ClickHouse), shape here.
// v1 and v2 are two configurations of it (EngineOptions), not two engines.
import { POSTGRES, type CompiledMetrics, type Dialect } from './compile.ts';
import { parseInternalQuery, parseQuery, type EngineOptions, type InternalQueryInput, type MetricsQueryInput } from './parse.ts';
import { planQuery, type Plan } from './plan.ts';
import type { HistogramRow, Row } from './shape.ts';

export { MetricsQueryError } from './parse.ts';
export type { MetricsQueryInput, EngineOptions, InternalQueryInput } from './parse.ts';
export { dailyMetrics, dailyQueries, type DailyFilter } from './daily.ts';
export { shape, type Row, type HistogramRow } from './shape.ts';
export type { Plan } from './plan.ts';
export {
  POSTGRES,
  clickHouseDialect,
  type ClickHouseMetrics,
  type ClickHouseStatement,
  type CompiledMetrics,
  type Dialect,
} from './compile.ts';
export { clickHouseRows } from './clickhouse-rows.ts';

export interface Prepared<C = CompiledMetrics> {
  plan: Plan;
  compiled: C;
}

/** what the execute stage hands the shape stage, whichever store ran the statements */
export interface ExecutedMetrics {
  rows: Row[];
  histograms: { alias: string; rows: HistogramRow[] }[];
}

/** a store that runs a dialect's statements (ClickHouse's, with TALLY_CLICKHOUSE_URL) */
export interface MetricsStore<C> {
  dialect: Dialect<C>;
  execute(compiled: C): Promise<ExecutedMetrics>;
}

type PrepareOptions = EngineOptions & { useRollup?: boolean };

/** `useRollup: false` forces the base tables (the tests compare both paths); the dialect is PostgreSQL's unless given */
export function prepareMetrics(input: MetricsQueryInput, projectId: string, opts: PrepareOptions): Prepared;
export function prepareMetrics<C>(input: MetricsQueryInput, projectId: string, opts: PrepareOptions, dialect: Dialect<C>): Prepared<C>;
export function prepareMetrics(
  input: MetricsQueryInput,
  projectId: string,
  opts: PrepareOptions,
  dialect: Dialect<unknown> = POSTGRES,
): Prepared<unknown> {
  const plan = planQuery(parseQuery(input, opts), {
    useRollup: dialect.rollups && (opts.useRollup ?? true),
    userRollup: dialect.userRollup,
  });
  return { plan, compiled: dialect.compile(plan, projectId) };
}

/** a query of Tally's own (GET /api/public/metrics/daily's two) */
export function prepareInternal(input: InternalQueryInput, projectId: string): Prepared;
export function prepareInternal<C>(input: InternalQueryInput, projectId: string, dialect: Dialect<C>): Prepared<C>;
export function prepareInternal(input: InternalQueryInput, projectId: string, dialect: Dialect<unknown> = POSTGRES): Prepared<unknown> {
  const plan = planQuery(parseInternalQuery(input), { useRollup: dialect.rollups, userRollup: dialect.userRollup });
  return { plan, compiled: dialect.compile(plan, projectId) };
}
