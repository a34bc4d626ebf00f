// The dashboard's range and filters live in the URL (`#/dashboard?range=24h&user=alice`), so a
// view can be bookmarked and sent to someone. The URL is the state: the page reads it, and a
// change rewrites it in place (replaceState: a filter typed letter by letter is not a trail of
// history entries for Back to walk through).
import { useCallback, useEffect, useRef, useState } from 'react';
import { dashboardHref, type DashboardView, parseHash } from '../../links.ts';
import { DEFAULT_PRESET, isPreset, type RangeChoice } from './range.ts';

export type { DashboardView };

/** the filters a metrics query narrows by, as the URL names them */
export const FILTER_FIELDS = ['user', 'tag', 'model', 'name', 'env'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];
export type DashboardFilters = Partial<Record<FilterField, string>>;

/** the view a hash holds; another page's hash (or none) is the default view */
export function viewOf(hash: string): DashboardView {
  const { page, params } = parseHash(hash);
  if (page !== 'dashboard') return { range: DEFAULT_PRESET };
  const v: DashboardView = {};
  const range = params.get('range') ?? '';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  if (isPreset(range)) v.range = range;
  else if (range === 'custom' || from || to) Object.assign(v, { range: 'custom', from, to });
  else v.range = DEFAULT_PRESET;
  for (const k of FILTER_FIELDS) {
    const value = params.get(k);
    if (value) v[k] = value;
  }
  return v;
}

export function choiceOf(v: DashboardView): RangeChoice {
  return v.range === 'custom'
    ? { kind: 'custom', from: v.from ?? '', to: v.to ?? '' }
    : { kind: 'preset', preset: isPreset(v.range) ? v.range : DEFAULT_PRESET };
}

export const filtersOf = (v: DashboardView): DashboardFilters =>
  Object.fromEntries(FILTER_FIELDS.filter((k) => v[k]).map((k) => [k, v[k]]));

/** the view with a new range: a preset drops any custom days */
export function withRange(v: DashboardView, c: RangeChoice): DashboardView {
  const { from: _f, to: _t, ...rest } = v;
  return c.kind === 'preset' ? { ...rest, range: c.preset } : { ...rest, range: 'custom', from: c.from, to: c.to };
}

/** how long typing must pause before a typed change is queried: a request per keystroke helps no one */
export const SETTLE_MS = 400;

/**
 * The view in the URL, kept in step with Back/Forward, a pasted link and links from other pages.
 * `view` is what the fields show, at once; `settled` is what is queried: a picked option at once,
 * typing (a user id, a date's digits) once it pauses.
 */
export function useDashboardView(): { view: DashboardView; settled: DashboardView; update: (v: DashboardView, typed?: boolean) => void } {
  const [view, setView] = useState<DashboardView>(() => viewOf(window.location.hash));
  const [settled, setSettled] = useState(view);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const settle = useCallback((v: DashboardView, typed: boolean) => {
    clearTimeout(timer.current);
    if (typed) timer.current = setTimeout(() => setSettled(v), SETTLE_MS);
    else setSettled(v);
  }, []);
  useEffect(() => {
    const on = () => {
      const v = viewOf(window.location.hash);
      setView(v);
      settle(v, false);
    };
    window.addEventListener('hashchange', on);
    return () => {
      window.removeEventListener('hashchange', on);
      clearTimeout(timer.current);
    };
  }, [settle]);
  const update = useCallback(
    (v: DashboardView, typed = false) => {
      window.history.replaceState(window.history.state, '', dashboardHref(v));
      setView(v);
      settle(v, typed);
    },
    [settle],
  );
  return { view, settled, update };
}
