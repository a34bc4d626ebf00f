// What a reprice job changed (or would change), per UTC day and model, with a totals row. The rows
// grow while the job runs.
import type { RepriceChange } from '../../../../sdk/index.ts';
import { formatCount, formatUsd } from '../../format.ts';
import { signedUsd } from './reprice-format.ts';

const byDayThenModel = (a: RepriceChange, b: RepriceChange) => a.day.localeCompare(b.day) || (a.model ?? '').localeCompare(b.model ?? '');

export function ChangesTable({ changes, label, dryRun }: { changes: RepriceChange[]; label: string; dryRun: boolean }) {
  const rows = [...changes].sort(byDayThenModel);
  const total = rows.reduce(
    (t, c) => ({ generations: t.generations + c.generations, before: t.before + c.costBefore, after: t.after + c.costAfter }),
    { generations: 0, before: 0, after: 0 },
  );
  return (
    <div className="table-wrap">
      <table aria-label={label} className="reprice-changes">
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            <th scope="col">Model</th>
            <th scope="col" className="num">
              {dryRun ? 'Generations that would change' : 'Generations changed'}
            </th>
            <th scope="col" className="num">
              Cost before
            </th>
            <th scope="col" className="num">
              Cost after
            </th>
            <th scope="col" className="num">
              Difference
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={`${c.day} ${c.model ?? ''} ${c.modelId ?? ''}`}>
              <td>{c.day}</td>
              <th scope="row">
                {c.model ?? <span className="muted">no model</span>}
                {c.modelId ? null : <div className="muted small">no definition prices it now</div>}
              </th>
              <td className="num">{formatCount(c.generations)}</td>
              <td className="num">{formatUsd(c.costBefore)}</td>
              <td className="num">{formatUsd(c.costAfter)}</td>
              <td className="num">{signedUsd(c.costAfter - c.costBefore)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              Total
            </th>
            <td className="num">{formatCount(total.generations)}</td>
            <td className="num">{formatUsd(total.before)}</td>
            <td className="num">{formatUsd(total.after)}</td>
            <td className="num">{signedUsd(total.after - total.before)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
