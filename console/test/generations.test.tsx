// The generations list: the spec's example generation in the table, its trace's user and session
// from one metrics query, and each filter in the URL and in the request (model, costStatus,
// session and tag through the observation list's `filter` JSON).
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { Generations } from '../src/pages/Generations.tsx';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

const API = `${BASE_URL}/api/public`;
/** the traces of the spec's default observations_getMany example (newest first) */
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const OLDER_TRACE_ID = '8a3c60f7d188f8fa79d48a391a778fa6';

function requests(path: string): URLSearchParams[] {
  const seen: URLSearchParams[] = [];
  mockServer.events.on('request:start', ({ request }) => {
    const url = new URL(request.url);
    if (url.pathname === path) seen.push(url.searchParams);
  });
  return seen;
}
const filterOf = (q: URLSearchParams | undefined) => (q?.get('filter') ? JSON.parse(q.get('filter')!) : undefined);

const generation = (id: string) => ({
  id,
  projectId: 'p',
  traceId: `t-${id}`,
  type: 'GENERATION',
  name: id,
  environment: 'default',
  startTime: '2026-11-22T10:00:00.000Z',
  model: 'm',
  usageDetails: { input: 1 },
  costDetails: {},
  usage: { unit: 'TOKENS', input: 1, output: 0, total: 1 },
  unit: 'TOKENS',
  promptTokens: 1,
  completionTokens: 0,
  totalTokens: 1,
  calculatedTotalCost: 0,
  costStatus: 'unpriced',
  unpricedUsageKeys: ['input'],
  usagePricedAs: {},
});

const at = (hash: string) => {
  window.location.hash = hash;
};

afterEach(() => mockServer.events.removeAllListeners());

describe('Generations list', () => {
  it('shows the example generations with usage, cost, costStatus and links; users and sessions from one metrics query', async () => {
    const lists = requests('/api/public/observations');
    const metrics = requests('/api/public/v2/metrics');
    mockServer.use(
      http.get(`${API}/v2/metrics`, () =>
        HttpResponse.json({
          data: [
            { traceId: TRACE_ID, userId: 'user_2f9c81', sessionId: 'sess_7d41b0e3', count_count: 1 },
            { traceId: OLDER_TRACE_ID, userId: 'user_2f9c81', sessionId: '', count_count: 1 },
          ],
        }),
      ),
    );
    at('#/generations');
    renderSignedIn(<Generations />);
    const table = await screen.findByRole('table', { name: 'Generations' });
    const [row, older] = within(table)
      .getAllByRole('rowheader', { name: 'answer' })
      .map((h) => h.closest('tr')!);
    expect(within(row!).getByRole('link', { name: 'answer' })).toHaveAttribute('href', `#/traces/${TRACE_ID}?observation=53995c3f42cd8ad8`);
    expect(within(row!).getByRole('link', { name: 'claude-3-5-sonnet-20241022' })).toHaveAttribute(
      'href',
      '#/generations?model=claude-3-5-sonnet-20241022',
    );
    const cells = within(row!)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells.slice(4, 11)).toEqual(['2,400', '600', '3,000', '$0.0162', 'inferred', '2.38 s', 'DEFAULT']);
    expect(within(row!).getByRole('link', { name: 'inferred' })).toHaveAttribute('href', '#/generations?costStatus=inferred');
    expect(within(row!).getByRole('link', { name: `Trace ${TRACE_ID}` })).toHaveAttribute('href', `#/traces/${TRACE_ID}`);
    await waitFor(() =>
      expect(within(row!).getByRole('link', { name: 'user_2f9c81' })).toHaveAttribute('href', '#/generations?user=user_2f9c81'),
    );
    expect(within(row!).getByRole('link', { name: 'sess_7d41b0e3' })).toHaveAttribute('href', '#/generations?session=sess_7d41b0e3');

    expect(within(older!).getByRole('link', { name: 'gpt-4o-mini' })).toHaveAttribute('href', '#/generations?model=gpt-4o-mini');
    const olderCells = within(older!)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(olderCells.slice(4, 11)).toEqual(['1,250', '180', '1,430', '$0.0002187', 'inferred', '1.25 s', 'DEFAULT']);
    expect(olderCells[3]).toBe('—'); // no session

    expect(Object.fromEntries(lists[0]!)).toEqual({ type: 'GENERATION', page: '1', limit: '50' });
    const q = JSON.parse(metrics[0]!.get('query')!);
    expect(q).toMatchObject({
      view: 'observations',
      dimensions: [{ field: 'traceId' }, { field: 'userId' }, { field: 'sessionId' }],
      filters: [{ column: 'traceId', operator: 'any of', value: [TRACE_ID, OLDER_TRACE_ID], type: 'stringOptions' }],
      fromTimestamp: '2026-11-26T09:15:42.100Z',
      toTimestamp: '2026-11-26T14:02:11.241Z',
    });
  });

  it('sends model, costStatus, session and tag as filter JSON and user, name, environment and range as parameters', async () => {
    const lists = requests('/api/public/observations');
    at(
      '#/generations?model=gpt-4o&costStatus=unpriced,partial&session=s-1&tag=beta&user=u-1&name=chat&env=prod&from=2026-11-01&to=2026-11-02',
    );
    renderSignedIn(<Generations />);
    await screen.findByRole('table', { name: 'Generations' });
    const q = lists[0]!;
    expect(filterOf(q)).toEqual([
      { type: 'stringOptions', column: 'providedModelName', operator: 'any of', value: ['gpt-4o'] },
      { type: 'stringOptions', column: 'costStatus', operator: 'any of', value: ['unpriced', 'partial'] },
      { type: 'string', column: 'sessionId', operator: '=', value: 's-1' },
      { type: 'arrayOptions', column: 'tags', operator: 'all of', value: ['beta'] },
    ]);
    expect(q.get('userId')).toBe('u-1');
    expect(q.get('name')).toBe('chat');
    expect(q.getAll('environment')).toEqual(['prod']);
    expect(q.get('fromStartTime')).toBe('2026-11-01T00:00:00.000Z');
    expect(q.get('toStartTime')).toBe('2026-11-03T00:00:00.000Z');
    expect(screen.getByRole('checkbox', { name: 'unpriced' })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: 'partial' })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: 'inferred' })).not.toBeChecked();
    expect(screen.getByRole('list', { name: 'Active filters' })).toHaveTextContent('cost status: unpriced,partial');
  });

  it('applies a typed model on Enter and a cost status as soon as it is ticked', async () => {
    const user = userEvent.setup();
    const lists = requests('/api/public/observations');
    at('#/generations');
    renderSignedIn(<Generations />);
    const form = await screen.findByRole('form', { name: 'Filter generations' });
    await user.type(within(form).getByLabelText('Model'), 'gpt-4o{Enter}');
    await waitFor(() => expect(window.location.hash).toBe('#/generations?model=gpt-4o'));
    await waitFor(() =>
      expect(filterOf(lists.at(-1))).toEqual([
        { type: 'stringOptions', column: 'providedModelName', operator: 'any of', value: ['gpt-4o'] },
      ]),
    );

    await user.click(screen.getByRole('checkbox', { name: 'unpriced' }));
    await waitFor(() => expect(window.location.hash).toBe('#/generations?model=gpt-4o&costStatus=unpriced'));
    await waitFor(() =>
      expect(filterOf(lists.at(-1))).toEqual([
        { type: 'stringOptions', column: 'providedModelName', operator: 'any of', value: ['gpt-4o'] },
        { type: 'stringOptions', column: 'costStatus', operator: 'any of', value: ['unpriced'] },
      ]),
    );

    // Back (the previous URL) puts the form and the request back as they were
    act(() => at('#/generations?model=gpt-4o'));
    await waitFor(() => expect(screen.getByRole('checkbox', { name: 'unpriced' })).not.toBeChecked());
    await waitFor(() => expect(filterOf(lists.at(-1))).toHaveLength(1));
  });

  it('pages, keeping the filters', async () => {
    const lists = requests('/api/public/observations');
    mockServer.use(
      http.get(`${API}/observations`, ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page'));
        return HttpResponse.json({ data: [generation(`g-${page}`)], meta: { page, limit: 50, totalItems: 75, totalPages: 2 } });
      }),
    );
    at('#/generations?costStatus=unpriced');
    renderSignedIn(<Generations />);
    const pager = await screen.findByRole('navigation', { name: 'Pages of generations' });
    expect(pager).toHaveTextContent('Page 1 of 2 · 75 generations');
    expect(within(pager).getByRole('link', { name: 'Next →' })).toHaveAttribute('href', '#/generations?costStatus=unpriced&page=2');
    act(() => at('#/generations?costStatus=unpriced&page=2'));
    await waitFor(() => expect(pager).toHaveTextContent('Page 2 of 2'));
    expect(lists.at(-1)!.get('page')).toBe('2');
    expect(within(pager).getByRole('link', { name: '← Previous' })).toHaveAttribute('href', '#/generations?costStatus=unpriced');
    expect(screen.getByRole('rowheader', { name: 'g-2' })).toBeInTheDocument();
  });

  it('says so when nothing matches', async () => {
    mockServer.use(
      http.get(`${API}/observations`, () => HttpResponse.json({ data: [], meta: { page: 1, limit: 50, totalItems: 0, totalPages: 0 } })),
    );
    at('#/generations?costStatus=unpriced');
    renderSignedIn(<Generations />);
    expect(await screen.findByText('No generations match these filters')).toBeInTheDocument();
  });

  it('shows the list when the user and session lookup fails, and says what is missing', async () => {
    mockServer.use(http.get(`${API}/v2/metrics`, () => HttpResponse.json({ message: 'Analytics unavailable' }, { status: 503 })));
    at('#/generations');
    renderSignedIn(<Generations />);
    const table = await screen.findByRole('table', { name: 'Generations' });
    expect(await screen.findByRole('alert')).toHaveTextContent('Users and sessions: Analytics unavailable');
    expect(within(table).getAllByRole('rowheader', { name: 'answer' })).toHaveLength(2);
  });
});
