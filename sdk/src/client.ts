// `new Tally({ baseUrl, publicKey, secretKey })`: the class hey-api generates from the spec
// (generated/client, one group per operationId prefix: tally.models.list(), tally.metrics.query(),
// tally.llmConnections.upsert(), tally.ingestion.batch(), tally.scores.create(), …) on a fetch
// client that adds Basic auth, retries (src/retry.ts), typed errors (src/errors.ts) and
// `iterate()` on every paginated list group (src/paginate.ts), with readable names beside the
// generated ones (src/readable.ts: tally.health.check(), tally.observations.list(), tally.traces,
// metrics.query(q) with typed rows) and `tally.ingestion.batcher()` sending through this client.
import { TallySdk } from '../../generated/client/sdk.gen.ts';
import { createClient, type Client } from '../../generated/client/client/index.ts';
import { TallyApiError, TallyNetworkError } from './errors.ts';
import { retryingFetch, type RetryOptions } from './retry.ts';
import { paginate, type ListFn, type PageItem, type PaginateParams } from './paginate.ts';
import { IngestionBatcher, type IngestionBatcherOptions } from './ingestion-batcher.ts';
import { ALIASES, GROUP_ALIASES, metricsQuery, type MetricsQueryFn, type SettledGroup } from './readable.ts';

export interface TallyOptions extends RetryOptions {
  /** The server's origin, e.g. `https://tally.example.com` (no `/api/public`). */
  baseUrl: string;
  publicKey: string;
  secretKey: string;
  /** A fetch implementation (tests, proxies, edge runtimes); the global fetch by default. */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

type WithIterate<G> = G extends { list: infer F extends ListFn }
  ? 'page' extends keyof NonNullable<NonNullable<Parameters<F>[0]>['query']>
    ? G & {
        /** Every item of every page: `for await (const item of tally.<group>.iterate()) …` */
        iterate(params?: PaginateParams<F>): AsyncGenerator<PageItem<F>, void, undefined>;
      }
    : G
  : G;

type Sdk = { [K in keyof TallySdk]: SettledGroup<TallySdk[K]> };
type Generated = { readonly [K in keyof Sdk]: WithIterate<Sdk[K]> };

/**
 * The generated groups, with `iterate()` on those whose `list` takes `page`/`limit`, and the
 * readable names beside the generated ones (each alias is the generated method itself).
 */
export type TallyGroups = Omit<Generated, 'health' | 'observations' | 'evaluations' | 'metrics' | 'opentelemetry' | 'ingestion'> & {
  readonly health: Generated['health'] & { check: Sdk['health']['health'] };
  readonly observations: WithIterate<Sdk['observations'] & { list: Sdk['observations']['getMany'] }>;
  /** the same group as `trace` */
  readonly traces: Generated['trace'];
  readonly evaluations: Generated['evaluations'] & { judge: Sdk['evaluations']['llmAsAJudge'] };
  readonly metrics: Omit<Generated['metrics'], 'query'> & {
    /** `query(q)`: the metrics v2 query object in, rows typed from its dimensions and metrics out */
    query: MetricsQueryFn<Sdk['metrics']['query']>;
    /** the generated v2 call: `{ query: { query: '<json>' } }` in, the whole result out */
    v2: Sdk['metrics']['query'];
    schema: Sdk['metrics']['querySchema'];
  };
  readonly opentelemetry: Generated['opentelemetry'] & { export: Sdk['opentelemetry']['exportTraces'] };
  readonly ingestion: Generated['ingestion'] & {
    /** an IngestionBatcher that sends through this client (its retries, auth and errors) */
    batcher(options?: Omit<IngestionBatcherOptions, 'send'>): IngestionBatcher;
  };
};

function basicAuth(publicKey: string, secretKey: string): string {
  const bytes = new TextEncoder().encode(`${publicKey}:${secretKey}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}

/** A fetch client for one project, with auth, retries and typed errors; `new Tally` uses it. */
export function createTallyClient(opts: TallyOptions): Client {
  if (!opts.baseUrl) throw new TypeError('Tally: baseUrl is required');
  if (!opts.publicKey || !opts.secretKey) throw new TypeError('Tally: publicKey and secretKey are required');
  const baseFetch = opts.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const client = createClient({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: { ...opts.headers, authorization: basicAuth(opts.publicKey, opts.secretKey) },
    fetch: retryingFetch(baseFetch as typeof fetch, opts) as typeof fetch,
    throwOnError: true,
  });
  client.interceptors.error.use((error, response, request, options) => {
    const method = request?.method;
    const url = request?.url;
    // no answer at all: thrown whatever throwOnError says, so a returned result always has its response
    if (!response) {
      if (error instanceof TallyNetworkError || (error as Error)?.name === 'AbortError' || request?.signal?.aborted) throw error;
      throw new TallyNetworkError({ cause: error, method, url });
    }
    if (response.ok) return error; // a body that failed to parse or validate
    const throwOnError = options?.throwOnError ?? client.getConfig().throwOnError;
    // `throwOnError: false` keeps the spec-typed body as `error` (status on `response`)
    if (!throwOnError) return error;
    return new TallyApiError({
      status: response.status,
      body: error,
      requestId: response.headers.get('x-request-id') ?? undefined,
      method,
      url,
    });
  });
  return client;
}

// The groups are own properties the constructor defines from TallySdk's getters, so TypeScript
// cannot see them being set: an empty base class typed as constructing TallyGroups declares them
// all, with that one claim in a visible cast (not an interface merged into the class).
const TallyGroupsBase = class {} as new () => TallyGroups;

export class Tally extends TallyGroupsBase {
  /** The underlying hey-api fetch client (interceptors, `buildUrl`, raw requests). */
  readonly client: Client;

  constructor(opts: TallyOptions) {
    super();
    this.client = createTallyClient(opts);
    const sdk = new TallySdk({ client: this.client });
    // every generated group (tally.models, tally.metrics, …), with `iterate()` where there is `list`
    for (const key of Object.getOwnPropertyNames(TallySdk.prototype)) {
      if (!Object.getOwnPropertyDescriptor(TallySdk.prototype, key)?.get) continue;
      const group = (sdk as unknown as Record<string, Record<string, unknown>>)[key]!;
      // bound, so a method can be passed around: paginate(tally.scores.list, …)
      for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(group))) {
        const method = group[name];
        if (name !== 'constructor' && typeof method === 'function') group[name] = method.bind(group);
      }
      for (const [alias, generated] of Object.entries(ALIASES[key] ?? {})) group[alias] = group[generated];
      if (key === 'metrics') group.query = metricsQuery(group.v2 as never);
      if (key === 'ingestion') {
        const batch = group.batch as (o: object) => Promise<{ data: unknown }>;
        group.batcher = (options?: Omit<IngestionBatcherOptions, 'send'>) =>
          new IngestionBatcher({ ...options, send: async (events) => (await batch({ body: { batch: events } })).data as never });
      }
      if (typeof group.list === 'function') {
        const list = group.list as ListFn;
        group.iterate = (params?: PaginateParams<ListFn>) => paginate(list, params);
      }
      Object.defineProperty(this, key, { value: group, enumerable: true });
    }
    for (const [alias, generated] of Object.entries(GROUP_ALIASES))
      Object.defineProperty(this, alias, { value: (this as unknown as Record<string, unknown>)[generated], enumerable: false });
  }

  /** Walks every page of any list method: `tally.paginate(tally.scores.list, { query: { name: 'q' } })`. */
  paginate<F extends ListFn>(list: F, params?: PaginateParams<F>): AsyncGenerator<PageItem<F>, void, undefined> {
    return paginate(list, params);
  }
}
