// Where the console's pages live in the URL, so a view can be shared and every page can link to
// another: `#/<page>[/<id>][?key=value&…]`. The explorer pages read their filters from here, and
// whatever names a trace, a user, a session or a model links here.

export type ExplorerFilters = Partial<
  Record<'user' | 'session' | 'tag' | 'name' | 'model' | 'env' | 'costStatus' | 'from' | 'to' | 'sort' | 'page', string>
>;

const query = (f: ExplorerFilters) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
};

/** the traces list, narrowed */
export const tracesHref = (f: ExplorerFilters = {}) => `#/traces${query(f)}`;
/** one trace's detail view; `observation` opens that observation in it */
export const traceHref = (traceId: string, observation?: string) =>
  `#/traces/${encodeURIComponent(traceId)}${observation ? query({ observation } as ExplorerFilters) : ''}`;
/** the generations list, narrowed */
export const generationsHref = (f: ExplorerFilters = {}) => `#/generations${query(f)}`;

/** the parts of the current hash: page, optional id, query */
export function parseHash(hash: string): { page: string; id: string | null; params: URLSearchParams } {
  const body = hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = body.split('?', 2) as [string?, string?];
  const [page = '', ...rest] = path.split('/');
  return { page, id: rest.length ? decodeURIComponent(rest.join('/')) : null, params: new URLSearchParams(search) };
}
