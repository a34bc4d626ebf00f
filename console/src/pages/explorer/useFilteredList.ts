// One page of an explorer list (traces, generations) for the URL's filters. A preset range counts
// back from when the filters changed or Refresh was pressed, not from every render; while the
// range is not valid nothing is asked and `rangeError` says why.
import { useMemo, useState } from 'react';
import { useLoad } from '../../hooks.ts';
import type { ExplorerFilters } from '../../links.ts';
import { resolveWindow, type Window } from './time-range.ts';

export function useFilteredList<T>(filters: ExplorerFilters, load: (w: Window) => Promise<T>) {
  const key = JSON.stringify(filters);
  const [tick, setTick] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by the filters' value and the Refresh tick, on purpose
  const { window: w, error } = useMemo(() => resolveWindow(filters, new Date()), [key, tick]);
  const loaded = useLoad(async () => (w ? load(w) : undefined), [key, tick]);
  return { key, loaded, rangeError: error, refresh: () => setTick((t) => t + 1) };
}
