// `new Tally({ baseUrl, publicKey, secretKey })`: the class hey-api generates from the spec
// (generated/client, one group per operationId prefix: tally.models.list(), tally.metrics.query(),
// tally.llmConnections.upsert(), tally.ingestion.batch(), tally.scores.create(), …) on a fetch
// client that adds Basic auth, retries (src/retry.ts), typed errors (src/errors.ts) and
// `iterate()` on every paginated list group (src/paginate.ts). Nothing here is per operation.
import { TallySdk } from '../../generated/client/sdk.gen.ts';
import { createClient, type Client } from '../../generated/client/client/index.ts';
import { TallyApiError, TallyNetworkError } from './errors.ts';
import { retryingFetch, type RetryOptions } from './retry.ts';
import { paginate, type ListFn, type PageItem, type PaginateParams } from './paginate.ts';

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

/** The generated groups, with `iterate()` on those whose `list` takes `page`/`limit`. */
export type TallyGroups = { readonly [K in keyof TallySdk]: WithIterate<TallySdk[K]> };

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
    if (!response) {
      if (error instanceof TallyNetworkError || (error as Error)?.name === 'AbortError' || request?.signal?.aborted) return error;
      return new TallyNetworkError({ cause: error, method, url });
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
      if (typeof group.list === 'function') {
        const list = group.list as ListFn;
        group.iterate = (params?: PaginateParams<ListFn>) => paginate(list, params);
      }
      Object.defineProperty(this, key, { value: group, enumerable: true });
    }
  }

  /** Walks every page of any list method: `tally.paginate(tally.scores.list, { query: { name: 'q' } })`. */
  paginate<F extends ListFn>(list: F, params?: PaginateParams<F>): AsyncGenerator<PageItem<F>, void, undefined> {
    return paginate(list, params);
  }
}
