// The range's totals, and what they leave out: generations no price matched count in tokens and
// observations but add $0, so they are counted here, with a link to the generations themselves.
import type { ReactNode } from 'react';
import type { ProblemText } from '../../api.ts';
import { CsvButton } from '../../components/CsvButton.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { formatCount, formatUsd } from '../../format.ts';
import type { Loaded } from '../../hooks.ts';
import type { ModelRow } from './series.ts';

export interface Totals {
  cost: number;
  observations: number;
  tokens: number;
}

export interface Unpriced {
  unpriced: Loaded<number | undefined>;
  partial: Loaded<number | undefined>;
  /** models with tokens and no cost in the range, largest first */
  models: ModelRow[];
  unpricedHref: string;
  partialHref: string;
}

const percent = (share: number) => (share > 0 && share < 0.001 ? '<0.1%' : `${(share * 100).toFixed(1).replace(/\.0$/, '')}%`);

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
  const unpricedTokens = u.models.reduce((s, m) => s + m.tokens, 0);
  const share = totals && totals.tokens > 0 ? Math.min(1, unpricedTokens / totals.tokens) : 0;
  const counted = u.unpriced.data !== undefined && u.partial.data !== undefined;
  const allPriced = counted && u.unpriced.data === 0 && u.partial.data === 0 && u.models.length === 0;
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
                ['generations_unpriced', u.unpriced.data],
                ['generations_partly_priced', u.partial.data],
                ['tokens_of_models_without_price', unpricedTokens],
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
                {u.unpriced.data !== undefined ? formatCount(u.unpriced.data) : u.unpriced.error ? '—' : '…'}
                {u.unpriced.data ? <span className="badge warn">not in the cost</span> : null}
              </dd>
            </div>
          </dl>
        ) : null}
      </section>
      {totals && totals.observations > 0 ? (
        <section className={allPriced ? 'card' : 'card unpriced'} aria-labelledby="dash-unpriced">
          <h2 id="dash-unpriced">Unpriced usage</h2>
          <ErrorBanner problem={u.unpriced.error ?? u.partial.error} title="Unpriced generations" />
          {!counted && !u.unpriced.error && !u.partial.error ? <p className="muted">Counting…</p> : null}
          {allPriced ? <p>Every generation in this range has a price: the total cost covers all of them.</p> : null}
          {counted && !allPriced ? (
            <ul className="unpriced-list">
              <li>
                {u.unpriced.data ? (
                  <a href={u.unpricedHref}>
                    {formatCount(u.unpriced.data)} {u.unpriced.data === 1 ? 'generation' : 'generations'} without a price
                  </a>
                ) : (
                  'No generation without a price'
                )}
                : usage, but no model price matched, so they add $0 to the cost.
              </li>
              <li>
                {u.partial.data ? (
                  <a href={u.partialHref}>
                    {formatCount(u.partial.data)} {u.partial.data === 1 ? 'generation' : 'generations'} partly priced
                  </a>
                ) : (
                  'No generation partly priced'
                )}
                : some of their usage types had no price.
              </li>
              {u.models.length ? (
                <li>
                  {percent(share)} of tokens ({formatCount(unpricedTokens)}) are of models with no cost in this range:{' '}
                  {u.models.map((m) => `${m.model} (${formatCount(m.tokens)})`).join(', ')}. Add their prices on the{' '}
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
