// The names people read, over the generated groups (which stay, unchanged, under their generated
// names): the generated ones come from Langfuse's operationIds (`health.health`,
// `observations.getMany`, `trace.list`, `evaluations.llmAsAJudge`). Each alias is the very
// generated method, so options, results and errors are the same; `metrics.query` is the one call
// whose shape changes: it takes the query object and answers its rows, typed from the query.
import type { MetricsAggregation, MetricsQuery } from '../../generated/client/types.gen.ts';

/** `<aggregation>_<measure>` keys; the bare `count` when there are no metrics */
type MetricKey<M> = M extends { readonly measure: infer Me extends string; readonly aggregation: infer A extends string }
  ? `${A}_${Me}`
  : never;
type MetricValue<M> = M extends { readonly aggregation: 'histogram' }
  ? Array<[lower: number, upper: number, count: number]>
  : number | null;
type DimensionKey<D> = D extends { readonly field: infer F extends string } ? F : never;

/** A dimension's value: most are strings; a few are booleans, numbers or string arrays (tags). */
export type MetricsDimensionValue = string | number | boolean | string[] | null;

type Elements<T> = T extends readonly (infer E)[] ? E : never;

/** One row of `tally.metrics.query(q)`: the query's dimensions, its metrics and, with `timeDimension`, the bucket. */
export type MetricsRow<Q extends MetricsQueryInput> = {
  [K in DimensionKey<Elements<NonNullable<Q['dimensions']>>>]: MetricsDimensionValue;
} & (Q['metrics'] extends readonly [] ? { count: number } : { [M in Elements<Q['metrics']> as MetricKey<M>]: MetricValue<M> }) &
  (Q['timeDimension'] extends { readonly granularity: string } ? { time_dimension: string } : unknown);

type DeepReadonlyArrays<T> = T extends readonly (infer E)[]
  ? readonly DeepReadonlyArrays<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonlyArrays<T[K]> }
    : T;

/** `MetricsQuery` as a literal may be written (readonly arrays, so `as const` and inferred literals fit) */
export type MetricsQueryInput = DeepReadonlyArrays<MetricsQuery> & {
  readonly metrics: readonly { readonly measure: string; readonly aggregation: MetricsAggregation }[];
};

/** what `metrics.query(q, options)` passes on besides the query */
export interface MetricsCallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** `tally.metrics.query(q)`: the query object in, its typed rows out (the generated form still works). */
export type MetricsQueryFn<Generated> = (<const Q extends MetricsQueryInput>(
  query: Q,
  options?: MetricsCallOptions,
) => Promise<MetricsRow<Q>[]>) &
  Generated;

type Call = (options?: object) => Promise<{ data?: unknown }>;

/** the metrics call that takes the query object, over the generated one (taking `{ query: { query: string } }`) */
export function metricsQuery(generated: Call): (q: object, options?: MetricsCallOptions) => Promise<unknown> {
  return async (q, options) => {
    // the generated form: `{ query: { query: '<json>' } }` (no view at the top)
    if (!('view' in q)) return generated(q);
    const result = await generated({ ...options, query: { query: JSON.stringify(q) }, throwOnError: true });
    return (result.data as { data: unknown[] }).data;
  };
}

/** readable names for generated methods: group → alias → the generated method it is */
export const ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  health: { check: 'health' },
  observations: { list: 'getMany' },
  evaluations: { judge: 'llmAsAJudge' },
  metrics: { v2: 'query', schema: 'querySchema' },
  opentelemetry: { export: 'exportTraces' },
};

/** readable names for generated groups: alias → the generated group */
export const GROUP_ALIASES: Readonly<Record<string, string>> = { traces: 'trace' };
