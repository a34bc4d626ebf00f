// The traces list: filters from the URL, one page of GET /api/public/traces, paging and sort.
import { useTally } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { tracesHref, type ExplorerFilters } from '../../links.ts';
import { ActiveFilters } from './ActiveFilters.tsx';
import { FilterBar } from './FilterBar.tsx';
import { Pager } from './Pager.tsx';
import { sortOf, tracesQuery } from './queries.ts';
import { TraceTable } from './TraceTable.tsx';
import { useFilteredList } from './useFilteredList.ts';

const go = (f: ExplorerFilters) => {
  window.location.hash = tracesHref(f);
};

export function TraceList({ filters }: { filters: ExplorerFilters }) {
  const tally = useTally();
  const { key, loaded, rangeError, refresh } = useFilteredList(
    filters,
    async (w) => (await tally.trace.list({ query: tracesQuery(filters, w) })).data,
  );
  const traces = loaded.data?.data ?? [];

  return (
    <div className="explorer">
      <FilterBar key={key} kind="traces" filters={filters} onApply={(f) => go({ ...f, sort: filters.sort })} />
      <ActiveFilters filters={filters} href={tracesHref} />
      {rangeError ? <ErrorBanner problem={{ message: rangeError, fields: {} }} title="Time range" /> : null}
      <section className="card" aria-labelledby="traces-list" aria-busy={loaded.loading}>
        <div className="explorer-head">
          <h2 id="traces-list">Traces</h2>
          <button type="button" className="secondary" onClick={refresh}>
            Refresh
          </button>
        </div>
        <ErrorBanner problem={loaded.error} title="Traces" />
        {loaded.loading && !loaded.data ? <p className="muted">Loading…</p> : null}
        {loaded.data && traces.length === 0 ? (
          <NoTraces filters={filters} page={loaded.data.meta.page} total={loaded.data.meta.totalItems} />
        ) : null}
        {traces.length ? (
          <>
            <TraceTable
              traces={traces}
              filters={filters}
              sort={sortOf(filters)}
              onSort={(sort) => go({ ...filters, sort, page: undefined })}
            />
            <Pager meta={loaded.data!.meta} filters={filters} href={tracesHref} noun="traces" />
          </>
        ) : null}
      </section>
    </div>
  );
}

function NoTraces({ filters, page, total }: { filters: ExplorerFilters; page: number; total: number }) {
  if (page > 1 && total > 0)
    return (
      <EmptyState title={`No traces on page ${page}`}>
        <a href={tracesHref({ ...filters, page: undefined })}>Back to the first page</a>
      </EmptyState>
    );
  if (Object.keys(filters).some((k) => k !== 'sort' && k !== 'page'))
    return <EmptyState title="No traces match these filters">Remove a filter above to see more.</EmptyState>;
  return (
    <EmptyState title="No traces yet">
      Send a trace to <code>POST /api/public/ingestion</code> or an OpenTelemetry span to <code>/api/public/otel/v1/traces</code>.
    </EmptyState>
  );
}
