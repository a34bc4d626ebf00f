// Usage buckets and cost lines of one observation, its costStatus and what it means, and on
// request the same usage priced with today's models (the Models page's explain panel).
import { useState } from 'react';
import type { ExplainCostResponse, Observation } from '../../../../sdk/index.ts';
import { describeError, useTally, type ProblemText } from '../../api.ts';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { COST_STATUS_HINT, costStatusClass } from '../../cost-status.ts';
import { formatCost, formatCount, formatPrice } from '../../format.ts';
import { ExplainResult } from '../models/ExplainPanel.tsx';
import { costLines } from './cost-lines.ts';

export function UsageBuckets({ o }: { o: Observation }) {
  const usage = Object.entries(o.usageDetails);
  if (!usage.length) return <p className="muted">No usage reported.</p>;
  return (
    <div className="table-wrap">
      <table aria-label="Usage buckets">
        <thead>
          <tr>
            <th scope="col">Usage type</th>
            <th scope="col" className="num">
              Units ({o.unit.toLowerCase()})
            </th>
          </tr>
        </thead>
        <tbody>
          {usage.map(([k, v]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td className="num">{formatCount(v)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function CostLines({ o }: { o: Observation }) {
  const lines = costLines(o);
  return (
    <>
      <p>
        <span className={costStatusClass(o.costStatus)}>Cost status: {o.costStatus}</span>{' '}
        <span className="muted">{COST_STATUS_HINT[o.costStatus]}</span>
      </p>
      {o.unpricedUsageKeys.length ? (
        <p className="warn-text">
          No price for: <strong>{o.unpricedUsageKeys.join(', ')}</strong>. These units are not in the cost.
        </p>
      ) : null}
      {lines.length ? (
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
                  <td className="num">{l.cost === null ? '—' : formatPrice(l.cost)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row" colSpan={3}>
                  Total
                </th>
                <td className="num">{formatCost(o.calculatedTotalCost)}</td>
              </tr>
            </tfoot>
          </table>
        </div>
      ) : (
        <p className="muted">No cost lines.</p>
      )}
      {o.usagePricingTierName ? <p className="muted">Priced with the tier “{o.usagePricingTierName}”.</p> : null}
      {o.model ? <Reprice o={o} /> : null}
    </>
  );
}

/** the stored usage priced again with today's models and tiers: explains an unpriced one, or a price change */
function Reprice({ o }: { o: Observation }) {
  const tally = useTally();
  const [result, setResult] = useState<ExplainCostResponse>();
  const [problem, setProblem] = useState<ProblemText>();
  const [busy, setBusy] = useState(false);
  async function run() {
    if (busy) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const { data } = await tally.models.explain({
        body: {
          model: o.model!,
          usageDetails: o.usageDetails,
          modelParameters: isObject(o.modelParameters) ? o.modelParameters : null,
          metadata: o.metadata,
        },
      });
      setResult(data);
    } catch (e) {
      setProblem(describeError(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="reprice">
      <button type="button" className="secondary" onClick={run} aria-disabled={busy || undefined}>
        {busy ? 'Pricing…' : "Explain with today's prices"}
      </button>
      <ErrorBanner problem={problem} title="Could not explain" />
      {result ? <ExplainResult result={result} /> : null}
    </div>
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
