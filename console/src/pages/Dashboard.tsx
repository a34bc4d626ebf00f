// Cost and usage of the project over a range, narrowed by environment, model, user, tag and name
// (all in the URL): summary figures with what has no price, cost per bucket by model, tokens per
// bucket by usage type, and the models, users and names by cost, linked to the explorer. All from
// the metrics v2 API (what has no price: the generations by costStatus).
import { useMemo, useState } from 'react';
import { colorFor } from '../components/colors.ts';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { formatCount, formatUsd } from '../format.ts';
import { type ExplorerFilters, generationsHref, tracesHref } from '../links.ts';
import { ChartCard } from './dashboard/ChartCard.tsx';
import { Filters } from './dashboard/Filters.tsx';
import { useLastComplete, useMetrics } from './dashboard/load.ts';
import {
  costByModelQuery,
  costStatusQuery,
  costTotalQuery,
  modelsQuery,
  optionsQuery,
  optionValues,
  type Row,
  summaryQuery,
  TOP_LIMIT,
  tokensByTypeQuery,
  topByCostQuery,
} from './dashboard/queries.ts';
import { chartModels, costSeries, costStatusFigures, modelRows, toSeries } from './dashboard/series.ts';
import { bucketsOf, customProblem, resolveRange, type TimeWindow, utcDay } from './dashboard/range.ts';
import { Summary } from './dashboard/Summary.tsx';
import { type TopEntry, TopTable } from './dashboard/TopTable.tsx';
import { choiceOf, type DashboardFilters, filtersOf, useDashboardView } from './dashboard/view.ts';
import './dashboard/dashboard.css';

const SEND_HINT = (
  <>
    Send a generation with a model and usage (or <code>costDetails</code>) to <code>POST /api/public/ingestion</code>, or an OpenTelemetry
    span with <code>gen_ai.*</code> attributes to <code>/api/public/otel/v1/traces</code>, and it shows here.
  </>
);

function windowOf(view: ReturnType<typeof useDashboardView>['settled']): TimeWindow | undefined {
  try {
    return resolveRange(choiceOf(view), new Date());
  } catch {
    return undefined; // the fields say why (Filters)
  }
}

/** the explorer's view of the same window: `to` exclusive there, so the millisecond after ours */
function explorerWindow(w: TimeWindow): ExplorerFilters {
  return { from: w.from.toISOString(), to: new Date(w.to.getTime() + 1).toISOString() };
}

/** a file name that says what and when: tally-cost-by-model-2026-11-01-2026-11-07.csv */
function csvName(what: string, w: TimeWindow): string {
  const stamp = (d: Date) => (w.bucket === 'minute' || w.bucket === 'hour' ? d.toISOString().slice(0, 16).replace(':', '') : utcDay(d));
  return `tally-${what}-${stamp(w.from)}-${stamp(w.to)}.csv`;
}

const entries = (rows: Row[] | undefined, field: string, href: (value: string) => string): TopEntry[] | undefined =>
  rows?.map((r) => {
    const name = r[field] === null || r[field] === undefined || r[field] === '' ? null : String(r[field]);
    return {
      name,
      cost: Number(r.sum_totalCost ?? 0) || 0,
      tokens: Number(r.sum_totalTokens ?? 0) || 0,
      count: Number(r.count_count ?? 0) || 0,
      href: name === null ? undefined : href(name),
    };
  });

export function Dashboard() {
  const { view, settled, update } = useDashboardView();
  const [tick, setTick] = useState(0);
  const settledKey = JSON.stringify(settled);
  // "now" is read when the settled view changes or on Refresh, not on every render (that would re-query forever)
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by the view's value and the Refresh tick, on purpose
  const w = useMemo(() => windowOf(settled), [settledKey, tick]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by the view's value
  const f: DashboardFilters = useMemo(() => filtersOf(settled), [settledKey]);
  // fields being typed into that do not make a range yet: nothing is shown for a range not asked for
  const pending = view.range === 'custom' && customProblem(view.from ?? '', view.to ?? '', new Date()) !== undefined;

  const environments = useMetrics(w ? optionsQuery(w, 'environment') : null);
  const tags = useMetrics(w ? optionsQuery(w, 'tags') : null);
  const summary = useMetrics(w ? summaryQuery(w, f) : null);
  const models = useMetrics(w ? modelsQuery(w, f) : null);
  const costTotal = useMetrics(w ? costTotalQuery(w, f) : null);
  const tokens = useMetrics(w ? tokensByTypeQuery(w, f) : null);
  const topUsers = useMetrics(w ? topByCostQuery(w, f, 'userId') : null);
  const topNames = useMetrics(w ? topByCostQuery(w, f, 'name') : null);
  const costStatus = useMetrics(w ? costStatusQuery(w, f) : null);

  const modelList = useMemo(() => modelRows(models.data ?? []), [models.data]);
  const statusFigures = useMemo(() => (costStatus.data ? costStatusFigures(costStatus.data) : undefined), [costStatus.data]);
  // the per-model series wait for this range's model list, so they are asked for once, for the right models
  const priced = models.fresh ? chartModels(modelList).priced : [];
  const costByModel = useMetrics(w && models.fresh && priced.length ? costByModelQuery(w, f, priced) : null);
  const costReady = models.fresh && costTotal.fresh && (priced.length === 0 || costByModel.fresh);

  const buckets = useMemo(() => (w ? bucketsOf(w) : []), [w]);
  const costChart = useLastComplete(
    useMemo(
      () => (costReady ? costSeries(costByModel.data ?? [], costTotal.data ?? [], modelList, buckets) : undefined),
      [costReady, costByModel.data, costTotal.data, modelList, buckets],
    ),
  );
  const tokenChart = useMemo(
    () =>
      toSeries(tokens.data ?? [], { dimension: 'usageType', metric: 'sum_usageByType', buckets, noneLabel: '(unnamed)', skip: ['total'] }),
    [tokens.data, buckets],
  );

  const s = summary.data?.[0];
  // no row at all is an empty range too
  const totals = summary.data
    ? { cost: Number(s?.sum_totalCost ?? 0), observations: Number(s?.count_count ?? 0), tokens: Number(s?.sum_totalTokens ?? 0) }
    : undefined;
  const ew = w ? explorerWindow(w) : {};
  // the dashboard's filters that mean the same on the explorer page linked to
  const forGenerations: ExplorerFilters = { ...ew, env: f.env, tag: f.tag, user: f.user, name: f.name, model: f.model };
  const forTraces: ExplorerFilters = { ...ew, env: f.env, tag: f.tag, user: f.user };
  const bucket = w?.bucket ?? 'day';
  const costTitle = `Cost per ${bucket} by model`;
  const tokenTitle = `Tokens per ${bucket} by usage type`;

  const modelEntries: TopEntry[] | undefined = models.data
    ? modelList.map((m) => ({
        ...m,
        name: m.model,
        href: m.model === null ? undefined : generationsHref({ ...forGenerations, model: m.model }),
        color: m.model === null ? undefined : colorFor(m.model),
        badge: m.unpriced ? 'no price' : undefined,
      }))
    : undefined;
  const userEntries = entries(topUsers.data, 'userId', (user) => tracesHref({ ...forTraces, user }));
  const nameEntries = entries(topNames.data, 'name', (name) => generationsHref({ ...forGenerations, name }));

  return (
    <div className="dashboard">
      <Filters
        view={view}
        onView={update}
        options={{
          environments: optionValues(environments.data ?? [], 'environment'),
          tags: optionValues(tags.data ?? [], 'tags'),
          users: optionValues(topUsers.data ?? [], 'userId'),
          models: modelList.flatMap((m) => (m.model ? [m.model] : [])),
          names: optionValues(topNames.data ?? [], 'name'),
        }}
        onRefresh={() => setTick((t) => t + 1)}
      />
      <ErrorBanner problem={environments.error ?? tags.error} title="Filter choices" />
      {w && !pending ? (
        <>
          <Summary
            totals={totals}
            error={summary.error}
            loading={summary.loading}
            emptyHint={SEND_HINT}
            csvFilename={csvName('summary', w)}
            unpriced={{
              figures: statusFigures,
              error: costStatus.error,
              models: modelList.filter((m) => m.unpriced).sort((a, b) => b.tokens - a.tokens),
              unpricedHref: generationsHref({ ...forGenerations, costStatus: 'unpriced' }),
              partialHref: generationsHref({ ...forGenerations, costStatus: 'partial' }),
            }}
          />

          <ChartCard
            id="dash-cost"
            title={costTitle}
            chart={costChart}
            error={models.error ?? costTotal.error ?? costByModel.error}
            empty={{
              title: 'No cost in this range',
              hint: (
                <>
                  {SEND_HINT} Cost comes from the model's prices (see Models) or from the <code>costDetails</code> you send.
                </>
              ),
            }}
            format={formatUsd}
            csv={{ filename: csvName('cost-by-model', w), labelHeader: `${bucket}_utc` }}
          />
          <ChartCard
            id="dash-tokens"
            title={tokenTitle}
            chart={tokenChart}
            error={tokens.error}
            empty={{
              title: 'No token usage in this range',
              hint: (
                <>
                  {SEND_HINT} Usage is read from <code>usageDetails</code> (input, output, …).
                </>
              ),
            }}
            note={
              tokens.data && tokens.data.length >= 1000 ? (
                <p className="muted">
                  More usage types than one chart holds: the newest buckets may be missing. Narrow the range or the filters.
                </p>
              ) : null
            }
            format={formatCount}
            csv={{ filename: csvName('tokens-by-usage-type', w), labelHeader: `${bucket}_utc` }}
          />

          <TopTable
            id="models"
            title="Models by cost"
            column="Model"
            noneLabel="(no model)"
            entries={modelEntries}
            error={models.error}
            loading={models.loading}
            fetched={1000}
            emptyHint={SEND_HINT}
            csvFilename={csvName('models', w)}
          />
          <div className="grid-2">
            <TopTable
              id="userId"
              title="Top users by cost"
              column="User"
              noneLabel="(no user)"
              entries={userEntries}
              error={topUsers.error}
              loading={topUsers.loading}
              fetched={TOP_LIMIT}
              emptyHint={
                <>
                  Set <code>userId</code> on the trace of your generations to see who spends.
                </>
              }
              csvFilename={csvName('users', w)}
            />
            <TopTable
              id="name"
              title="Top names by cost"
              column="Name"
              noneLabel="(no name)"
              entries={nameEntries}
              error={topNames.error}
              loading={topNames.loading}
              fetched={TOP_LIMIT}
              emptyHint={SEND_HINT}
              csvFilename={csvName('names', w)}
            />
          </div>
        </>
      ) : (
        <p className="muted">Pick valid dates to see this range.</p>
      )}
    </div>
  );
}
