// Top users or names by cost: the rows as the server ordered them (sum_totalCost desc).
import type { ReactNode } from 'react';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import type { Loaded } from '../../hooks.ts';
import { formatCount, formatUsd } from '../../format.ts';
import type { Row } from './queries.ts';

export function TopTable({
  title,
  field,
  column,
  noneLabel,
  loaded,
  emptyHint,
}: {
  title: string;
  field: string;
  column: string;
  noneLabel: string;
  loaded: Loaded<Row[]>;
  emptyHint: ReactNode;
}) {
  const rows = loaded.data ?? [];
  return (
    <section className="card" aria-labelledby={`top-${field}`}>
      <h2 id={`top-${field}`}>{title}</h2>
      <ErrorBanner problem={loaded.error} title={title} />
      {loaded.loading && !loaded.data ? <p className="muted">Loading…</p> : null}
      {loaded.data && rows.length === 0 ? <EmptyState title={`No ${column.toLowerCase()}s in this range`}>{emptyHint}</EmptyState> : null}
      {rows.length ? (
        <div className="table-wrap">
          <table aria-label={title}>
            <thead>
              <tr>
                <th scope="col">{column}</th>
                <th scope="col" className="num">
                  Cost
                </th>
                <th scope="col" className="num">
                  Observations
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => {
                const name = r[field] === null || r[field] === undefined || r[field] === '' ? noneLabel : String(r[field]);
                return (
                  // biome-ignore lint/suspicious/noArrayIndexKey: rows are a ranking; two groups may show the same label (the none label)
                  <tr key={`${name}-${i}`}>
                    <th scope="row">{name}</th>
                    <td className="num">{formatUsd(Number(r.sum_totalCost ?? 0))}</td>
                    <td className="num">{formatCount(Number(r.count_count ?? 0))}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
