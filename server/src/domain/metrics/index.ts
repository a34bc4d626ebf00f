// The metrics engine: parse → plan → compile here, execute in store/metrics.ts, shape here.
// v1 and v2 are two configurations of it (EngineOptions), not two engines.
import { compile, type CompiledMetrics } from './compile.ts';
import { parseInternalQuery, parseQuery, type EngineOptions, type InternalQueryInput, type MetricsQueryInput } from './parse.ts';
import { planQuery, type Plan } from './plan.ts';

export { MetricsQueryError } from './parse.ts';
export type { MetricsQueryInput, EngineOptions, InternalQueryInput } from './parse.ts';
export { dailyMetrics, dailyQueries, type DailyFilter } from './daily.ts';
export { shape, type Row, type HistogramRow } from './shape.ts';
export type { Plan } from './plan.ts';
export type { CompiledMetrics } from './compile.ts';

export interface Prepared {
  plan: Plan;
  compiled: CompiledMetrics;
}

/** `useRollup: false` forces the base tables (the tests compare both paths) */
export function prepareMetrics(input: MetricsQueryInput, projectId: string, opts: EngineOptions & { useRollup?: boolean }): Prepared {
  const plan = planQuery(parseQuery(input, opts), { useRollup: opts.useRollup ?? true });
  return { plan, compiled: compile(plan, projectId) };
}

/** a query of Tally's own (GET /api/public/metrics/daily's two) */
export function prepareInternal(input: InternalQueryInput, projectId: string): Prepared {
  const plan = planQuery(parseInternalQuery(input));
  return { plan, compiled: compile(plan, projectId) };
}
