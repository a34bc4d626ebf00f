// One page of traces: each name opens the trace, each user, session, tag and environment narrows
// the list to it (keeping the other filters).
import type { TraceWithDetails } from '../../../../sdk/index.ts';
import { formatCost, formatSeconds, formatTime } from '../../format.ts';
import { traceHref, tracesHref, type ExplorerFilters } from '../../links.ts';
import { SortHeader } from './SortHeader.tsx';

export function TraceTable({
  traces,
  filters,
  sort,
  onSort,
}: {
  traces: TraceWithDetails[];
  filters: ExplorerFilters;
  sort: string;
  onSort: (sort: string) => void;
}) {
  const narrow = (f: ExplorerFilters) => tracesHref({ ...filters, ...f, page: undefined });
  return (
    <div className="table-wrap">
      <table aria-label="Traces" className="explorer-table">
        <thead>
          <tr>
            <SortHeader label="Time" field="timestamp" sort={sort} onSort={onSort} />
            <SortHeader label="Name" field="name" sort={sort} onSort={onSort} />
            <SortHeader label="User" field="userId" sort={sort} onSort={onSort} />
            <SortHeader label="Session" field="sessionId" sort={sort} onSort={onSort} />
            <th scope="col">Tags</th>
            <th scope="col" className="num">
              Cost
            </th>
            <th scope="col" className="num">
              Latency
            </th>
            <th scope="col" className="num">
              Observations
            </th>
            <th scope="col">Environment</th>
          </tr>
        </thead>
        <tbody>
          {traces.map((t) => (
            <tr key={t.id}>
              <td className="nowrap">{formatTime(t.timestamp)}</td>
              <th scope="row">
                <a href={traceHref(t.id)}>{t.name || <code>{t.id}</code>}</a>
              </th>
              <td>{t.userId ? <a href={narrow({ user: t.userId })}>{t.userId}</a> : '—'}</td>
              <td>{t.sessionId ? <a href={narrow({ session: t.sessionId })}>{t.sessionId}</a> : '—'}</td>
              <td>
                {t.tags.length
                  ? t.tags.map((tag) => (
                      <a key={tag} className="badge tag" href={narrow({ tag })}>
                        {tag}
                      </a>
                    ))
                  : '—'}
              </td>
              <td className="num">{t.totalCost < 0 ? '—' : formatCost(t.totalCost)}</td>
              <td className="num">{formatSeconds(t.latency)}</td>
              <td className="num">{t.observations.length}</td>
              <td>
                <a href={narrow({ env: t.environment })}>{t.environment}</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
