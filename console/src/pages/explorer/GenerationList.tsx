// The generations list: filters from the URL, one page of GET /api/public/observations
// (type GENERATION, newest first), with each trace's user and session beside it.
import { useTally } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { useLoad } from '../../hooks.ts';
import { generationsHref, type ExplorerFilters } from '../../links.ts';
import { ActiveFilters } from './ActiveFilters.tsx';
import { FilterBar } from './FilterBar.tsx';
import { GenerationTable } from './GenerationTable.tsx';
import { Pager } from './Pager.tsx';
import { generationsQuery } from './queries.ts';
import { loadTraceFacts } from './trace-facts.ts';
import { useFilteredList } from './useFilteredList.ts';

const go = (f: ExplorerFilters) => {
  window.location.hash = generationsHref(f);
};

export function GenerationList({ filters }: { filters: ExplorerFilters }) {
  const tally = useTally();
  const { key, loaded, rangeError, refresh } = useFilteredList(
    filters,
    async (w) => (await tally.observations.getMany({ query: generationsQuery(filters, w) })).data,
  );
  const rows = loaded.data?.data ?? [];
  // the user and session columns only: the table shows without them if this fails
  const facts = useLoad(async () => loadTraceFacts(tally, rows), [loaded.data]);
  const narrowed = Object.keys(filters).some((k) => k !== 'page');

  return (
    <div className="explorer">
      <FilterBar key={key} kind="generations" filters={filters} onApply={go} />
      <ActiveFilters filters={filters} href={generationsHref} />
      {rangeError ? <ErrorBanner problem={{ message: rangeError, fields: {} }} title="Time range" /> : null}
      <section className="card" aria-labelledby="generations-list" aria-busy={loaded.loading}>
        <div className="explorer-head">
          <h2 id="generations-list">Generations</h2>
          <button type="button" className="secondary" onClick={refresh}>
            Refresh
          </button>
        </div>
        <ErrorBanner problem={loaded.error} title="Generations" />
        <ErrorBanner problem={facts.error} title="Users and sessions" />
        {loaded.loading && !loaded.data ? <p className="muted">Loading…</p> : null}
        {loaded.data && rows.length === 0 ? (
          <EmptyState title={narrowed ? 'No generations match these filters' : 'No generations yet'}>
            {narrowed ? (
              'Remove a filter above to see more.'
            ) : (
              <>
                Send a generation (with a model and usage) to <code>POST /api/public/ingestion</code>.
              </>
            )}
          </EmptyState>
        ) : null}
        {rows.length ? (
          <>
            <GenerationTable generations={rows} facts={facts.loading ? undefined : (facts.data ?? new Map())} filters={filters} />
            <Pager meta={loaded.data!.meta} filters={filters} href={generationsHref} noun="generations" />
          </>
        ) : null}
      </section>
    </div>
  );
}
