// One page of scores (GET /api/public/v2/scores) as a table: name, value, where each score is
// (the columns the caller gives: a trace's own page needs no trace column), comment and time.
import type { ReactNode } from 'react';
import type { Score } from '../../../../sdk/index.ts';
import { formatTime } from '../../format.ts';
import { scoreValue } from './format.ts';

export interface ScoreColumn {
  header: string;
  cell: (s: Score) => ReactNode;
}

/** `total`: how many the server holds; more than `scores` says which part is shown */
export function ScoresTable({ label, scores, total, where }: { label: string; scores: Score[]; total: number; where: ScoreColumn[] }) {
  return (
    <>
      {total > scores.length ? (
        <p className="muted">
          The newest {scores.length} of {total}.
        </p>
      ) : null}
      <div className="table-wrap">
        <table aria-label={label}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
              {where.map((c) => (
                <th key={c.header} scope="col">
                  {c.header}
                </th>
              ))}
              <th scope="col">Comment</th>
              <th scope="col">Time</th>
            </tr>
          </thead>
          <tbody>
            {scores.map((s) => (
              <tr key={s.id}>
                <th scope="row">{s.name}</th>
                <td>{scoreValue(s)}</td>
                {where.map((c) => (
                  <td key={c.header}>{c.cell(s)}</td>
                ))}
                <td className="score-comment">{s.comment ?? '—'}</td>
                <td className="nowrap">{formatTime(s.timestamp)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
