import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MetricsQuery } from '../../sdk/index.ts';
import { colorFor, PALETTE } from '../src/components/colors.ts';
import { plainNumber, toCsv } from '../src/components/csv.ts';
import { formatUsd } from '../src/format.ts';
import { generationsHref, tracesHref } from '../src/links.ts';
import { Dashboard } from '../src/pages/Dashboard.tsx';
import {
  costByModelQuery,
  costStatusQuery,
  filtersFor,
  summaryQuery,
  tokensByTypeQuery,
  topByCostQuery,
} from '../src/pages/dashboard/queries.ts';
import { chartModels, costSeries, costStatusFigures, modelRows, toSeries } from '../src/pages/dashboard/series.ts';
import { axisBucket, bucketsOf, customProblem, displayBucket, resolveRange } from '../src/pages/dashboard/range.ts';
import { viewOf } from '../src/pages/dashboard/view.ts';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

type Q = MetricsQuery;

/**
 * What kind of query a metrics query is, by its first dimension and whether it is a time series:
 * `providedModelName` the model list, `providedModelName@` the cost per bucket by model, `@` the
 * total cost per bucket, `costStatus` the generations by costStatus, `` the summary.
 */
const kindOf = (q: Q) => `${q.dimensions?.[0]?.field ?? ''}${q.timeDimension ? '@' : ''}`;

/** answers each metrics query by its kind, recording every query sent */
function metricsServer(byKind: Record<string, unknown[]>, seen: Q[] = []) {
  mockServer.use(
    http.get(`${BASE_URL}/api/public/v2/metrics`, ({ request }) => {
      const q = JSON.parse(new URL(request.url).searchParams.get('query')!) as Q;
      seen.push(q);
      return HttpResponse.json({ data: byKind[kindOf(q)] ?? [] });
    }),
  );
  return seen;
}

/** counts the calls to the observation list: the dashboard reads what has no price from the metrics, not from the list */
function listServer() {
  const calls: string[] = [];
  mockServer.use(
    http.get(`${BASE_URL}/api/public/observations`, ({ request }) => {
      calls.push(request.url);
      return HttpResponse.json({ data: [], meta: { page: 1, limit: 1, totalItems: 0, totalPages: 1 } });
    }),
  );
  return calls;
}

/** the filter that keeps the costStatus query to generations */
const GENERATIONS = { column: 'type', operator: 'any of', value: ['GENERATION'], type: 'stringOptions' };

/** typed changes are queried SETTLE_MS after the last keystroke, the cost chart after two answers in a row: room for both on a busy machine */
const SETTLED = { timeout: 4000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const last = (seen: Q[], kind: string) => seen.filter((q) => kindOf(q) === kind).at(-1)!;

const MODELS = ['m-a', 'm-b', 'm-c', 'm-d', 'm-e', 'm-f', 'm-g', 'm-h', 'm-i', 'm-j'];
const modelList = MODELS.map((m, i) => ({ providedModelName: m, sum_totalCost: (10 - i) / 100, sum_totalTokens: 1000, count_count: 1 }));
// two days apart (2026-11-02 has nothing): the eight priced models the chart names, and the total of all ten
const costByModelRows = [
  ...MODELS.slice(0, 8).map((m, i) => ({ providedModelName: m, time_dimension: '2026-11-01', sum_totalCost: (10 - i) / 100 })),
  { providedModelName: '', time_dimension: '2026-11-02', sum_totalCost: 0 },
  { providedModelName: 'm-a', time_dimension: '2026-11-03', sum_totalCost: 0.000123 },
];
const costTotalRows = [
  { time_dimension: '2026-11-01', sum_totalCost: 0.55 },
  { time_dimension: '2026-11-02', sum_totalCost: 0 },
  { time_dimension: '2026-11-03', sum_totalCost: 0.000123 },
];

async function chooseCustom(from: string, to: string) {
  await userEvent.selectOptions(screen.getByLabelText('Range'), 'custom');
  fireEvent.change(screen.getByLabelText('From date'), { target: { value: from } });
  fireEvent.change(screen.getByLabelText('To date'), { target: { value: to } });
}

const cellsOf = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((c) => c.textContent);

afterEach(() => {
  mockServer.events.removeAllListeners();
  vi.restoreAllMocks();
});

describe('dashboard ranges', () => {
  const now = new Date('2026-11-22T10:37:00Z');

  it('gives each preset a bucket that fits: minutes for an hour, hours for a day, days up to 90 days and for the month so far', () => {
    const of = (preset: string) => resolveRange({ kind: 'preset', preset: preset as '1h' }, now);
    expect(of('1h')).toMatchObject({ from: new Date('2026-11-22T09:37:00Z'), to: now, bucket: 'minute' });
    expect(of('24h')).toMatchObject({ from: new Date('2026-11-21T10:37:00Z'), bucket: 'hour' });
    for (const p of ['7d', '14d', '30d', '90d']) expect(of(p).bucket).toBe('day');
    expect(of('90d').from).toEqual(new Date('2026-08-24T10:37:00Z'));
    expect(of('mtd')).toMatchObject({ from: new Date('2026-11-01T00:00:00Z'), to: now, bucket: 'day' });
    // the last 24 hours are 25 hourly buckets (the first and last partly), labelled as the server labels them
    const hours = bucketsOf(of('24h'));
    expect(hours).toHaveLength(25);
    expect(hours[0]).toBe('2026-11-21T10:00:00Z');
    expect(hours.at(-1)).toBe('2026-11-22T10:00:00Z');
    expect(bucketsOf(of('1h'))).toHaveLength(61);
    // the numbers table reads a bucket in full (UTC), the axis without the year
    expect(displayBucket('2026-11-22T10:00:00Z')).toBe('2026-11-22 10:00');
    expect(axisBucket('2026-11-22T10:00:00Z')).toBe('11-22 10:00');
    expect(axisBucket('2026-11-22')).toBe('2026-11-22');
    expect(bucketsOf(of('mtd'))).toEqual(Array.from({ length: 22 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`));
  });

  it('turns custom dates into whole UTC days, with a bucket for the span', () => {
    const w = resolveRange({ kind: 'custom', from: '2026-11-01', to: '2026-11-03' }, now);
    expect(w).toEqual({ from: new Date('2026-11-01T00:00:00.000Z'), to: new Date('2026-11-03T23:59:59.999Z'), bucket: 'hour' });
    expect(resolveRange({ kind: 'custom', from: '2026-11-01', to: '2026-11-01' }, now).bucket).toBe('hour');
    expect(resolveRange({ kind: 'custom', from: '2026-08-01', to: '2026-11-03' }, now).bucket).toBe('day');
    const year = resolveRange({ kind: 'custom', from: '2025-11-01', to: '2026-11-03' }, now);
    expect(year.bucket).toBe('week');
    // weeks start on Monday, as the server's do: 2025-11-01 is a Saturday
    expect(bucketsOf(year)[0]).toBe('2025-10-27');
    expect(resolveRange({ kind: 'custom', from: '2020-01-15', to: '2026-11-03' }, now).bucket).toBe('month');
  });

  it('says what is wrong with custom dates, by the date it concerns', () => {
    expect(customProblem('', '2026-11-03', now)).toEqual({ field: 'from', message: 'Pick both a from date and a to date.' });
    // a date input passes through the year typed so far
    expect(customProblem('0002-11-01', '2026-11-03', now)).toEqual({ field: 'from', message: 'Pick a year from 1970 to 2027.' });
    expect(customProblem('2026-11-01', '20261-11-03', now)?.field).toBe('to');
    expect(customProblem('2026-02-30', '2026-11-03', now)).toEqual({ field: 'from', message: '2026-02-30 is not a date.' });
    expect(customProblem('2026-11-04', '2026-11-03', now)).toEqual({
      field: 'to',
      message: 'The from date must not be after the to date.',
    });
    expect(customProblem('1990-01-01', '2026-11-03', now)).toEqual({ field: 'to', message: 'Pick at most 10 years.' });
    expect(customProblem('2026-11-03', '2026-11-03', now)).toBeUndefined();
  });

  it('reads the range and the filters from the URL', () => {
    expect(viewOf('#/dashboard?range=24h&user=alice&tag=t1&model=gpt&name=chat&env=prod&page=3')).toEqual({
      range: '24h',
      user: 'alice',
      tag: 't1',
      model: 'gpt',
      name: 'chat',
      env: 'prod',
    });
    expect(viewOf('#/dashboard?from=2026-11-01&to=2026-11-03')).toEqual({ range: 'custom', from: '2026-11-01', to: '2026-11-03' });
    expect(viewOf('#/dashboard?range=nonsense')).toEqual({ range: '7d' });
    expect(viewOf('')).toEqual({ range: '7d' });
  });
});

describe('dashboard query builders', () => {
  const w = resolveRange({ kind: 'custom', from: '2026-11-01', to: '2026-11-10' }, new Date());

  it('turns each filter into a metrics filter on the observations view', () => {
    expect(filtersFor({ user: 'alice', tag: 't1', model: 'gpt-4o', name: 'chat', env: 'prod' })).toEqual([
      { column: 'userId', operator: '=', value: 'alice', type: 'string' },
      { column: 'tags', operator: 'any of', value: ['t1'], type: 'arrayOptions' },
      { column: 'providedModelName', operator: '=', value: 'gpt-4o', type: 'string' },
      { column: 'name', operator: '=', value: 'chat', type: 'string' },
      { column: 'environment', operator: '=', value: 'prod', type: 'string' },
    ]);
    expect(filtersFor({ user: '' })).toEqual([]);
  });

  it('builds the metrics queries', () => {
    expect(costByModelQuery(w, { env: 'prod' }, ['m-a', 'm-b'])).toEqual({
      view: 'observations',
      dimensions: [{ field: 'providedModelName' }],
      metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
      filters: [
        { column: 'environment', operator: '=', value: 'prod', type: 'string' },
        { column: 'providedModelName', operator: 'any of', value: ['m-a', 'm-b'], type: 'stringOptions' },
      ],
      timeDimension: { granularity: 'day' },
      fromTimestamp: '2026-11-01T00:00:00.000Z',
      toTimestamp: '2026-11-10T23:59:59.999Z',
      config: { row_limit: 1000 },
    });
    expect(tokensByTypeQuery(w, {})).toMatchObject({
      dimensions: [{ field: 'usageType' }],
      metrics: [{ measure: 'usageByType', aggregation: 'sum' }],
      filters: [],
    });
    expect(topByCostQuery(w, {}, 'userId')).toMatchObject({
      dimensions: [{ field: 'userId' }],
      orderBy: [{ field: 'sum_totalCost', direction: 'desc' }],
      config: { row_limit: 100 },
    });
    expect(topByCostQuery(w, {}, 'userId')).not.toHaveProperty('timeDimension');
    expect(summaryQuery(w, {}).metrics.map((m) => `${m.aggregation}_${m.measure}`)).toEqual([
      'sum_totalCost',
      'count_count',
      'sum_totalTokens',
    ]);
  });

  it('counts and weighs the generations by costStatus, narrowed by the same filters', () => {
    expect(costStatusQuery(w, { user: 'alice', model: 'm-x', tag: 't1', env: 'prod', name: 'chat' })).toEqual({
      view: 'observations',
      dimensions: [{ field: 'costStatus' }],
      metrics: [
        { measure: 'count', aggregation: 'count' },
        { measure: 'totalTokens', aggregation: 'sum' },
      ],
      filters: [
        { column: 'userId', operator: '=', value: 'alice', type: 'string' },
        { column: 'providedModelName', operator: '=', value: 'm-x', type: 'string' },
        { column: 'tags', operator: 'any of', value: ['t1'], type: 'arrayOptions' },
        { column: 'environment', operator: '=', value: 'prod', type: 'string' },
        { column: 'name', operator: '=', value: 'chat', type: 'string' },
        { column: 'type', operator: 'any of', value: ['GENERATION'], type: 'stringOptions' },
      ],
      fromTimestamp: '2026-11-01T00:00:00.000Z',
      toTimestamp: '2026-11-10T23:59:59.999Z',
    });
    expect(
      costStatusFigures([
        { costStatus: 'inferred', count_count: 10, sum_totalTokens: 4000 },
        { costStatus: 'unpriced', count_count: 27, sum_totalTokens: 5400 },
        { costStatus: 'partial', count_count: '3', sum_totalTokens: '500' },
        { costStatus: 'none', count_count: 2, sum_totalTokens: null },
        { costStatus: null, count_count: 1, sum_totalTokens: 100 },
      ]),
    ).toEqual({ unpriced: { count: 27, tokens: 5400 }, partial: { count: 3, tokens: 500 }, all: { count: 43, tokens: 10000 } });
    expect(costStatusFigures([])).toEqual({
      unpriced: { count: 0, tokens: 0 },
      partial: { count: 0, tokens: 0 },
      all: { count: 0, tokens: 0 },
    });
  });

  it('fills missing buckets, keeps the top 8 and folds the rest into "other"', () => {
    const rows = MODELS.map((m, i) => ({ providedModelName: m, time_dimension: '2026-11-01', sum_totalCost: (10 - i) / 100 }));
    const chart = toSeries(rows, {
      dimension: 'providedModelName',
      metric: 'sum_totalCost',
      buckets: ['2026-11-01', '2026-11-02'],
      noneLabel: '?',
    });
    expect(chart.labels).toEqual(['2026-11-01', '2026-11-02']);
    expect(chart.series.map((s) => s.label)).toEqual([...MODELS.slice(0, 8), 'other']);
    expect(chart.series[8]!.values[0]).toBeCloseTo(0.03);
    // a single leftover is shown by its own name, and the usage key "total" is left out of the stack
    const tokens = toSeries(
      [
        { usageType: 'input', time_dimension: '2026-11-01', sum_usageByType: 100 },
        { usageType: 'output', time_dimension: '2026-11-02', sum_usageByType: 20 },
        { usageType: 'total', time_dimension: '2026-11-01', sum_usageByType: 120 },
      ],
      { dimension: 'usageType', metric: 'sum_usageByType', buckets: ['2026-11-01', '2026-11-02'], noneLabel: '?', skip: ['total'] },
    );
    expect(tokens.series).toEqual([
      { label: 'input', values: [100, 0] },
      { label: 'output', values: [0, 20] },
    ]);
  });

  it('names the priced models, folds the rest as total less them, and keeps unpriced models in the legend', () => {
    const models = modelRows([
      ...modelList,
      { providedModelName: 'm-free', sum_totalCost: 0, sum_totalTokens: 5400, count_count: 27 },
      { providedModelName: null, sum_totalCost: 0, sum_totalTokens: 0, count_count: 4 },
    ]);
    expect(models.find((m) => m.model === 'm-free')).toMatchObject({ unpriced: true, tokens: 5400, count: 27 });
    expect(models.find((m) => m.model === null)).toMatchObject({ unpriced: false });
    // one unpriced model takes a place in the legend: seven priced ones, "other", the unpriced one
    expect(chartModels(models)).toEqual({ priced: MODELS.slice(0, 7), unpriced: ['m-free'] });
    const chart = costSeries(costByModelRows, costTotalRows, models, ['2026-11-01', '2026-11-02', '2026-11-03']);
    expect(chart.series.map((s) => s.label)).toEqual([...MODELS.slice(0, 7), 'other', 'm-free (no price)']);
    // other: the total (0.55) less the seven named (0.1 + … + 0.04 = 0.49), with no float dust on the empty day
    expect(chart.series[7]!.values[0]).toBeCloseTo(0.06);
    expect(chart.series[7]!.values.slice(1)).toEqual([0, 0]);
    expect(chart.series[8]).toEqual({ label: 'm-free (no price)', values: [0, 0, 0], color: colorFor('m-free') });
  });
});

describe('stable colours', () => {
  it('gives a name the same colour wherever it is, from a palette that reads on white', () => {
    expect(colorFor('gpt-4o')).toBe(colorFor('gpt-4o'));
    expect(PALETTE).toContain(colorFor('gpt-4o'));
    // not all names one colour
    expect(new Set(MODELS.map(colorFor)).size).toBeGreaterThan(4);
    const luminance = (hex: string) => {
      const [r, g, b] = [1, 3, 5]
        .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
        .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    for (const c of PALETTE) expect(1.05 / (luminance(c) + 0.05)).toBeGreaterThanOrEqual(3);
  });
});

describe('CSV', () => {
  it('quotes what needs quoting, defuses formulas and writes numbers in full', () => {
    expect(
      toCsv([
        ['model', 'cost'],
        ['gpt, "4o"', 0.0000001],
        ['line\nbreak', 1.5e21],
        ['=HYPERLINK("x")', -0.25],
        [null, 12],
      ]),
    ).toBe('model,cost\r\n"gpt, ""4o""",0.0000001\r\n"line\nbreak",1500000000000000000000\r\n"\'=HYPERLINK(""x"")",-0.25\r\n,12\r\n');
    expect(plainNumber(1.2345e-10)).toBe('0.00000000012345');
    expect(plainNumber(0.000123)).toBe('0.000123');
  });
});

/** the CSV the next click on a CSV button downloads */
function captureCsv(): () => Promise<string> {
  let blob: Blob | undefined;
  URL.createObjectURL = vi.fn((b: Blob) => {
    blob = b;
    return 'blob:test';
  });
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
  return async () => {
    expect(blob).toBeDefined();
    return await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(blob!);
    });
  };
}

describe('Dashboard page', () => {
  it('sends the default range (7 days, daily) with no filters', async () => {
    const seen = metricsServer({});
    renderSignedIn(<Dashboard />);
    await waitFor(() => expect(seen.some((q) => kindOf(q) === 'usageType@')).toBe(true));
    const tokens = last(seen, 'usageType@');
    expect(tokens).toMatchObject({ view: 'observations', timeDimension: { granularity: 'day' }, filters: [] });
    expect(Date.parse(tokens.toTimestamp) - Date.parse(tokens.fromTimestamp)).toBe(7 * 86_400_000);
    expect(screen.getByRole('heading', { name: 'Cost per day by model' })).toBeInTheDocument();
  });

  it('asks for hourly buckets over the last 24 hours and minutes over the last hour', async () => {
    const seen = metricsServer({});
    renderSignedIn(<Dashboard />);
    await userEvent.selectOptions(screen.getByLabelText('Range'), '24h');
    await waitFor(() => expect(last(seen, 'usageType@').timeDimension).toEqual({ granularity: 'hour' }));
    expect(last(seen, '@')).toMatchObject({ timeDimension: { granularity: 'hour' }, dimensions: [] });
    const q = last(seen, 'usageType@');
    expect(Date.parse(q.toTimestamp) - Date.parse(q.fromTimestamp)).toBe(86_400_000);
    expect(screen.getByRole('heading', { name: 'Cost per hour by model' })).toBeInTheDocument();
    expect(window.location.hash).toBe('#/dashboard?range=24h');

    await userEvent.selectOptions(screen.getByLabelText('Range'), '1h');
    await waitFor(() => expect(last(seen, 'usageType@').timeDimension).toEqual({ granularity: 'minute' }));
    await userEvent.selectOptions(screen.getByLabelText('Range'), 'mtd');
    await waitFor(() => expect(last(seen, 'usageType@').fromTimestamp).toMatch(/-01T00:00:00\.000Z$/));
    expect(last(seen, 'usageType@').timeDimension).toEqual({ granularity: 'day' });
  });

  it('sends the filters in every query and keeps them in the URL; the pickers are never narrowed by them', async () => {
    const seen = metricsServer({
      environment: [
        { environment: 'production', count_count: 3 },
        { environment: 'staging', count_count: 1 },
      ],
      tags: [{ tags: ['beta', 'eu'], count_count: 2 }],
    });
    renderSignedIn(<Dashboard />);
    await userEvent.selectOptions(
      await screen.findByRole('combobox', { name: 'Environment' }),
      await screen.findByRole('option', { name: 'staging' }),
    );
    await userEvent.type(screen.getByRole('combobox', { name: 'User' }), 'alice');
    await userEvent.type(screen.getByRole('combobox', { name: 'Tag' }), 'beta');
    await userEvent.type(screen.getByRole('combobox', { name: 'Model' }), 'gpt-4o');
    await userEvent.type(screen.getByRole('combobox', { name: 'Name' }), 'chat');
    const filters = [
      { column: 'userId', operator: '=', value: 'alice', type: 'string' },
      { column: 'tags', operator: 'any of', value: ['beta'], type: 'arrayOptions' },
      { column: 'providedModelName', operator: '=', value: 'gpt-4o', type: 'string' },
      { column: 'name', operator: '=', value: 'chat', type: 'string' },
      { column: 'environment', operator: '=', value: 'staging', type: 'string' },
    ];
    await waitFor(() => expect(last(seen, 'usageType@').filters).toEqual(filters), SETTLED);
    for (const kind of ['', 'providedModelName', '@', 'userId', 'name']) expect(last(seen, kind).filters).toEqual(filters);
    // the generations by costStatus: the same filters, generations only
    expect(last(seen, 'costStatus').filters).toEqual([...filters, GENERATIONS]);
    // typing is queried once it pauses, not per letter
    expect(seen.filter((q) => kindOf(q) === '' && JSON.stringify(q.filters).includes('"ali"'))).toEqual([]);
    expect(last(seen, 'environment').filters).toEqual([]);
    expect(last(seen, 'tags').filters).toEqual([]);
    expect(screen.getByRole('combobox', { name: 'Tag' }).getAttribute('list')).toBeTruthy();
    expect(document.querySelectorAll('datalist option[value="eu"]')).toHaveLength(1);
    const params = new URLSearchParams(window.location.hash.split('?')[1]);
    expect(Object.fromEntries(params)).toEqual({ range: '7d', env: 'staging', user: 'alice', tag: 'beta', model: 'gpt-4o', name: 'chat' });

    await userEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(window.location.hash).toBe('#/dashboard?range=7d');
    await waitFor(() => expect(last(seen, 'usageType@').filters).toEqual([]), SETTLED);
  });

  it('opens on the view a shared URL holds', async () => {
    window.location.hash = '#/dashboard?range=24h&user=bob&env=prod';
    const seen = metricsServer({});
    renderSignedIn(<Dashboard />);
    await waitFor(() => expect(seen.some((q) => kindOf(q) === '')).toBe(true));
    expect(last(seen, '')).toMatchObject({
      filters: [
        { column: 'userId', operator: '=', value: 'bob', type: 'string' },
        { column: 'environment', operator: '=', value: 'prod', type: 'string' },
      ],
    });
    expect(last(seen, 'usageType@').timeDimension).toEqual({ granularity: 'hour' });
    expect(screen.getByLabelText('Range')).toHaveValue('24h');
    expect(screen.getByRole('combobox', { name: 'User' })).toHaveValue('bob');
  });

  it('sends nothing while a custom date is not valid, and each query once when it is', async () => {
    const seen = metricsServer({});
    renderSignedIn(<Dashboard />);
    await userEvent.selectOptions(screen.getByLabelText('Range'), 'custom');
    // the custom range starts as the last seven whole days
    await waitFor(() => expect(seen.some((q) => kindOf(q) === 'usageType@' && q.toTimestamp.endsWith('T23:59:59.999Z'))).toBe(true));
    await sleep(100);
    const before = seen.length;
    // what a date input reports as a year is typed: 0002, 0020, 0202, 2026
    for (const year of ['0002', '0020', '0202'])
      fireEvent.change(screen.getByLabelText('From date'), { target: { value: `${year}-11-01` } });
    expect(screen.getByLabelText('From date')).toHaveAccessibleDescription(/Pick a year from 1970 to 2027/);
    expect(screen.getByText('Pick valid dates to see this range.')).toBeInTheDocument();
    await sleep(700);
    expect(seen.length).toBe(before);

    fireEvent.change(screen.getByLabelText('From date'), { target: { value: '2026-11-01' } });
    fireEvent.change(screen.getByLabelText('To date'), { target: { value: '2026-11-03' } });
    await waitFor(() => expect(seen.length).toBeGreaterThan(before), SETTLED);
    await sleep(700);
    const sent = seen.slice(before);
    const kinds = sent.map(kindOf).sort();
    expect(kinds).toEqual(['', '@', 'costStatus', 'environment', 'name', 'providedModelName', 'tags', 'usageType@', 'userId']);
    for (const q of sent) expect(q).toMatchObject({ fromTimestamp: '2026-11-01T00:00:00.000Z', toTimestamp: '2026-11-03T23:59:59.999Z' });
    expect(window.location.hash).toBe('#/dashboard?range=custom&from=2026-11-01&to=2026-11-03');
  });

  it('a cleared from date is reported by the From date field, a reversed range by the To date field', async () => {
    metricsServer({});
    renderSignedIn(<Dashboard />);
    await chooseCustom('', '2026-11-03');
    expect(screen.getByLabelText('From date')).toHaveAccessibleDescription(/Pick both a from date and a to date/);
    expect(screen.getByLabelText('To date')).not.toHaveAccessibleDescription(/Pick both/);
    await chooseCustom('2026-11-04', '2026-11-03');
    expect(screen.getByLabelText('To date')).toHaveAccessibleDescription(/must not be after/);
    expect(screen.getByLabelText('From date')).not.toHaveAttribute('aria-invalid');
  });

  it('shows the cost per bucket with empty days filled and the tail folded, the summary and the top tables', async () => {
    const seen = metricsServer({
      '': [{ sum_totalCost: 0.550123, count_count: 12, sum_totalTokens: 3400 }],
      providedModelName: modelList,
      'providedModelName@': costByModelRows,
      '@': costTotalRows,
      'usageType@': [
        { usageType: 'input', time_dimension: '2026-11-01', sum_usageByType: 3000 },
        { usageType: 'output', time_dimension: '2026-11-03', sum_usageByType: 400 },
      ],
      userId: [
        { userId: 'alice', sum_totalCost: 0.5, sum_totalTokens: 3000, count_count: 10 },
        { userId: null, sum_totalCost: 0.05, sum_totalTokens: 400, count_count: 2 },
      ],
      name: [{ name: 'chat', sum_totalCost: 0.55, sum_totalTokens: 3400, count_count: 12 }],
    });
    renderSignedIn(<Dashboard />);
    await chooseCustom('2026-11-01', '2026-11-10');

    const table = await screen.findByRole('table', { name: 'Cost per day by model: numbers' }, SETTLED);
    await within(table).findByRole('rowheader', { name: '2026-11-10' }, SETTLED);
    expect(within(table).getAllByRole('row')).toHaveLength(11);
    // the per-model series are asked for the eight priced models only
    expect(last(seen, 'providedModelName@').filters).toEqual([
      { column: 'providedModelName', operator: 'any of', value: MODELS.slice(0, 8), type: 'stringOptions' },
    ]);
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent?.trim());
    expect(headers.slice(1)).toEqual([...MODELS.slice(0, 8), 'other']);
    expect(cellsOf(within(table).getByRole('rowheader', { name: '2026-11-02' }).closest('tr')!)).toEqual(Array(9).fill('$0.00'));
    const first = within(table).getByRole('rowheader', { name: '2026-11-01' }).closest('tr')!;
    // other: the total less the eight named models
    expect(cellsOf(first).at(-1)).toBe('$0.03');
    expect(cellsOf(within(table).getByRole('rowheader', { name: '2026-11-03' }).closest('tr')!)[0]).toBe('$0.000123');

    const summary = screen.getByRole('region', { name: 'Summary' });
    await waitFor(() => expect(summary).toHaveTextContent('Total cost$0.5501'));
    expect(summary).toHaveTextContent('Observations12');
    expect(summary).toHaveTextContent('Total tokens3,400');

    const tokens = await screen.findByRole('table', { name: 'Tokens per day by usage type: numbers' });
    expect(cellsOf(within(tokens).getByRole('rowheader', { name: '2026-11-02' }).closest('tr')!)).toEqual(['0', '0']);

    const users = await screen.findByRole('table', { name: 'Top users by cost' });
    expect(
      within(users)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual(['UserCostTokensObservations', 'alice$0.503,00010', '(no user)$0.054002']);
    expect(await screen.findByRole('table', { name: 'Top names by cost' })).toHaveTextContent('chat$0.553,40012');
    expect(await screen.findByRole('table', { name: 'Models by cost' })).toHaveTextContent('m-a$0.101,0001');
  });

  it('counts and weighs the generations without a price and partly priced, and links to them; unpriced models are named and in the legend', async () => {
    window.location.hash = '#/dashboard?range=custom&from=2026-11-01&to=2026-11-03&env=prod';
    const seen = metricsServer({
      '': [{ sum_totalCost: 0.3, count_count: 45, sum_totalTokens: 10500 }],
      providedModelName: [
        { providedModelName: 'm-a', sum_totalCost: 0.3, sum_totalTokens: 4600, count_count: 13 },
        { providedModelName: 'm-free', sum_totalCost: 0, sum_totalTokens: 5400, count_count: 27 },
      ],
      'providedModelName@': [{ providedModelName: 'm-a', time_dimension: '2026-11-01T00:00:00Z', sum_totalCost: 0.3 }],
      '@': [{ time_dimension: '2026-11-01T00:00:00Z', sum_totalCost: 0.3 }],
      // 40 generations (10,000 tokens); the 5 other observations (spans, 500 tokens) are not asked for
      costStatus: [
        { costStatus: 'inferred', count_count: 9, sum_totalTokens: 4000 },
        { costStatus: 'ingested', count_count: 1, sum_totalTokens: 0 },
        { costStatus: 'unpriced', count_count: 27, sum_totalTokens: 5400 },
        { costStatus: 'partial', count_count: 3, sum_totalTokens: 600 },
      ],
    });
    const listed = listServer();
    renderSignedIn(<Dashboard />);

    const unpriced = await screen.findByRole('region', { name: 'Unpriced usage' });
    const link = await within(unpriced).findByRole('link', { name: '27 generations without a price' });
    const window_ = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-04T00:00:00.000Z' };
    expect(link).toHaveAttribute('href', generationsHref({ ...window_, env: 'prod', costStatus: 'unpriced' }));
    expect(within(unpriced).getByRole('link', { name: '3 generations partly priced' })).toHaveAttribute(
      'href',
      generationsHref({ ...window_, env: 'prod', costStatus: 'partial' }),
    );
    // the tokens of unpriced generations over those of all generations (not of all observations), the partly priced apart
    expect(unpriced).toHaveTextContent(
      'Of the 10,000 tokens of generations in this range, 54% (5,400) are in generations without a price, and 6% (600) in partly priced generations (priced in part).',
    );
    await waitFor(() => expect(unpriced).toHaveTextContent('Models with tokens but no cost in this range: m-free (5,400 tokens).'));
    expect(screen.getByRole('region', { name: 'Summary' })).toHaveTextContent('Without a price27not in the cost');

    // one metrics query, over the dashboard's window and filters, generations only; no observation list
    const asked = seen.filter((q) => kindOf(q) === 'costStatus');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toEqual({
      view: 'observations',
      dimensions: [{ field: 'costStatus' }],
      metrics: [
        { measure: 'count', aggregation: 'count' },
        { measure: 'totalTokens', aggregation: 'sum' },
      ],
      filters: [{ column: 'environment', operator: '=', value: 'prod', type: 'string' }, GENERATIONS],
      fromTimestamp: '2026-11-01T00:00:00.000Z',
      toTimestamp: '2026-11-03T23:59:59.999Z',
    });
    expect(listed).toEqual([]);

    const table = await screen.findByRole('table', { name: 'Cost per hour by model: numbers' }, SETTLED);
    expect(within(table).getByRole('columnheader', { name: 'm-free (no price)' })).toBeInTheDocument();
    expect(within(table).getByRole('rowheader', { name: '2026-11-01 00:00' })).toBeInTheDocument();
    const models = screen.getByRole('table', { name: 'Models by cost' });
    expect(within(models).getByRole('rowheader', { name: /m-free/ })).toHaveTextContent('m-freeno price');

    const read = captureCsv();
    await userEvent.click(screen.getByRole('button', { name: 'Download the summary as CSV' }));
    expect((await read()).split('\r\n').slice(4, 10)).toEqual([
      'generations,40',
      'generation_tokens,10000',
      'generations_unpriced,27',
      'tokens_of_generations_unpriced,5400',
      'generations_partly_priced,3',
      'tokens_of_generations_partly_priced,600',
    ]);
  });

  it('says none is partly priced, and a share that is not nothing is not 0%', async () => {
    metricsServer({
      '': [{ sum_totalCost: 0.3, count_count: 4, sum_totalTokens: 100_000 }],
      costStatus: [
        { costStatus: 'inferred', count_count: 3, sum_totalTokens: 99_990 },
        { costStatus: 'unpriced', count_count: 1, sum_totalTokens: 10 },
      ],
    });
    renderSignedIn(<Dashboard />);
    const unpriced = await screen.findByRole('region', { name: 'Unpriced usage' });
    await within(unpriced).findByRole('link', { name: '1 generation without a price' });
    expect(unpriced).toHaveTextContent('No generation partly priced: some of their usage types had no price');
    expect(unpriced).toHaveTextContent(
      'Of the 100,000 tokens of generations in this range, <0.1% (10) are in generations without a price.',
    );
    expect(unpriced).not.toHaveTextContent('Models with tokens but no cost');
  });

  it('says every generation has a price when none lacks one', async () => {
    metricsServer({
      '': [{ sum_totalCost: 0.3, count_count: 4, sum_totalTokens: 100 }],
      costStatus: [
        { costStatus: 'inferred', count_count: 3, sum_totalTokens: 90 },
        { costStatus: 'none', count_count: 1, sum_totalTokens: 0 },
      ],
    });
    renderSignedIn(<Dashboard />);
    const unpriced = await screen.findByRole('region', { name: 'Unpriced usage' });
    await waitFor(() => expect(unpriced).toHaveTextContent('Every generation in this range has a price'));
    expect(within(unpriced).queryByRole('link')).toBeNull();
    expect(screen.getByRole('region', { name: 'Summary' })).toHaveTextContent('Without a price0');
  });

  it('says when the range has observations but no generations', async () => {
    metricsServer({ '': [{ sum_totalCost: 0, count_count: 4, sum_totalTokens: 0 }], costStatus: [] });
    renderSignedIn(<Dashboard />);
    const unpriced = await screen.findByRole('region', { name: 'Unpriced usage' });
    await waitFor(() => expect(unpriced).toHaveTextContent('No generations in this range: nothing to price.'));
  });

  it("shows the server's message when the costStatus query is refused, and no figure", async () => {
    mockServer.use(
      http.get(`${BASE_URL}/api/public/v2/metrics`, ({ request }) => {
        const q = JSON.parse(new URL(request.url).searchParams.get('query')!) as Q;
        if (kindOf(q) === 'costStatus')
          return HttpResponse.json({ message: 'Invalid dimension costStatus', error: 'InvalidRequestError' }, { status: 400 });
        return HttpResponse.json({ data: kindOf(q) === '' ? [{ sum_totalCost: 0.3, count_count: 4, sum_totalTokens: 100 }] : [] });
      }),
    );
    renderSignedIn(<Dashboard />);
    const unpriced = await screen.findByRole('region', { name: 'Unpriced usage' });
    expect(await within(unpriced).findByRole('alert')).toHaveTextContent('Invalid dimension costStatus');
    expect(unpriced).not.toHaveTextContent('Counting…');
    expect(screen.getByRole('region', { name: 'Summary' })).toHaveTextContent('Without a price—');
  });

  it('downloads the numbers of a chart and of a table as CSV', async () => {
    window.location.hash = '#/dashboard?range=custom&from=2026-11-01&to=2026-11-10';
    metricsServer({
      providedModelName: modelList.slice(0, 2),
      'providedModelName@': [
        { providedModelName: 'm-a', time_dimension: '2026-11-01', sum_totalCost: 0.1 },
        { providedModelName: 'm-b', time_dimension: '2026-11-03', sum_totalCost: 0.0000001 },
      ],
      '@': [
        { time_dimension: '2026-11-01', sum_totalCost: 0.1 },
        { time_dimension: '2026-11-03', sum_totalCost: 0.0000001 },
      ],
      userId: [{ userId: 'o"neil, jr', sum_totalCost: 0.1, sum_totalTokens: 10, count_count: 1 }],
    });
    renderSignedIn(<Dashboard />);
    await screen.findByRole('table', { name: 'Cost per day by model: numbers' }, SETTLED);
    let read = captureCsv();
    await userEvent.click(screen.getByRole('button', { name: 'Download Cost per day by model as CSV' }));
    const csv = (await read()).split('\r\n');
    expect(csv[0]).toBe('day_utc,m-a,m-b');
    expect(csv.slice(1, 4)).toEqual(['2026-11-01,0.1,0', '2026-11-02,0,0', '2026-11-03,0,0.0000001']);
    expect(csv).toHaveLength(12); // ten days, the header and the final line break
    const anchor = vi.mocked(HTMLAnchorElement.prototype.click).mock.contexts[0] as HTMLAnchorElement;
    expect(anchor.download).toBe('tally-cost-by-model-2026-11-01-2026-11-10.csv');

    read = captureCsv();
    await userEvent.click(await screen.findByRole('button', { name: 'Download Top users by cost as CSV' }));
    expect(await read()).toBe('User,cost_usd,tokens,observations\r\n"o""neil, jr",0.1,10,1\r\n');
  });

  it('keeps a model in its colour whatever else the range holds', async () => {
    const swatch = (name: string) =>
      (
        within(screen.getByRole('table', { name: 'Models by cost' }))
          .getByRole('rowheader', { name: name })
          .querySelector('.swatch') as HTMLElement
      ).style.background;
    const answer = (rows: object[]) =>
      metricsServer({ providedModelName: rows.map((r) => ({ sum_totalTokens: 10, count_count: 1, ...r })) });
    answer([
      { providedModelName: 'm-a', sum_totalCost: 0.3 },
      { providedModelName: 'm-b', sum_totalCost: 0.2 },
    ]);
    renderSignedIn(<Dashboard />);
    await screen.findByRole('rowheader', { name: 'm-b' });
    const before = swatch('m-b');
    expect(before).toBeTruthy();
    // another range: m-b first, a new model before it
    answer([
      { providedModelName: 'm-z', sum_totalCost: 0.9 },
      { providedModelName: 'm-b', sum_totalCost: 0.5 },
    ]);
    await userEvent.selectOptions(screen.getByLabelText('Range'), '30d');
    await screen.findByRole('rowheader', { name: 'm-z' });
    expect(swatch('m-b')).toBe(before);
    const hex = colorFor('m-b');
    expect(before).toBe(`rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`);
  });

  it('links top users to their traces and names and models to their generations, over the same window; shows more on request', async () => {
    window.location.hash = '#/dashboard?range=custom&from=2026-11-01&to=2026-11-03&env=prod';
    const users = Array.from({ length: 60 }, (_, i) => ({
      userId: `user-${i}`,
      sum_totalCost: (60 - i) / 100,
      sum_totalTokens: 1,
      count_count: 1,
    }));
    metricsServer({
      userId: users,
      name: [{ name: 'chat', sum_totalCost: 0.5, sum_totalTokens: 1, count_count: 1 }],
      providedModelName: [{ providedModelName: 'gpt-4o', sum_totalCost: 0.5, sum_totalTokens: 1, count_count: 1 }],
    });
    renderSignedIn(<Dashboard />);
    const window_ = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-04T00:00:00.000Z', env: 'prod' };
    const top = await screen.findByRole('table', { name: 'Top users by cost' });
    expect(within(top).getByRole('link', { name: 'user-0' })).toHaveAttribute('href', tracesHref({ ...window_, user: 'user-0' }));
    expect(within(top).getAllByRole('link')).toHaveLength(10);
    expect(await screen.findByRole('link', { name: 'chat' })).toHaveAttribute('href', generationsHref({ ...window_, name: 'chat' }));
    expect(screen.getByRole('link', { name: 'gpt-4o' })).toHaveAttribute('href', generationsHref({ ...window_, model: 'gpt-4o' }));

    const section = screen.getByRole('region', { name: 'Top users by cost' });
    expect(section).toHaveTextContent('Top 10 of 60');
    await userEvent.click(within(section).getByRole('button', { name: 'Show 40 more' }));
    expect(within(top).getAllByRole('link')).toHaveLength(50);
    // the first row shown takes the focus, so the keyboard carries on from there
    expect(document.activeElement).toBe(within(top).getByRole('rowheader', { name: 'user-10' }));
    await userEvent.click(within(section).getByRole('button', { name: 'Show 10 more' }));
    expect(within(top).getAllByRole('link')).toHaveLength(60);
    expect(within(section).queryByRole('button', { name: /Show/ })).toBeNull();
    expect(section).toHaveTextContent('All 60');
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
    await chooseCustom('2026-11-20', '2026-11-27');
    const table = await screen.findByRole('table', { name: 'Cost per day by model: numbers' }, SETTLED);
    await within(table).findByRole('rowheader', { name: '2026-11-27' }, SETTLED);
    // every day of the range is a row (empty ones too), the example's two among them
    expect(within(table).getAllByRole('rowheader').length).toBeGreaterThanOrEqual(7);
    expect(within(table).getByRole('rowheader', { name: '2026-11-24' }).closest('tr')).toHaveTextContent('$0.291');
    // the documentation example: gpt-4o $2.01 and gpt-4o-mini $0.3735 on the 25th
    const day = within(table).getByRole('rowheader', { name: '2026-11-25' }).closest('tr')!;
    expect(day).toHaveTextContent('$2.01');
    expect(day).toHaveTextContent('$0.3735');
    expect(formatUsd(0.000123)).toBe('$0.000123');
  });
});

describe('dashboard at phone width', () => {
  it("a chart's numbers table scrolls inside its own box (ten model columns made the whole page scroll sideways at 390 px)", async () => {
    metricsServer({ providedModelName: modelList, 'providedModelName@': costByModelRows, '@': costTotalRows });
    renderSignedIn(<Dashboard />);
    const table = await screen.findByRole('table', { name: 'Cost per day by model: numbers' }, SETTLED);
    expect(table.parentElement).toHaveClass('table-wrap');
  });
});
