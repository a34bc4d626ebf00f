// One trace: the spec's example (a priced generation) with its header, tree, input/output, usage
// buckets, cost lines and scores; a nested trace's tree and timings; a trace that is not there.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { mockOperation } from '../../sdk/mocks/index.ts';
import { Traces } from '../src/pages/Traces.tsx';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

const API = `${BASE_URL}/api/public`;
/** the trace of the spec's default trace_get example, and its generation */
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const GENERATION_ID = '53995c3f42cd8ad8';
const TREE_TIMES = 'SPAN retrieve-docs+0 ms · 180 msGENERATION answer · claude-3-5-sonnet-20241022+190 ms · 2.38 s';

/** a cost-lines table's rows below its header, as cell texts */
const costLines = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent));

const obs = (id: string, over: Record<string, unknown>) => ({
  id,
  projectId: 'p',
  traceId: 'nested',
  parentObservationId: null,
  type: 'SPAN',
  name: id,
  environment: 'default',
  startTime: '2026-11-22T10:00:00.000Z',
  endTime: '2026-11-22T10:00:04.000Z',
  level: 'DEFAULT',
  input: null,
  output: null,
  metadata: null,
  model: null,
  usageDetails: {},
  costDetails: {},
  usage: { unit: 'TOKENS', input: 0, output: 0, total: 0 },
  unit: 'TOKENS',
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  calculatedTotalCost: 0,
  costStatus: 'none',
  unpricedUsageKeys: [],
  usagePricedAs: {},
  ...over,
});

const nested = {
  id: 'nested',
  projectId: 'p',
  timestamp: '2026-11-22T10:00:00.000Z',
  name: 'agent-run',
  userId: null,
  sessionId: null,
  environment: 'production',
  tags: [],
  public: false,
  totalCost: 0.01,
  latency: 4,
  observations: [
    // out of order on purpose: the tree orders by start time
    obs('answer', {
      type: 'GENERATION',
      parentObservationId: 'agent',
      startTime: '2026-11-22T10:00:02.000Z',
      endTime: '2026-11-22T10:00:04.000Z',
      model: 'gpt-x',
      output: 'x'.repeat(2_500),
      usageDetails: { input: 10, output: 5, audio: 3 },
      costDetails: { input: 0.004, output: 0.006, total: 0.01 },
      calculatedTotalCost: 0.01,
      costStatus: 'partial',
      unpricedUsageKeys: ['audio'],
    }),
    obs('agent', {}),
    obs('lookup', {
      type: 'TOOL',
      parentObservationId: 'agent',
      endTime: '2026-11-22T10:00:01.000Z',
      level: 'ERROR',
      statusMessage: 'timeout',
    }),
  ],
};

const score = (id: string, over: Record<string, unknown>) => ({
  id,
  projectId: 'p',
  environment: 'default',
  name: id,
  source: 'API',
  authorUserId: null,
  comment: null,
  metadata: null,
  configId: null,
  queueId: null,
  executionTraceId: null,
  createdAt: '2026-11-22T10:00:06.000Z',
  updatedAt: '2026-11-22T10:00:06.000Z',
  timestamp: '2026-11-22T10:00:06.000Z',
  traceId: TRACE_ID,
  observationId: null,
  sessionId: null,
  datasetRunId: null,
  dataType: 'NUMERIC',
  value: 1,
  stringValue: null,
  ...over,
});

const at = (hash: string) => {
  window.location.hash = hash;
};

afterEach(() => mockServer.events.removeAllListeners());

describe('Trace detail', () => {
  it('shows the example trace: header with links, the generation selected, its input/output, usage buckets and cost lines', async () => {
    at(`#/traces/${TRACE_ID}`);
    renderSignedIn(<Traces />);
    const header = await screen.findByRole('region', { name: 'support-chat' });
    expect(within(header).getByRole('link', { name: 'user_2f9c81' })).toHaveAttribute('href', '#/traces?user=user_2f9c81');
    expect(within(header).getByRole('link', { name: 'sess_7d41b0e3' })).toHaveAttribute('href', '#/traces?session=sess_7d41b0e3');
    expect(within(header).getByRole('link', { name: 'support' })).toHaveAttribute('href', '#/traces?tag=support');
    expect(within(header).getByRole('link', { name: 'web' })).toHaveAttribute('href', '#/traces?tag=web');
    expect(header).toHaveTextContent('Environmentproduction');
    expect(header).toHaveTextContent('Time2026-11-26 14:02:11 UTC');
    expect(header).toHaveTextContent('Total cost$0.0162Latency'); // every observation priced: no note
    expect(header).toHaveTextContent('Latency2.57 s');

    const tree = screen.getByRole('list', { name: 'Observations' });
    expect(within(tree).getByRole('link', { name: 'retrieve-docs' })).not.toHaveAttribute('aria-current');
    const link = within(tree).getByRole('link', { name: 'answer' });
    expect(link).toHaveAttribute('href', `#/traces/${TRACE_ID}?observation=${GENERATION_ID}`);
    expect(link).toHaveAttribute('aria-current', 'true'); // the first generation (after the span), with no observation in the URL
    expect(tree).toHaveTextContent(TREE_TIMES);

    const panel = screen.getByRole('region', { name: 'GENERATION answer' });
    expect(within(panel).getByRole('link', { name: 'claude-3-5-sonnet-20241022' })).toHaveAttribute(
      'href',
      '#/generations?model=claude-3-5-sonnet-20241022',
    );
    expect(panel).toHaveTextContent('Time to first token650 ms');
    expect(panel).toHaveTextContent('"content": "How do I export my invoices as CSV?"');
    expect(panel).toHaveTextContent('"content": "Open Billing → Invoices, select the invoices and choose Export → CSV."');

    const usage = within(panel).getByRole('table', { name: 'Usage buckets' });
    expect(within(usage).getByRole('rowheader', { name: 'input' }).closest('tr')).toHaveTextContent('2,400');
    expect(within(usage).getByRole('rowheader', { name: 'output' }).closest('tr')).toHaveTextContent('600');

    const lines = within(panel).getByRole('table', { name: 'Cost lines' });
    expect(costLines(lines)).toEqual([
      ['input', '2,400', '0.000003', '0.0072'],
      ['output', '600', '0.000015', '0.009'],
      ['Total', '$0.0162'],
    ]);
    expect(panel).toHaveTextContent('Cost status: inferred');
    expect(panel).toHaveTextContent('Priced with the tier “Standard”.');
  });

  it("shows buckets priced at their parent's rate as such (the spec's withGeneration example)", async () => {
    mockServer.use(mockOperation('trace_get', 'withGeneration', { baseUrl: BASE_URL }));
    at('#/traces/conformance-trace-chat');
    renderSignedIn(<Traces />);
    const panel = await screen.findByRole('region', { name: 'GENERATION chat-completion' });
    const usage = within(panel).getByRole('table', { name: 'Usage buckets' });
    expect(within(usage).getByRole('rowheader', { name: 'input_cached_tokens' }).closest('tr')).toHaveTextContent('200');
    expect(within(usage).getByRole('rowheader', { name: 'input' }).closest('tr')).toHaveTextContent('1,000');
    expect(costLines(within(panel).getByRole('table', { name: 'Cost lines' }))).toEqual([
      ['input', '1,000', '0.0000025', '0.0025'],
      ['input_cached_tokens at the input rate', '200', '0.0000025', '0.0005'],
      ['output', '250', '0.00001', '0.0025'],
      ['output_reasoning_tokens at the output rate', '50', '0.00001', '0.0005'],
      ['Total', '$0.006'],
    ]);
    expect(panel).toHaveTextContent('Cost status: inferred');
    // its scores read done, so that no request of this test lands in the next one's
    await screen.findByRole('table', { name: 'Scores of this trace' });
  });

  it("lists the trace's scores (asked by traceId), each observation score linking to its observation", async () => {
    const urls: URL[] = [];
    mockServer.events.on('request:start', ({ request }) => {
      urls.push(new URL(request.url));
    });
    mockServer.use(
      http.get(`${API}/v2/scores`, () =>
        HttpResponse.json({
          data: [
            score('helpfulness', { value: 0.8, source: 'EVAL', comment: 'Direct.', observationId: GENERATION_ID }),
            score('thumbs', { dataType: 'BOOLEAN', value: 1, stringValue: 'True' }),
          ],
          meta: { page: 1, limit: 100, totalItems: 2, totalPages: 1 },
        }),
      ),
    );
    at(`#/traces/${TRACE_ID}`);
    renderSignedIn(<Traces />);
    const table = await screen.findByRole('table', { name: 'Scores of this trace' });
    const help = within(table).getByRole('rowheader', { name: 'helpfulness' }).closest('tr')!;
    expect(help).toHaveTextContent('0.8');
    expect(help).toHaveTextContent('EVAL');
    expect(help).toHaveTextContent('Direct.');
    expect(within(help).getByRole('link', { name: GENERATION_ID })).toHaveAttribute(
      'href',
      `#/traces/${TRACE_ID}?observation=${GENERATION_ID}`,
    );
    const thumbs = within(table).getByRole('rowheader', { name: 'thumbs' }).closest('tr')!;
    expect(thumbs).toHaveTextContent('True');
    expect(thumbs).toHaveTextContent('the trace');
    const scores = urls.find((u) => u.pathname === '/api/public/v2/scores')!;
    expect(scores.searchParams.get('traceId')).toBe(TRACE_ID);
  });

  it('nests observations under their parents in start order, with timing bars, and opens the one the URL names', async () => {
    mockServer.use(http.get(`${API}/traces/:id`, () => HttpResponse.json(nested)));
    at('#/traces/nested?observation=lookup');
    renderSignedIn(<Traces />);
    const tree = await screen.findByRole('list', { name: 'Observations' });
    expect(screen.getByRole('region', { name: 'agent-run' })).toHaveTextContent('Total cost$0.01 · 1 partly priced');
    const agent = within(tree).getByRole('link', { name: 'agent' }).closest('li')!;
    const children = within(agent).getAllByRole('listitem');
    expect(children.map((li) => within(li).getAllByRole('link')[0]!.textContent)).toEqual(['lookup', 'answer']);
    const bar = (id: string) =>
      within(tree).getByRole('link', { name: id }).closest('.obs-row')!.querySelector<HTMLElement>('.timing-bar')!.style;
    expect(bar('agent')).toMatchObject({ marginLeft: '0%', width: '100%' });
    expect(bar('answer')).toMatchObject({ marginLeft: '50%', width: '50%' });
    expect(bar('lookup')).toMatchObject({ marginLeft: '0%', width: '25%' });

    expect(within(tree).getByRole('link', { name: 'lookup' })).toHaveAttribute('aria-current', 'true');
    const panel = screen.getByRole('region', { name: 'TOOL lookup' });
    expect(panel).toHaveTextContent('LevelERROR · timeout');
    expect(within(tree).getByRole('link', { name: 'lookup' }).closest('.obs-row')).toHaveTextContent('ERROR');

    // what clicking a row does: the URL names another observation, and the panel follows
    act(() => at('#/traces/nested?observation=answer'));
    const answer = await screen.findByRole('region', { name: 'GENERATION answer' });
    expect(answer).toHaveTextContent('Cost status: partial');
    expect(answer).toHaveTextContent('No price for: audio. These units are not in the cost.');
    const audio = within(within(answer).getByRole('table', { name: 'Cost lines' }))
      .getByRole('rowheader', { name: 'audio' })
      .closest('tr')!;
    expect(audio).toHaveTextContent('3no price—');
  });

  it('clips a long output until "show all" is pressed', async () => {
    const user = userEvent.setup();
    mockServer.use(http.get(`${API}/traces/:id`, () => HttpResponse.json(nested)));
    at('#/traces/nested?observation=answer');
    renderSignedIn(<Traces />);
    const panel = await screen.findByRole('region', { name: 'GENERATION answer' });
    expect(panel).toHaveTextContent('Output (2,500 characters)');
    const pre = () => within(panel).getByText(/^x+…?$/);
    expect(pre().textContent).toHaveLength(2_001);
    await user.click(within(panel).getByRole('button', { name: 'Show all of output' }));
    expect(pre().textContent).toHaveLength(2_500);
    expect(within(panel).getByRole('button', { name: 'Show less of output' })).toHaveAttribute('aria-expanded', 'true');
  });

  it("prices the stored usage again with today's models on request (models_explain)", async () => {
    const user = userEvent.setup();
    const bodies: unknown[] = [];
    mockServer.events.on('request:start', async ({ request }) => {
      if (request.method === 'POST') bodies.push(await request.clone().json());
    });
    at(`#/traces/${TRACE_ID}`);
    renderSignedIn(<Traces />);
    await user.click(await screen.findByRole('button', { name: "Explain with today's prices" }));
    const explained = await screen.findByRole('region', { name: 'Cost explanation' });
    expect(within(explained).getByRole('table', { name: 'Cost lines' })).toBeInTheDocument();
    expect(bodies).toEqual([
      {
        model: 'claude-3-5-sonnet-20241022',
        usageDetails: { input: 2400, total: 3000, output: 600 },
        modelParameters: { max_tokens: 1024, temperature: 0.2 },
        metadata: null,
      },
    ]);
  });

  it('says there is no such trace on a 404, with a way back', async () => {
    mockServer.use(mockOperation('trace_get', { status: 404 }, { baseUrl: BASE_URL }));
    at('#/traces/does-not-exist');
    renderSignedIn(<Traces />);
    const state = await screen.findByRole('status');
    await waitFor(() => expect(state).toHaveTextContent('No such trace'));
    expect(state).toHaveTextContent('There is no trace does-not-exist in this project.');
    expect(screen.getByRole('link', { name: '← All traces' })).toHaveAttribute('href', '#/traces');
  });

  it('says so when the URL names an observation the trace does not have', async () => {
    at(`#/traces/${TRACE_ID}?observation=gone`);
    renderSignedIn(<Traces />);
    expect(await screen.findByText('No such observation in this trace')).toBeInTheDocument();
  });
});
