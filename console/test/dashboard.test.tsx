import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { Dashboard } from '../src/pages/Dashboard.tsx';
import {
  costByModelQuery,
  daysOf,
  resolveRange,
  summaryQuery,
  toDailySeries,
  tokensByTypeQuery,
  topByCostQuery,
} from '../src/pages/dashboard/queries.ts';
import { formatUsd } from '../src/format.ts';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

type Q = { view: string; dimensions?: { field: string }[]; metrics: { measure: string; aggregation: string }[]; [k: string]: unknown };

/** answers each metrics query by its first dimension (or none), recording every query sent */
function metricsServer(byDimension: Record<string, unknown[]>, seen: Q[] = []) {
  mockServer.use(
    http.get(`${BASE_URL}/api/public/v2/metrics`, ({ request }) => {
      const q = JSON.parse(new URL(request.url).searchParams.get('query')!) as Q;
      seen.push(q);
      return HttpResponse.json({ data: byDimension[q.dimensions?.[0]?.field ?? ''] ?? [] });
    }),
  );
  return seen;
}

const MODELS = ['m-a', 'm-b', 'm-c', 'm-d', 'm-e', 'm-f', 'm-g', 'm-h', 'm-i', 'm-j'];
// two days apart (2026-11-02 has nothing), ten models: the two cheapest fold into "other"
const costRows = [
  ...MODELS.map((m, i) => ({ providedModelName: m, time_dimension: '2026-11-01', sum_totalCost: (10 - i) / 100 })),
  { providedModelName: '', time_dimension: '2026-11-02', sum_totalCost: 0 },
  { providedModelName: 'm-a', time_dimension: '2026-11-03', sum_totalCost: 0.000123 },
];

async function chooseCustom(from: string, to: string) {
  await userEvent.selectOptions(screen.getByLabelText('Range'), 'custom');
  fireEvent.change(screen.getByLabelText('From date'), { target: { value: from } });
  fireEvent.change(screen.getByLabelText('To date'), { target: { value: to } });
}

afterEach(() => mockServer.events.removeAllListeners());

describe('dashboard query builders', () => {
  const w = resolveRange({ kind: 'custom', from: '2026-11-01', to: '2026-11-03' }, new Date());

  it('turns a range into whole UTC days and the presets into windows ending now', () => {
    expect(w.from.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(w.to.toISOString()).toBe('2026-11-03T23:59:59.999Z');
    expect(daysOf(w)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
    const now = new Date('2026-11-22T10:00:00Z');
    const day = resolveRange({ kind: 'preset', preset: '24h' }, now);
    expect(day.from.toISOString()).toBe('2026-11-21T10:00:00.000Z');
    expect(daysOf(day)).toEqual(['2026-11-21', '2026-11-22']);
    expect(() => resolveRange({ kind: 'custom', from: '', to: '2026-11-03' }, now)).toThrow(/from date/);
    expect(() => resolveRange({ kind: 'custom', from: '2026-11-04', to: '2026-11-03' }, now)).toThrow(
      'The from date must not be after the to date.',
    );
  });

  it('builds the metrics queries', () => {
    expect(costByModelQuery(w, 'prod')).toEqual({
      view: 'observations',
      dimensions: [{ field: 'providedModelName' }],
      metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
      filters: [{ column: 'environment', operator: '=', value: 'prod', type: 'string' }],
      timeDimension: { granularity: 'day' },
      fromTimestamp: '2026-11-01T00:00:00.000Z',
      toTimestamp: '2026-11-03T23:59:59.999Z',
      config: { row_limit: 1000 },
    });
    expect(tokensByTypeQuery(w, null)).toMatchObject({
      dimensions: [{ field: 'usageType' }],
      metrics: [{ measure: 'usageByType', aggregation: 'sum' }],
      filters: [],
    });
    expect(topByCostQuery(w, null, 'userId')).toMatchObject({
      dimensions: [{ field: 'userId' }],
      orderBy: [{ field: 'sum_totalCost', direction: 'desc' }],
      config: { row_limit: 10 },
      metrics: [
        { measure: 'totalCost', aggregation: 'sum' },
        { measure: 'count', aggregation: 'count' },
      ],
    });
    expect(topByCostQuery(w, null, 'userId')).not.toHaveProperty('timeDimension');
    expect(summaryQuery(w, null).metrics.map((m) => `${m.aggregation}_${m.measure}`)).toEqual([
      'sum_totalCost',
      'count_count',
      'sum_totalTokens',
    ]);
  });

  it('fills missing days, keeps the top 8 and folds the rest into "other"', () => {
    const chart = toDailySeries(costRows, {
      dimension: 'providedModelName',
      metric: 'sum_totalCost',
      days: daysOf(w),
      noneLabel: '(no model)',
    });
    expect(chart.labels).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
    expect(chart.series.map((s) => s.label)).toEqual(['m-a', 'm-b', 'm-c', 'm-d', 'm-e', 'm-f', 'm-g', 'm-h', 'other']);
    expect(chart.series[0]!.values).toEqual([0.1, 0, 0.000123]);
    expect(chart.series[8]!.values[0]).toBeCloseTo(0.03);
    // a single leftover is shown by its own name, and the usage key "total" is left out of the stack
    const tokens = toDailySeries(
      [
        { usageType: 'input', time_dimension: '2026-11-01', sum_usageByType: 100 },
        { usageType: 'output', time_dimension: '2026-11-03', sum_usageByType: 20 },
        { usageType: 'total', time_dimension: '2026-11-01', sum_usageByType: 120 },
      ],
      { dimension: 'usageType', metric: 'sum_usageByType', days: daysOf(w), noneLabel: '?', skip: ['total'] },
    );
    expect(tokens.series).toEqual([
      { label: 'input', values: [100, 0, 0] },
      { label: 'output', values: [0, 0, 20] },
    ]);
  });

  it('formats tiny costs with enough decimals', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.3)).toBe('$0.30');
    expect(formatUsd(0.000123)).toBe('$0.000123');
    expect(formatUsd(0.1 + 0.2)).toBe('$0.30');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
  });
});

describe('Dashboard page', () => {
  it('sends the range and the environment in every query', async () => {
    const seen = metricsServer({
      environment: [
        { environment: 'production', count_count: 3 },
        { environment: 'staging', count_count: 1 },
      ],
    });
    renderSignedIn(<Dashboard />);
    // the default range is the last 7 days, all environments
    await waitFor(() => expect(seen.length).toBeGreaterThanOrEqual(6));
    const cost = seen.find((q) => q.dimensions?.[0]?.field === 'providedModelName')!;
    expect(cost).toMatchObject({
      view: 'observations',
      metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
      timeDimension: { granularity: 'day' },
      filters: [],
    });
    const span = Date.parse(cost.toTimestamp as string) - Date.parse(cost.fromTimestamp as string);
    expect(span).toBe(7 * 86_400_000);

    await chooseCustom('2026-11-01', '2026-11-03');
    await userEvent.selectOptions(
      await screen.findByRole('combobox', { name: 'Environment' }),
      await screen.findByRole('option', { name: 'staging' }),
    );
    await waitFor(() => expect(seen.some((q) => (q.filters as unknown[] | undefined)?.length)).toBe(true));
    const last = (field: string) => seen.filter((q) => q.dimensions?.[0]?.field === field).at(-1)!;
    for (const field of ['providedModelName', 'usageType', 'userId', 'name']) {
      expect(last(field)).toMatchObject({
        fromTimestamp: '2026-11-01T00:00:00.000Z',
        toTimestamp: '2026-11-03T23:59:59.999Z',
        filters: [{ column: 'environment', operator: '=', value: 'staging', type: 'string' }],
      });
    }
    expect(last('usageType')).toMatchObject({
      metrics: [{ measure: 'usageByType', aggregation: 'sum' }],
      timeDimension: { granularity: 'day' },
    });
    expect(last('userId')).toMatchObject({ orderBy: [{ field: 'sum_totalCost', direction: 'desc' }], config: { row_limit: 10 } });
    // the environment list itself is never narrowed by the chosen environment
    expect(last('environment').filters).toEqual([]);
  });

  it('shows the cost per day with empty days filled and the tail folded, the summary and the top tables', async () => {
    metricsServer({
      '': [{ sum_totalCost: 0.550123, count_count: 12, sum_totalTokens: 3400 }],
      providedModelName: costRows,
      usageType: [
        { usageType: 'input', time_dimension: '2026-11-01', sum_usageByType: 3000 },
        { usageType: 'output', time_dimension: '2026-11-03', sum_usageByType: 400 },
      ],
      userId: [
        { userId: 'alice', sum_totalCost: 0.5, count_count: 10 },
        { userId: null, sum_totalCost: 0.05, count_count: 2 },
      ],
      name: [{ name: 'chat', sum_totalCost: 0.55, count_count: 12 }],
    });
    renderSignedIn(<Dashboard />);
    await chooseCustom('2026-11-01', '2026-11-03');

    const table = await screen.findByRole('table', { name: 'Cost per day by model: numbers' });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(4));
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent?.trim());
    expect(headers.slice(1)).toEqual(['m-a', 'm-b', 'm-c', 'm-d', 'm-e', 'm-f', 'm-g', 'm-h', 'other']);
    const gap = within(table).getByRole('rowheader', { name: '2026-11-02' }).closest('tr')!;
    expect(
      within(gap)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(Array(9).fill('$0.00'));
    const first = within(table).getByRole('rowheader', { name: '2026-11-01' }).closest('tr')!;
    expect(
      within(first)
        .getAllByRole('cell')
        .map((c) => c.textContent)
        .at(-1),
    ).toBe('$0.03');
    const third = within(table).getByRole('rowheader', { name: '2026-11-03' }).closest('tr')!;
    expect(within(third).getAllByRole('cell')[0]).toHaveTextContent('$0.000123');

    const summary = screen.getByRole('region', { name: 'Summary' });
    await waitFor(() => expect(summary).toHaveTextContent('Total cost$0.5501'));
    expect(summary).toHaveTextContent('Observations12');
    expect(summary).toHaveTextContent('Total tokens3,400');

    const tokens = await screen.findByRole('table', { name: 'Tokens per day by usage type: numbers' });
    expect(within(tokens).getByRole('rowheader', { name: '2026-11-02' }).closest('tr')).toHaveTextContent('00');

    const users = await screen.findByRole('table', { name: 'Top users by cost' });
    expect(
      within(users)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual(['UserCostObservations', 'alice$0.5010', '(no user)$0.052']);
    const names = await screen.findByRole('table', { name: 'Top names by cost' });
    expect(names).toHaveTextContent('chat$0.5512');
  });

  it('says what to send when there is no data', async () => {
    metricsServer({});
    renderSignedIn(<Dashboard />);
    expect(await screen.findByText('No observations in this range')).toBeInTheDocument();
    expect(await screen.findByText('No cost in this range')).toBeInTheDocument();
    expect(await screen.findByText('No token usage in this range')).toBeInTheDocument();
    expect(await screen.findByText('No users in this range')).toBeInTheDocument();
    expect(screen.getAllByText('/api/public/ingestion', { exact: false }).length).toBeGreaterThan(0);
    expect(screen.queryByRole('table')).toBeNull();
  });

  it("shows the server's message when a query is refused", async () => {
    mockServer.use(
      http.get(`${BASE_URL}/api/public/v2/metrics`, () =>
        HttpResponse.json({ message: 'fromTimestamp must be before toTimestamp', error: 'InvalidRequestError' }, { status: 400 }),
      ),
    );
    renderSignedIn(<Dashboard />);
    const alerts = await screen.findAllByRole('alert');
    expect(alerts[0]).toHaveTextContent('fromTimestamp must be before toTimestamp');
    expect(alerts[0]).toHaveTextContent('400');
  });

  it('answers the spec example rows (cost by model per day)', async () => {
    renderSignedIn(<Dashboard />);
    await chooseCustom('2001-02-03', '2001-02-05');
    const table = await screen.findByRole('table', { name: 'Cost per day by model: numbers' });
    expect(
      within(table)
        .getAllByRole('rowheader')
        .map((h) => h.textContent),
    ).toEqual(['2001-02-03', '2001-02-04', '2001-02-05']);
    expect(within(table).getByRole('rowheader', { name: '2001-02-05' }).closest('tr')).toHaveTextContent('$0.25');
  });
});

describe('dashboard custom dates', () => {
  it('a cleared from date is reported by the From date field, a reversed range by the To date field', async () => {
    renderSignedIn(<Dashboard />);
    await chooseCustom('', '2026-11-03');
    expect(screen.getByLabelText('From date')).toHaveAccessibleDescription(/Pick both a from date and a to date/);
    expect(screen.getByLabelText('To date')).not.toHaveAccessibleDescription(/Pick both/);
    await chooseCustom('2026-11-04', '2026-11-03');
    expect(screen.getByLabelText('To date')).toHaveAccessibleDescription(/must not be after/);
    expect(screen.getByLabelText('From date')).not.toHaveAttribute('aria-invalid');
  });
});

describe('dashboard at phone width', () => {
  it("a chart's numbers table scrolls inside its own box (ten model columns made the whole page scroll sideways at 390 px)", async () => {
    mockServer.use(
      http.get(`${BASE_URL}/api/public/v2/metrics`, ({ request }) => {
        const q = JSON.parse(new URL(request.url).searchParams.get('query')!);
        const byModel = q.dimensions?.some((d: { field: string }) => d.field === 'providedModelName') && q.timeDimension;
        return HttpResponse.json({ data: byModel ? costRows : [] });
      }),
    );
    renderSignedIn(<Dashboard />);
    const table = await screen.findByRole('table', { name: 'Cost per day by model: numbers' });
    expect(table.parentElement).toHaveClass('table-wrap');
  });
});
