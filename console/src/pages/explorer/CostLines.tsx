// Usage buckets and cost lines of one observation, its costStatus and what it means, and on
// request the same usage priced with today's models (the Models page's explain panel).
import { useState } from 'react';
import type { ExplainCostResponse, Observation } from '../../../../sdk/index.ts';
import { describeError, useTally, type ProblemText } from '../../api.ts';
import { CostLinesTable } from '../../components/CostLinesTable.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { COST_STATUS_HINT, costStatusClass } from '../../cost-status.ts';
import { formatCount } from '../../format.ts';
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
      <CostLinesTable lines={costLines(o)} total={o.calculatedTotalCost} empty="No cost lines." />
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
