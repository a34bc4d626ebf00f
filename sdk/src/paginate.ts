// Walks every page of a paginated list operation (`page`/`limit` query, `{ data, meta }` body).

/** Any generated list method: `tally.models.list`, `tally.scores.list`, … */
export type ListFn = (options: never) => Promise<{ data?: unknown }>;

type PageBody<F extends ListFn> = NonNullable<Awaited<ReturnType<F>>['data']>;
/** The item type of a list method's page. */
export type PageItem<F extends ListFn> = PageBody<F> extends { data: Array<infer I> } ? I : never;
type ListOptions<F extends ListFn> = NonNullable<Parameters<F>[0]>;
type ListQuery<F extends ListFn> = ListOptions<F> extends { query?: infer Q } ? NonNullable<Q> : never;

/** The list call's options without `page` (the iterator sets it); `limit` is the page size. */
export type PaginateParams<F extends ListFn> = Omit<ListOptions<F>, 'query' | 'throwOnError'> & {
  query?: Omit<ListQuery<F>, 'page'>;
};

export async function* paginate<F extends ListFn>(list: F, params?: PaginateParams<F>): AsyncGenerator<PageItem<F>, void, undefined> {
  for (let page = 1; ; page++) {
    // F's own options type, which the generic parameter cannot name here
    const call = list as unknown as (options: object) => Promise<{ data?: unknown } | undefined>;
    const result = await call({ ...params, query: { ...params?.query, page }, throwOnError: true });
    const body = result?.data as { data?: PageItem<F>[]; meta?: { totalPages?: number } } | undefined;
    const items = body?.data ?? [];
    yield* items;
    const totalPages = body?.meta?.totalPages;
    if (items.length === 0 || totalPages === undefined || page >= totalPages) return;
  }
}
