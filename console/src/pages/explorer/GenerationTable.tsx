// One page of generations: each name opens its trace with that generation selected; model, user,
// session and cost status narrow the list to theirs.
import type { Observation } from '../../../../sdk/index.ts';
import { COST_STATUS_HINT, costStatusClass } from '../../cost-status.ts';
import { formatCost, formatCount, formatSeconds, formatTime } from '../../format.ts';
import { generationsHref, traceHref, type ExplorerFilters } from '../../links.ts';
import type { TraceFacts } from './trace-facts.ts';

const NUM = ['Input', 'Output', 'Total', 'Cost'];

export function GenerationTable({
  generations,
  facts,
  filters,
}: {
  generations: Observation[];
  /** user and session per trace id; undefined while they load */
  facts: TraceFacts | undefined;
  filters: ExplorerFilters;
}) {
  const narrow = (f: ExplorerFilters) => generationsHref({ ...filters, ...f, page: undefined });
  const fact = (o: Observation) => (o.traceId ? facts?.get(o.traceId) : undefined);
  return (
    <div className="table-wrap">
      <table aria-label="Generations" className="explorer-table">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Name</th>
            <th scope="col">Model</th>
            <th scope="col">User</th>
            <th scope="col">Session</th>
            {NUM.map((n) => (
              <th key={n} scope="col" className="num">
                {n === 'Cost' ? n : `${n} usage`}
              </th>
            ))}
            <th scope="col">Cost status</th>
            <th scope="col" className="num">
              Latency
            </th>
            <th scope="col">Level</th>
            <th scope="col">Trace</th>
          </tr>
        </thead>
        <tbody>
          {generations.map((o) => {
            const f = fact(o);
            return (
              <tr key={o.id}>
                <td className="nowrap">{formatTime(o.startTime)}</td>
                <th scope="row">
                  {o.traceId ? <a href={traceHref(o.traceId, o.id)}>{o.name || <code>{o.id}</code>}</a> : o.name || <code>{o.id}</code>}
                </th>
                <td>{o.model ? <a href={narrow({ model: o.model })}>{o.model}</a> : '—'}</td>
                <td>{f?.userId ? <a href={narrow({ user: f.userId })}>{f.userId}</a> : facts ? '—' : '…'}</td>
                <td>{f?.sessionId ? <a href={narrow({ session: f.sessionId })}>{f.sessionId}</a> : facts ? '—' : '…'}</td>
                <td className="num">{formatCount(o.usage.input)}</td>
                <td className="num">{formatCount(o.usage.output)}</td>
                <td className="num">{formatCount(o.usage.total)}</td>
                <td className="num">
                  {o.costStatus === 'unpriced' ? <span className="muted">no price</span> : formatCost(o.calculatedTotalCost)}
                </td>
                <td>
                  <a
                    href={narrow({ costStatus: o.costStatus })}
                    className={costStatusClass(o.costStatus)}
                    title={COST_STATUS_HINT[o.costStatus]}
                  >
                    {o.costStatus}
                  </a>
                </td>
                <td className="num">{formatSeconds(o.latency)}</td>
                <td>
                  {o.level && o.level !== 'DEFAULT' ? (
                    <span className={o.level === 'ERROR' ? 'badge bad' : 'badge warn'}>{o.level}</span>
                  ) : (
                    (o.level ?? '—')
                  )}
                </td>
                <td>
                  {o.traceId ? (
                    <a href={traceHref(o.traceId)} aria-label={`Trace ${o.traceId}`}>
                      <code>{o.traceId.length > 14 ? `${o.traceId.slice(0, 12)}…` : o.traceId}</code>
                    </a>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
