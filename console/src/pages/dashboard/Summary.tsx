// The range's totals, and what they leave out: generations no price matched count in tokens and
// observations but add $0, so they are counted and weighed here (the generations by costStatus),
// with a link to the generations themselves.
import type { ReactNode } from 'react';
import type { ProblemText } from '../../api.ts';
import { CsvButton } from '../../components/CsvButton.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { formatCount, formatUsd } from '../../format.ts';
import type { CostStatusFigures, ModelRow } from './series.ts';

export interface Totals {
  cost: number;
  observations: number;
  tokens: number;
}

export interface Unpriced {
  /** the range's generations by costStatus; undefined until counted */
  figures: CostStatusFigures | undefined;
  error: ProblemText | undefined;
  /** models with tokens and no cost in the range, largest first */
  models: ModelRow[];
  unpricedHref: string;
  partialHref: string;
}

/** a share as a percentage; never 0% or 100% for a share that is not */
const percent = (share: number) =>
  share > 0 && share < 0.001 ? '<0.1%' : share < 1 && share > 0.999 ? '>99.9%' : `${(share * 100).toFixed(1).replace(/\.0$/, '')}%`;

const generations = (n: number) => `${formatCount(n)} ${n === 1 ? 'generation' : 'generations'}`;

/** what share of the generations' tokens had no price, and what share was in generations priced in part */
function tokenShares(g: CostStatusFigures): string {
  const share = (tokens: number) => `${percent(Math.min(1, tokens / g.all.tokens))} (${formatCount(tokens)})`;
  const partly = g.partial.tokens > 0 ? `, and ${share(g.partial.tokens)} in partly priced generations (priced in part)` : '';
  return `Of the ${formatCount(g.all.tokens)} tokens of generations in this range, ${share(g.unpriced.tokens)} are in generations without a price${partly}.`;
}

export function Summary({
  totals,
  error,
  loading,
  unpriced: u,
  emptyHint,
  csvFilename,
}: {
  totals: Totals | undefined;
  error: ProblemText | undefined;
  loading: boolean;
  unpriced: Unpriced;
  emptyHint: ReactNode;
  csvFilename: string;
}) {
  const g = u.figures;
  const none = g !== undefined && g.all.count === 0;
  const allPriced = g !== undefined && g.unpriced.count === 0 && g.partial.count === 0;
  return (
    <>
      <section className="card" aria-labelledby="dash-summary">
        <div className="card-title">
          <h2 id="dash-summary">Summary</h2>
          {totals && totals.observations > 0 ? (
            <CsvButton
              what="the summary"
              filename={csvFilename}
              rows={() => [
                ['figure', 'value'],
                ['total_cost_usd', totals.cost],
                ['observations', totals.observations],
                ['total_tokens', totals.tokens],
                ['generations', g?.all.count],
                ['generation_tokens', g?.all.tokens],
                ['generations_unpriced', g?.unpriced.count],
                ['tokens_of_generations_unpriced', g?.unpriced.tokens],
                ['generations_partly_priced', g?.partial.count],
                ['tokens_of_generations_partly_priced', g?.partial.tokens],
              ]}
            />
          ) : null}
        </div>
        <ErrorBanner problem={error} title="Summary" />
        {loading && !totals ? <p className="muted">Loading…</p> : null}
        {totals && totals.observations === 0 ? <EmptyState title="No observations in this range">{emptyHint}</EmptyState> : null}
        {totals && totals.observations > 0 ? (
          <dl className="figures">
            <div>
              <dt>Total cost</dt>
              <dd>{formatUsd(totals.cost)}</dd>
            </div>
            <div>
              <dt>Observations</dt>
              <dd>{formatCount(totals.observations)}</dd>
            </div>
            <div>
              <dt>Total tokens</dt>
              <dd>{formatCount(totals.tokens)}</dd>
            </div>
            <div>
              <dt>Without a price</dt>
              <dd>
                {g ? formatCount(g.unpriced.count) : u.error ? '—' : '…'}
                {g?.unpriced.count ? <span className="badge warn">not in the cost</span> : null}
              </dd>
            </div>
          </dl>
        ) : null}
      </section>
      {totals && totals.observations > 0 ? (
        <section className={allPriced ? 'card' : 'card unpriced'} aria-labelledby="dash-unpriced">
          <h2 id="dash-unpriced">Unpriced usage</h2>
          <ErrorBanner problem={u.error} title="Unpriced generations" />
          {!g && !u.error ? <p className="muted">Counting…</p> : null}
          {none ? <p>No generations in this range: nothing to price.</p> : null}
          {allPriced && !none ? <p>Every generation in this range has a price: the total cost covers all of them.</p> : null}
          {g && !allPriced ? (
            <ul className="unpriced-list">
              <li>
                {g.unpriced.count ? (
                  <a href={u.unpricedHref}>{generations(g.unpriced.count)} without a price</a>
                ) : (
                  'No generation without a price'
                )}
                : usage, but no model price matched, so they add $0 to the cost.
              </li>
              <li>
                {g.partial.count ? <a href={u.partialHref}>{generations(g.partial.count)} partly priced</a> : 'No generation partly priced'}
                : some of their usage types had no price, and those add $0.
              </li>
              {g.all.tokens > 0 ? <li>{tokenShares(g)}</li> : null}
              {u.models.length ? (
                <li>
                  Models with tokens but no cost in this range:{' '}
                  {u.models.map((m) => `${m.model} (${formatCount(m.tokens)} tokens)`).join(', ')}. Add their prices on the{' '}
                  <a href="#/models">Models</a> page.
                </li>
              ) : null}
            </ul>
          ) : null}
        </section>
      ) : null}
    </>
  );
}
