// The traces list: the spec's example trace in the table, filters, sort and page in the URL and
// in the request, and the links out of each row.
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../src/App.tsx';
import { saveSession } from '../src/api.ts';
import { Traces } from '../src/pages/Traces.tsx';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

const API = `${BASE_URL}/api/public`;
/** the trace of the spec's default examples (trace_list, trace_get) */
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** the query of every GET /api/public/traces the page sends */
function traceListQueries(): URLSearchParams[] {
  const seen: URLSearchParams[] = [];
  mockServer.events.on('request:start', ({ request }) => {
    const url = new URL(request.url);
    if (url.pathname === '/api/public/traces') seen.push(url.searchParams);
  });
  return seen;
}

const trace = (id: string) => ({
  id,
  projectId: 'p',
  timestamp: '2026-11-22T10:00:00.000Z',
  name: `name-${id}`,
  userId: 'user-1',
  sessionId: null,
  environment: 'default',
  tags: [],
  public: false,
  htmlPath: `/#/traces/${id}`,
  totalCost: 0,
  latency: null,
  observations: [],
  scores: [],
});

const at = (hash: string) => {
  window.location.hash = hash;
};
/** a navigation the page makes, as the browser reports it */
const navigated = () => window.location.hash;

afterEach(() => mockServer.events.removeAllListeners());

describe('Traces list', () => {
  it('shows the example traces with their cost, latency and observation count, and asks for the newest 50 without I/O', async () => {
    const queries = traceListQueries();
    at('#/traces');
    renderSignedIn(<Traces />);
    const table = await screen.findByRole('table', { name: 'Traces' });
    const [row, older] = within(table)
      .getAllByRole('rowheader', { name: 'support-chat' })
      .map((h) => h.closest('tr')!);
    expect(row).toHaveTextContent('2026-11-26 14:02:11 UTC');
    expect(row).toHaveTextContent('$0.0162');
    expect(row).toHaveTextContent('2.57 s');
    expect(within(row!).getByRole('link', { name: 'support-chat' })).toHaveAttribute('href', `#/traces/${TRACE_ID}`);
    expect(within(row!).getByRole('link', { name: 'user_2f9c81' })).toHaveAttribute('href', '#/traces?user=user_2f9c81');
    expect(within(row!).getByRole('link', { name: 'sess_7d41b0e3' })).toHaveAttribute('href', '#/traces?session=sess_7d41b0e3');
    expect(within(row!).getByRole('link', { name: 'support' })).toHaveAttribute('href', '#/traces?tag=support');
    expect(within(row!).getByRole('link', { name: 'web' })).toHaveAttribute('href', '#/traces?tag=web');
    expect(within(row!).getByRole('link', { name: 'production' })).toHaveAttribute('href', '#/traces?env=production');
    expect(within(row!).getAllByRole('cell')[6]).toHaveTextContent('2'); // observations
    expect(older).toHaveTextContent('2026-11-26 09:15:42 UTC');
    expect(older).toHaveTextContent('1.25 s');
    expect(within(older!).getAllByRole('cell')[6]).toHaveTextContent('1');
    expect(screen.getByRole('navigation', { name: 'Pages of traces' })).toHaveTextContent('Page 1 of 1 · 2 traces');

    const q = queries[0]!;
    expect(Object.fromEntries(q)).toEqual({ page: '1', limit: '50', orderBy: 'timestamp.desc', fields: 'core,observations,metrics' });
  });

  it('puts typed filters into the URL (page reset) and the URL into the request; a chip removes one', async () => {
    const user = userEvent.setup();
    const queries = traceListQueries();
    at('#/traces?sort=name.asc&page=3');
    renderSignedIn(<Traces />);
    const form = await screen.findByRole('form', { name: 'Filter traces' });
    await user.type(within(form).getByLabelText('User'), ' user-1 ');
    await user.type(within(form).getByLabelText('Session'), 'session-1');
    await user.type(within(form).getByLabelText('Tag'), 'conformance');
    await user.type(within(form).getByLabelText('Name'), 'chat-request');
    await user.type(within(form).getByLabelText('Environment'), 'default{Enter}');
    await waitFor(() =>
      expect(navigated()).toBe('#/traces?sort=name.asc&user=user-1&session=session-1&tag=conformance&name=chat-request&env=default'),
    );
    await waitFor(() => expect(queries.at(-1)?.get('userId')).toBe('user-1'));
    const q = queries.at(-1)!;
    expect(q.get('sessionId')).toBe('session-1');
    expect(q.getAll('tags')).toEqual(['conformance']);
    expect(q.get('name')).toBe('chat-request');
    expect(q.getAll('environment')).toEqual(['default']);
    expect(q.get('orderBy')).toBe('name.asc');
    expect(q.get('page')).toBe('1');

    const chips = screen.getByRole('list', { name: 'Active filters' });
    expect(within(chips).getByRole('link', { name: 'Remove filter user: user-1' })).toHaveAttribute(
      'href',
      '#/traces?session=session-1&tag=conformance&name=chat-request&env=default&sort=name.asc',
    );
  });

  it('queries a preset range from now, and a custom range only once it is valid', async () => {
    const user = userEvent.setup();
    const queries = traceListQueries();
    at('#/traces');
    renderSignedIn(<Traces />);
    const form = await screen.findByRole('form', { name: 'Filter traces' });
    await user.selectOptions(within(form).getByLabelText('Time range'), '24h');
    await waitFor(() => expect(navigated()).toBe('#/traces?range=24h'));
    await waitFor(() => expect(queries.at(-1)?.get('fromTimestamp')).toBeTruthy());
    const from = Date.parse(queries.at(-1)!.get('fromTimestamp')!);
    expect(Math.abs(Date.now() - 86_400_000 - from)).toBeLessThan(60_000);
    expect(queries.at(-1)!.get('toTimestamp')).toBeNull();

    await user.selectOptions(screen.getByLabelText('Time range'), 'custom');
    const sent = queries.length;
    await user.type(screen.getByLabelText('From'), '2026-11-23T00:00');
    await user.type(screen.getByLabelText('To'), '2026-11-22T00:00');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(await screen.findByText('From must be before To')).toBeInTheDocument();
    expect(navigated()).toBe('#/traces?range=24h');
    expect(queries.length).toBe(sent);

    await user.clear(screen.getByLabelText('From'));
    await user.type(screen.getByLabelText('From'), '2026-11-21T08:30');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => expect(navigated()).toBe('#/traces?range=custom&from=2026-11-21T08%3A30&to=2026-11-22T00%3A00'));
    await waitFor(() => expect(queries.at(-1)?.get('fromTimestamp')).toBe('2026-11-21T08:30:00.000Z'));
    expect(queries.at(-1)!.get('toTimestamp')).toBe('2026-11-22T00:00:00.000Z');
  });

  it('reads dates from a shared link as whole UTC days, and refuses a year like 0002 without asking the server', async () => {
    const queries = traceListQueries();
    at('#/traces?from=2026-11-20&to=2026-11-22&user=user-1');
    renderSignedIn(<Traces />);
    await screen.findByRole('table', { name: 'Traces' });
    expect(queries[0]!.get('fromTimestamp')).toBe('2026-11-20T00:00:00.000Z');
    expect(queries[0]!.get('toTimestamp')).toBe('2026-11-23T00:00:00.000Z');
    expect(screen.getByLabelText('From')).toHaveValue('2026-11-20T00:00');
    expect(screen.getByLabelText('User')).toHaveValue('user-1');

    act(() => at('#/traces?from=0002-01-01'));
    expect(await screen.findByRole('alert')).toHaveTextContent('From: the year 0002 is not between 1970 and 9999');
    expect(queries).toHaveLength(1);
  });

  it('sorts by a column header: first click A→Z, second Z→A, with aria-sort', async () => {
    const user = userEvent.setup();
    const queries = traceListQueries();
    at('#/traces?user=user-1&page=2');
    renderSignedIn(<Traces />);
    const table = await screen.findByRole('table', { name: 'Traces' });
    expect(within(table).getByRole('columnheader', { name: /Time/ })).toHaveAttribute('aria-sort', 'descending');
    await user.click(within(table).getByRole('button', { name: /^Name/ }));
    await waitFor(() => expect(navigated()).toBe('#/traces?user=user-1&sort=name.asc'));
    await waitFor(() => expect(queries.at(-1)?.get('orderBy')).toBe('name.asc'));
    expect(within(table).getByRole('columnheader', { name: /Name/ })).toHaveAttribute('aria-sort', 'ascending');
    await user.click(within(table).getByRole('button', { name: /^Name/ }));
    await waitFor(() => expect(navigated()).toBe('#/traces?user=user-1&sort=name.desc'));
  });

  it('pages with previous and next links that keep the filters', async () => {
    const queries = traceListQueries();
    mockServer.use(
      http.get(`${API}/traces`, ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page'));
        return HttpResponse.json({ data: [trace(`t-${page}`)], meta: { page, limit: 50, totalItems: 120, totalPages: 3 } });
      }),
    );
    at('#/traces?user=user-1&page=2');
    renderSignedIn(<Traces />);
    const pager = await screen.findByRole('navigation', { name: 'Pages of traces' });
    expect(pager).toHaveTextContent('Page 2 of 3 · 120 traces');
    expect(within(pager).getByRole('link', { name: '← Previous' })).toHaveAttribute('href', '#/traces?user=user-1');
    expect(within(pager).getByRole('link', { name: 'Next →' })).toHaveAttribute('href', '#/traces?user=user-1&page=3');
    expect(queries[0]!.get('page')).toBe('2');

    act(() => at('#/traces?user=user-1&page=3'));
    await waitFor(() => expect(pager).toHaveTextContent('Page 3 of 3'));
    expect(queries.at(-1)!.get('page')).toBe('3');
    expect(within(pager).queryByRole('link', { name: 'Next →' })).toBeNull();
  });

  it('says so when nothing matches, and how to see more', async () => {
    mockServer.use(
      http.get(`${API}/traces`, () => HttpResponse.json({ data: [], meta: { page: 1, limit: 50, totalItems: 0, totalPages: 0 } })),
    );
    at('#/traces?user=nobody');
    renderSignedIn(<Traces />);
    expect(await screen.findByText('No traces match these filters')).toBeInTheDocument();
  });

  it('is in the navigation, marked current on the list and on a trace', async () => {
    saveSession({ publicKey: 'pk-lf-test', secretKey: 'sk-lf-test' });
    at('#/traces');
    render(<App baseUrl={BASE_URL} />);
    const nav = screen.getByRole('navigation', { name: 'Console' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((a) => a.textContent),
    ).toEqual(['Dashboard', 'Traces', 'Generations', 'Models', 'LLM connections', 'Playground', 'Evaluators', 'Alerts']);
    expect(within(nav).getByRole('link', { name: 'Traces' })).toHaveAttribute('aria-current', 'page');
    await screen.findByRole('table', { name: 'Traces' });
    act(() => at(`#/traces/${TRACE_ID}`));
    expect(await screen.findByRole('heading', { name: 'support-chat' })).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: 'Traces' })).toHaveAttribute('aria-current', 'page');
    act(() => at('#/generations'));
    await waitFor(() => expect(within(nav).getByRole('link', { name: 'Generations' })).toHaveAttribute('aria-current', 'page'));
  });
});
