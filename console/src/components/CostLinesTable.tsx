// Units × price = cost per usage type, with the total: a stored observation's cost (explorer) and
// a cost priced on request (the Models page's explain) read the same.
import { formatCost, formatCount, formatPrice } from '../format.ts';

export interface CostLine {
  usageType: string;
  units: number | null;
  /** USD per unit; null where there is none: the cost was sent, or the units have no price */
  price: number | null;
  cost: number | null;
  /** the key whose price it was charged at, when it has none of its own */
  pricedAs?: string;
}

export function CostLinesTable({ lines, total, empty }: { lines: CostLine[]; total: number | null; empty: string }) {
  if (!lines.length) return <p className="muted">{empty}</p>;
  return (
    <div className="table-wrap">
      <table aria-label="Cost lines">
        <thead>
          <tr>
            <th scope="col">Usage type</th>
            <th scope="col" className="num">
              Units
            </th>
            <th scope="col" className="num">
              Price (USD per unit)
            </th>
            <th scope="col" className="num">
              Cost (USD)
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <tr key={l.usageType}>
              <th scope="row">
                {l.usageType}
                {l.pricedAs ? <span className="muted"> at the {l.pricedAs} rate</span> : null}
              </th>
              <td className="num">{l.units === null ? '—' : formatCount(l.units)}</td>
              <td className="num">{l.price !== null ? formatPrice(l.price) : l.cost === null ? 'no price' : 'sent'}</td>
              <td className="num">{formatPrice(l.cost)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={3}>
              Total
            </th>
            <td className="num">{formatCost(total)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
