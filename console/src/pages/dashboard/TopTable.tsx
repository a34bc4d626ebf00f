// A top list by cost (models, users, names): ten rows, more on request up to what was fetched,
// each name a link to its traces or generations, and the whole list as a CSV.
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { CsvButton } from '../../components/CsvButton.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import type { ProblemText } from '../../api.ts';
import { formatCount, formatUsd } from '../../format.ts';

export interface TopEntry {
  /** null: the group without a value (no user, no name) */
  name: string | null;
  cost: number;
  tokens: number;
  count: number;
  href?: string;
  /** a swatch of the series colour this name has on the charts */
  color?: string;
  /** said after the name, e.g. "no price" */
  badge?: string;
}

const STEPS = [10, 50, 100];

export function TopTable({
  id,
  title,
  column,
  noneLabel,
  entries,
  error,
  loading,
  fetched,
  emptyHint,
  csvFilename,
}: {
  id: string;
  title: string;
  column: string;
  noneLabel: string;
  entries: TopEntry[] | undefined;
  error: ProblemText | undefined;
  loading: boolean;
  /** how many rows the query asked for: a full list may have more behind it */
  fetched: number;
  emptyHint: ReactNode;
  csvFilename: string;
}) {
  const [shown, setShown] = useState(STEPS[0]!);
  const focusRow = useRef<number | null>(null);
  const body = useRef<HTMLTableSectionElement>(null);
  const rows = entries ?? [];
  // the first row "Show more" revealed takes the focus, as the button may be gone
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once the rows `shown` reveals are in the table
  useEffect(() => {
    if (focusRow.current === null) return;
    body.current?.querySelectorAll<HTMLElement>('th[scope="row"]')[focusRow.current]?.focus();
    focusRow.current = null;
  }, [shown]);
  const next = STEPS.find((s) => s > shown) ?? rows.length;
  const label = (e: TopEntry) => e.name ?? noneLabel;
  return (
    <section className="card top-table" aria-labelledby={`top-${id}`}>
      <div className="card-title">
        <h2 id={`top-${id}`}>{title}</h2>
        {rows.length ? (
          <CsvButton
            what={title}
            filename={csvFilename}
            rows={() => [[column, 'cost_usd', 'tokens', 'observations'], ...rows.map((e) => [e.name ?? '', e.cost, e.tokens, e.count])]}
          />
        ) : null}
      </div>
      <ErrorBanner problem={error} title={title} />
      {loading && !entries ? <p className="muted">Loading…</p> : null}
      {entries && rows.length === 0 ? <EmptyState title={`No ${column.toLowerCase()}s in this range`}>{emptyHint}</EmptyState> : null}
      {rows.length ? (
        <>
          <div className="table-wrap">
            <table aria-label={title} id={`top-${id}-table`}>
              <thead>
                <tr>
                  <th scope="col">{column}</th>
                  <th scope="col" className="num">
                    Cost
                  </th>
                  <th scope="col" className="num">
                    Tokens
                  </th>
                  <th scope="col" className="num">
                    Observations
                  </th>
                </tr>
              </thead>
              <tbody ref={body}>
                {rows.slice(0, shown).map((e, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: rows are a ranking; two groups may show the same label (the none label)
                  <tr key={`${label(e)}-${i}`}>
                    <th scope="row" tabIndex={-1}>
                      {e.color ? <span className="swatch" style={{ background: e.color }} aria-hidden="true" /> : null}
                      {e.href ? <a href={e.href}>{label(e)}</a> : label(e)}
                      {e.badge ? <span className="badge warn">{e.badge}</span> : null}
                    </th>
                    <td className="num">{formatUsd(e.cost)}</td>
                    <td className="num">{formatCount(e.tokens)}</td>
                    <td className="num">{formatCount(e.count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="top-more">
            <span className="muted">
              {rows.length > shown
                ? `Top ${shown} of ${rows.length}`
                : rows.length >= fetched
                  ? `The top ${rows.length}`
                  : `All ${rows.length}`}
            </span>
            {rows.length > shown ? (
              <button
                type="button"
                className="secondary"
                aria-controls={`top-${id}-table`}
                onClick={() => {
                  focusRow.current = shown;
                  setShown(Math.min(next, rows.length));
                }}
              >
                Show {Math.min(next, rows.length) - shown} more
              </button>
            ) : null}
          </div>
        </>
      ) : null}
    </section>
  );
}
