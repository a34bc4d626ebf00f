// Cost and usage of the project over a range: summary figures, cost per day by model, tokens
// per day by usage type, and the top users and names by cost — all from the metrics v2 API.
import { useMemo, useState } from 'react';
import { useTally } from '../api.ts';
import { Chart } from '../components/Chart.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { useLoad, type Loaded } from '../hooks.ts';
import { Filters } from './dashboard/Filters.tsx';
import { TopTable } from './dashboard/TopTable.tsx';
import {
  costByModelQuery,
  daysOf,
  environmentsQuery,
  resolveRange,
  summaryQuery,
  toDailySeries,
  tokensByTypeQuery,
  topByCostQuery,
  type MetricsQuery,
  type RangeChoice,
  type Row,
  type TimeWindow,
} from './dashboard/queries.ts';
import { formatCount, formatUsd } from '../format.ts';
import './dashboard/dashboard.css';

const SEND_HINT = (
  <>
    Send a generation with a model and usage (or <code>costDetails</code>) to <code>POST /api/public/ingestion</code>, or an OpenTelemetry
    span with <code>gen_ai.*</code> attributes to <code>/api/public/otel/v1/traces</code>, and it shows here.
  </>
);

/** one metrics v2 query; null (an unfinished custom range) sends nothing */
function useMetrics(query: MetricsQuery | null): Loaded<Row[]> {
  const tally = useTally();
  const key = query ? JSON.stringify(query) : '';
  return useLoad(async () => {
    if (!query) return [];
    const { data } = await tally.metrics.query({ query: { query: key } });
    return data.data as Row[];
  }, [key]);
}

function windowOf(choice: RangeChoice): { window?: TimeWindow; error?: string } {
  try {
    return { window: resolveRange(choice, new Date()) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

export function Dashboard() {
  const [choice, setChoice] = useState<RangeChoice>({ kind: 'preset', preset: '7d' });
  const [environment, setEnvironment] = useState('');
  const [tick, setTick] = useState(0);
  // "now" is read when the range changes or on Refresh, not on every render (that would re-query forever)
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by the range's value and the Refresh tick, on purpose
  const { window: w, error: rangeError } = useMemo(() => windowOf(choice), [JSON.stringify(choice), tick]);
  const env = environment || null;

  const environments = useMetrics(w ? environmentsQuery(w) : null);
  const summary = useMetrics(w ? summaryQuery(w, env) : null);
  const cost = useMetrics(w ? costByModelQuery(w, env) : null);
  const tokens = useMetrics(w ? tokensByTypeQuery(w, env) : null);
  const topUsers = useMetrics(w ? topByCostQuery(w, env, 'userId') : null);
  const topNames = useMetrics(w ? topByCostQuery(w, env, 'name') : null);

  const days = useMemo(() => (w ? daysOf(w) : []), [w]);
  const costChart = useMemo(
    () => toDailySeries(cost.data ?? [], { dimension: 'providedModelName', metric: 'sum_totalCost', days, noneLabel: '(no model)' }),
    [cost.data, days],
  );
  const tokenChart = useMemo(
    () =>
      toDailySeries(tokens.data ?? [], {
        dimension: 'usageType',
        metric: 'sum_usageByType',
        days,
        noneLabel: '(unnamed)',
        skip: ['total'],
      }),
    [tokens.data, days],
  );
  const envNames = (environments.data ?? []).map((r) => r.environment).filter((e): e is string => typeof e === 'string' && e !== '');

  const s = summary.data?.[0];
  const observations = Number(s?.count_count ?? 0);

  return (
    <div className="dashboard">
      <Filters
        choice={choice}
        onChoice={setChoice}
        environment={environment}
        onEnvironment={setEnvironment}
        environments={envNames}
        customError={rangeError}
        onRefresh={() => setTick((t) => t + 1)}
      />
      <ErrorBanner problem={environments.error} title="Environments" />
      {w ? (
        <>
          <section className="card" aria-labelledby="dash-summary">
            <h2 id="dash-summary">Summary</h2>
            <ErrorBanner problem={summary.error} title="Summary" />
            {summary.loading && !summary.data ? <p className="muted">Loading…</p> : null}
            {summary.data && observations === 0 ? <EmptyState title="No observations in this range">{SEND_HINT}</EmptyState> : null}
            {summary.data && observations > 0 ? (
              <dl className="figures">
                <div>
                  <dt>Total cost</dt>
                  <dd>{formatUsd(Number(s?.sum_totalCost ?? 0))}</dd>
                </div>
                <div>
                  <dt>Observations</dt>
                  <dd>{formatCount(observations)}</dd>
                </div>
                <div>
                  <dt>Total tokens</dt>
                  <dd>{formatCount(Number(s?.sum_totalTokens ?? 0))}</dd>
                </div>
              </dl>
            ) : null}
          </section>

          <section className="card" aria-labelledby="dash-cost">
            <h2 id="dash-cost">Cost per day by model</h2>
            <ErrorBanner problem={cost.error} title="Cost per day" />
            {cost.loading && !cost.data ? <p className="muted">Loading…</p> : null}
            {cost.data && costChart.series.length === 0 ? (
              <EmptyState title="No cost in this range">
                {SEND_HINT} Cost comes from the model's prices (see Models) or from the <code>costDetails</code> you send.
              </EmptyState>
            ) : null}
            {cost.data && costChart.series.length > 0 ? (
              <Chart title="Cost per day by model" labels={costChart.labels} series={costChart.series} stacked format={formatUsd} />
            ) : null}
          </section>

          <section className="card" aria-labelledby="dash-tokens">
            <h2 id="dash-tokens">Tokens per day by usage type</h2>
            <ErrorBanner problem={tokens.error} title="Tokens per day" />
            {tokens.loading && !tokens.data ? <p className="muted">Loading…</p> : null}
            {tokens.data && tokenChart.series.length === 0 ? (
              <EmptyState title="No token usage in this range">
                {SEND_HINT} Usage is read from <code>usageDetails</code> (input, output, …).
              </EmptyState>
            ) : null}
            {tokens.data && tokenChart.series.length > 0 ? (
              <Chart
                title="Tokens per day by usage type"
                labels={tokenChart.labels}
                series={tokenChart.series}
                stacked
                format={formatCount}
              />
            ) : null}
          </section>

          <div className="grid-2">
            <TopTable
              title="Top users by cost"
              field="userId"
              column="User"
              noneLabel="(no user)"
              loaded={topUsers}
              emptyHint={
                <>
                  Set <code>userId</code> on the trace of your generations to see who spends.
                </>
              }
            />
            <TopTable title="Top names by cost" field="name" column="Name" noneLabel="(no name)" loaded={topNames} emptyHint={SEND_HINT} />
          </div>
        </>
      ) : (
        <p className="muted">Pick a from date and a to date to see the range.</p>
      )}
    </div>
  );
}
