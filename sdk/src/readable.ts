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

// ---- results without impossible undefineds -------------------------------------------------
// hey-api types a `throwOnError: false` result's `request` and `response` as possibly undefined
// (a request that never got an answer). Tally's client throws TallyNetworkError in that case
// whatever throwOnError says, so every result that is returned has both: the types say so.

type Returned<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;
type Data<F> = Extract<Returned<F>, { error: undefined }> extends { data: infer D } ? D : never;
type ErrorBody<F> = Extract<Returned<F>, { data: undefined }> extends { error: infer E } ? E : never;
type Opts<F> = F extends (options: infer O) => unknown ? Omit<NonNullable<O>, 'throwOnError'> : never;
type OptionsOptional<F> = F extends (options: infer O) => unknown ? (undefined extends O ? true : false) : false;

/** a result with `throwOnError: false`: the body or the spec-typed error body, and always the request and response */
export type SettledResult<D, E> = ({ data: D; error: undefined } | { data: undefined; error: E }) & {
  request: Request;
  response: Response;
};

/** a generated call, typed as Tally's client answers it */
export type Settled<F> = ((options: Opts<F> & { throwOnError: false }) => Promise<SettledResult<Data<F>, ErrorBody<F>>>) &
  (OptionsOptional<F> extends true
    ? (options?: Opts<F> & { throwOnError?: true }) => Promise<{ data: Data<F>; request: Request; response: Response }>
    : (options: Opts<F> & { throwOnError?: true }) => Promise<{ data: Data<F>; request: Request; response: Response }>);

/** every method of a generated group, typed as Tally's client answers */
export type SettledGroup<G> = { [K in keyof G]: G[K] extends (options: never) => Promise<unknown> ? Settled<G[K]> : G[K] };
