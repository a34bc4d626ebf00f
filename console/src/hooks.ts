// Small hooks every page uses: load-on-mount with reload, the hash route, and the hash's id and query.
import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import { describeError, type ProblemText } from './api.ts';
import { parseHash } from './links.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ProblemText | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` on mount and whenever `deps` change; a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ProblemText; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what `load` depends on, as with useEffect
  useEffect(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => {
        if (mine === seq.current) setState({ data, loading: false });
      },
      (e) => {
        if (mine === seq.current) setState({ error: describeError(e), loading: false });
      },
    );
    // an answer arriving after unmount (or after the deps moved on) must not set state: React
    // would schedule an update for a page that is gone (and after a test's teardown, fail)
    return () => {
      seq.current++;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export const ROUTES = ['models', 'connections', 'playground', 'dashboard', 'evaluators', 'traces', 'generations', 'alerts'] as const;
export type Route = (typeof ROUTES)[number];

function routeOf(hash: string): Route {
  const name = hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return (ROUTES as readonly string[]).includes(name ?? '') ? (name as Route) : 'dashboard';
}

/** `#/models` → 'models'; hash routes need no server fallback and never meet /api paths. */
export function useHashRoute(): [Route, (r: Route) => void] {
  const [route, setRoute] = useState<Route>(() => routeOf(window.location.hash));
  useEffect(() => {
    const on = () => setRoute(routeOf(window.location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return [
    route,
    (r) => {
      window.location.hash = `#/${r}`;
    },
  ];
}

/** The current hash as page, id and query, kept current on navigation (links, back and forward). */
export function useHashLocation(): ReturnType<typeof parseHash> & { hash: string } {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const on = () => setHash(window.location.hash);
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return { ...parseHash(hash), hash };
}

/**
 * A form's ref, and a call that moves focus to its first invalid field once the messages are
 * drawn (after a refused submit, so Enter on that field submits again).
 */
export function useFocusFirstInvalid(): [RefObject<HTMLFormElement | null>, () => void] {
  const formRef = useRef<HTMLFormElement>(null);
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    if (asked) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [asked]);
  return [formRef, useCallback(() => setAsked((n) => n + 1), [])];
}
