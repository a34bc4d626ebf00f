// The Alerts page against the spec-example msw handlers: the list with each alert's worst state,
// one alert's groups and delivery log, the form's preview of the current values per user, creating
// an alert (exactly what reaches the server), and disabling one without sending its secret.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { Alert, AlertRequest } from '../../sdk/index.ts';
import { Alerts } from '../src/pages/Alerts.tsx';
import { requestOf } from '../src/pages/alerts/AlertForm.tsx';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

const API = `${BASE_URL}/api/public`;
const WAIT = { timeout: 4000 };

const alert = (over: Partial<Alert> = {}): Alert => ({
  id: 'al-1',
  name: 'Users over $50',
  query: { view: 'observations', metric: { measure: 'totalCost', aggregation: 'sum' }, filters: [] },
  groupBy: { field: 'userId', topN: 100 },
  windowMinutes: 1440,
  calendarMonth: false,
  condition: { operator: 'gt', warning: 40, alert: 50 },
  baseline: false,
  noData: 'ok',
  intervalSeconds: 300,
  webhook: { url: 'https://hooks.example.com/tally', format: 'json' },
  enabled: true,
  groups: [
    { group: 'user-42', state: 'alerting', value: 61.5, since: '2026-11-27T10:05:00.000Z', evaluatedAt: '2026-11-27T10:10:00.000Z' },
    { group: 'user-7', state: 'warning', value: 44, since: '2026-11-27T10:05:00.000Z', evaluatedAt: '2026-11-27T10:10:00.000Z' },
  ],
  createdAt: '2026-11-27T10:00:00.000Z',
  updatedAt: '2026-11-27T10:00:00.000Z',
  ...over,
});

/** GET /alerts answering these alerts */
const listing = (alerts: Alert[]) =>
  http.get(`${API}/alerts`, () =>
    HttpResponse.json({ data: alerts, meta: { page: 1, limit: 100, totalItems: alerts.length, totalPages: alerts.length ? 1 : 0 } }),
  );

describe('Alerts page', () => {
  it("lists alerts with their worst state, and shows one alert's groups and deliveries", async () => {
    mockServer.use(listing([alert()]));
    renderSignedIn(<Alerts />);
    const list = await screen.findByRole('region', { name: 'Alerts' }, WAIT);
    await within(list).findByText('Users over $50');
    expect(within(list).getByText('alerting')).toBeInTheDocument();
    expect(within(list).getByText('2 of its groups over a threshold')).toBeInTheDocument();
    const detail = screen.getByRole('region', { name: 'Alert Users over $50' });
    const groups = within(detail).getByRole('table', { name: 'Groups' });
    expect(within(groups).getByText('user-42')).toBeInTheDocument();
    expect(within(groups).getByText('61.5')).toBeInTheDocument();
    // the spec's example log: a 500, then the retry delivered
    const log = within(detail).getByRole('table', { name: 'Deliveries' });
    expect(await within(log).findByText('HTTP 500', {}, WAIT)).toBeInTheDocument();
    expect(within(log).getByText('200')).toBeInTheDocument();
  });

  it('disables an alert, sending its definition back without a secret', async () => {
    let put: AlertRequest | undefined;
    mockServer.use(
      listing([alert()]),
      http.put(`${API}/alerts/:id`, async ({ request }) => {
        put = (await request.json()) as AlertRequest;
        return HttpResponse.json(alert({ enabled: false }));
      }),
    );
    renderSignedIn(<Alerts />);
    await userEvent.click(await screen.findByRole('button', { name: 'Disable' }, WAIT));
    await screen.findByRole('button', { name: 'Enable' }, WAIT);
    expect(put).toMatchObject({ enabled: false, windowMinutes: 1440, condition: { operator: 'gt', warning: 40, alert: 50 } });
    expect(put!.webhook).toEqual({ url: 'https://hooks.example.com/tally', format: 'json' });
    expect(within(screen.getByRole('region', { name: 'Alerts' })).getByText('disabled')).toBeInTheDocument();
  });

  it('edits an alert in the form, prefilled, the secret left blank to keep the stored one', async () => {
    let put: AlertRequest | undefined;
    mockServer.use(
      listing([alert()]),
      http.put(`${API}/alerts/:id`, async ({ request }) => {
        put = (await request.json()) as AlertRequest;
        return HttpResponse.json(alert({ condition: put.condition }));
      }),
    );
    renderSignedIn(<Alerts />);
    await userEvent.click(await screen.findByRole('button', { name: 'Edit' }, WAIT));
    const form = screen.getByRole('form', { name: 'Edit Users over $50' });
    expect(within(form).getByLabelText('Name')).toHaveValue('Users over $50');
    expect(within(form).getByLabelText('Warning above')).toHaveValue(40);
    const alertAbove = within(form).getByLabelText('Alert above');
    await userEvent.clear(alertAbove);
    await userEvent.type(alertAbove, '60');
    await userEvent.click(within(form).getByRole('button', { name: 'Save' }));
    await screen.findByText(/> 60 \(warning 40\)/, {}, WAIT);
    expect(screen.queryByRole('form', { name: 'Edit Users over $50' })).toBeNull();
    expect(put).toEqual({
      name: 'Users over $50',
      query: { view: 'observations', metric: { measure: 'totalCost', aggregation: 'sum' } },
      groupBy: { field: 'userId', topN: 100 },
      windowMinutes: 1440,
      condition: { operator: 'gt', warning: 40, alert: 60 },
      webhook: { url: 'https://hooks.example.com/tally' },
      intervalSeconds: 300,
      noData: 'ok',
      enabled: true,
    });
  });

  it('previews the current value per user, then creates the alert', async () => {
    let metricsQuery: Record<string, unknown> | undefined;
    let created: AlertRequest | undefined;
    mockServer.use(
      listing([]),
      http.get(`${API}/v2/metrics`, ({ request }) => {
        metricsQuery = JSON.parse(new URL(request.url).searchParams.get('query')!);
        return HttpResponse.json({ data: [{ userId: 'user-42', sum_totalCost: 61.5 }] });
      }),
      http.post(`${API}/alerts`, async ({ request }) => {
        created = (await request.json()) as AlertRequest;
        return HttpResponse.json(alert({ id: 'al-new', name: created.name, groups: [] }), { status: 201 });
      }),
    );
    renderSignedIn(<Alerts />);
    await screen.findByText('No alerts yet', {}, WAIT);
    const form = screen.getByRole('form', { name: 'New alert' });
    await userEvent.type(within(form).getByLabelText('Name'), 'Big spenders');
    await userEvent.type(within(form).getByLabelText('Warning above'), '40');
    await userEvent.type(within(form).getByLabelText('Alert above'), '50');
    await userEvent.type(within(form).getByLabelText('Webhook URL'), 'https://hooks.example.com/t');
    await userEvent.type(within(form).getByLabelText('Webhook secret'), 'whsec-0123456789abcdef');
    await userEvent.click(within(form).getByRole('button', { name: 'Preview' }));
    const preview = await within(form).findByRole('table', { name: 'Current values' }, WAIT);
    expect(within(preview).getByText('user-42')).toBeInTheDocument();
    expect(within(preview).getByText('61.5')).toBeInTheDocument();
    expect(metricsQuery).toMatchObject({
      view: 'observations',
      dimensions: [{ field: 'userId' }],
      orderBy: [{ field: 'sum_totalCost', direction: 'desc' }],
      config: { row_limit: 10 },
    });
    await userEvent.click(within(form).getByRole('button', { name: 'Create alert' }));
    await within(screen.getByRole('region', { name: 'Alerts' })).findByText('Big spenders', {}, WAIT);
    expect(created).toEqual({
      name: 'Big spenders',
      query: { view: 'observations', metric: { measure: 'totalCost', aggregation: 'sum' } },
      groupBy: { field: 'userId', topN: 100 },
      windowMinutes: 1440,
      condition: { operator: 'gt', warning: 40, alert: 50 },
      webhook: { url: 'https://hooks.example.com/t', secret: 'whsec-0123456789abcdef' },
    });
  });

  it("says what is missing next to each field without asking the server, each message gone once its field is edited; the server's issues land by their fields", async () => {
    let posts = 0;
    mockServer.use(
      listing([]),
      http.post(`${API}/alerts`, () => {
        posts++;
        return HttpResponse.json(
          {
            message: 'Invalid request data',
            error: [{ code: 'custom', path: ['webhook', 'url'], message: 'Invalid webhook URL: a private address' }],
          },
          { status: 400 },
        );
      }),
    );
    renderSignedIn(<Alerts />);
    await screen.findByText('No alerts yet', {}, WAIT);
    const form = screen.getByRole('form', { name: 'New alert' });
    await userEvent.click(within(form).getByRole('button', { name: 'Create alert' }));
    expect(posts).toBe(0);
    expect(within(form).getByLabelText('Name')).toHaveAccessibleDescription('Required.');
    expect(within(form).getByLabelText('Alert above')).toHaveAccessibleDescription('Give the alert threshold, a number.');
    expect(within(form).getByLabelText('Webhook URL')).toHaveAccessibleDescription('Required: the URL the alert posts to.');
    expect(within(form).getByLabelText('Webhook secret')).toHaveAccessibleDescription(/Must be at least 16 characters long\./);
    await userEvent.type(within(form).getByLabelText('Name'), 'Big spenders');
    expect(within(form).getByLabelText('Name')).not.toHaveAccessibleDescription('Required.');
    expect(within(form).getByLabelText('Webhook URL')).toHaveAccessibleDescription('Required: the URL the alert posts to.');
    await userEvent.type(within(form).getByLabelText('Alert above'), '50');
    await userEvent.type(within(form).getByLabelText('Webhook URL'), 'http://10.0.0.1/hook');
    await userEvent.type(within(form).getByLabelText('Webhook secret'), 'whsec-0123456789abcdef');
    await userEvent.click(within(form).getByRole('button', { name: 'Create alert' }));
    await within(form).findByRole('alert', {}, WAIT);
    expect(posts).toBe(1);
    expect(within(form).getByLabelText('Webhook URL')).toHaveAccessibleDescription('Invalid webhook URL: a private address.');
  });

  it('turns a draft into a request: the month so far, no warning, the whole project', () => {
    expect(
      requestOf({
        name: ' m ',
        metric: 'calls',
        groupBy: '',
        window: 'month',
        warning: '',
        alert: '1000',
        url: 'https://h/x',
        secret: 's'.repeat(16),
      }),
    ).toEqual({
      name: 'm',
      query: { view: 'observations', metric: { measure: 'count', aggregation: 'count' } },
      groupBy: null,
      calendarMonth: true,
      condition: { operator: 'gt', warning: null, alert: 1000 },
      webhook: { url: 'https://h/x', secret: 's'.repeat(16) },
    });
  });
});
