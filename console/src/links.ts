// Where the console's pages live in the URL, so a view can be shared and every page can link to
// another: `#/<page>[/<id>][?key=value&…]`. The explorer pages read their filters from here, and
// whatever names a trace, a user, a session or a model links here.

export const FILTER_KEYS = [
  'user',
  'session',
  'tag',
  'name',
  'model',
  'env',
  'costStatus',
  // a preset (`24h`, `7d`, …) or `custom`; `from`/`to` alone mean custom too
  'range',
  'from',
  'to',
  'sort',
  'page',
] as const;
export type ExplorerFilters = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

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

/** the dashboard's range (`range`: a preset, or `custom` with `from`/`to` days) and filters, as the dashboard reads them */
export type DashboardView = Partial<Record<'range' | 'from' | 'to' | 'user' | 'tag' | 'model' | 'name' | 'env', string>>;
/** the dashboard, on a range and narrowed */
export const dashboardHref = (v: DashboardView = {}) => `#/dashboard${query(v as ExplorerFilters)}`;

/** the explorer filters a hash's query holds (unknown keys and empty values left out) */
export function filtersOf(params: URLSearchParams): ExplorerFilters {
  const f: ExplorerFilters = {};
  for (const k of FILTER_KEYS) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  return f;
}
