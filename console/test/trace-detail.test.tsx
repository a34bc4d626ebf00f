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
  traceId: 'conformance-trace-chat',
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
    at('#/traces/conformance-trace-chat');
    renderSignedIn(<Traces />);
    const header = await screen.findByRole('region', { name: 'chat-request' });
    expect(within(header).getByRole('link', { name: 'user-1' })).toHaveAttribute('href', '#/traces?user=user-1');
    expect(within(header).getByRole('link', { name: 'session-1' })).toHaveAttribute('href', '#/traces?session=session-1');
    expect(within(header).getByRole('link', { name: 'conformance' })).toHaveAttribute('href', '#/traces?tag=conformance');
    expect(header).toHaveTextContent('Environmentdefault');
    expect(header).toHaveTextContent('Time2026-11-22 10:00:00 UTC');
    expect(header).toHaveTextContent('Total cost$0.006Latency'); // every observation priced: no note
    expect(header).toHaveTextContent('Latency1.50 s');

    const tree = screen.getByRole('list', { name: 'Observations' });
    const link = within(tree).getByRole('link', { name: 'chat-completion' });
    expect(link).toHaveAttribute('href', '#/traces/conformance-trace-chat?observation=conformance-obs-chat');
    expect(link).toHaveAttribute('aria-current', 'true'); // the first generation, with no observation in the URL
    expect(tree).toHaveTextContent('+0 ms · 1.50 s');

    const panel = screen.getByRole('region', { name: 'GENERATION chat-completion' });
    expect(within(panel).getByRole('link', { name: 'conformance-flat' })).toHaveAttribute('href', '#/generations?model=conformance-flat');
    expect(panel).toHaveTextContent('Time to first token400 ms');
    expect(panel).toHaveTextContent('"content": "Say hi"');
    expect(panel).toHaveTextContent('"content": "Hi!"');

    const usage = within(panel).getByRole('table', { name: 'Usage buckets' });
    expect(within(usage).getByRole('rowheader', { name: 'input_cached_tokens' }).closest('tr')).toHaveTextContent('200');
    expect(within(usage).getByRole('rowheader', { name: 'input' }).closest('tr')).toHaveTextContent('1,000');

    const lines = within(panel).getByRole('table', { name: 'Cost lines' });
    const rows = within(lines)
      .getAllByRole('row')
      .slice(1)
      .map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent));
    expect(rows).toEqual([
      ['input', '1,000', '0.0000025', '0.0025'],
      ['input_cached_tokens at the input rate', '200', '0.0000025', '0.0005'],
      ['output', '250', '0.00001', '0.0025'],
      ['output_reasoning_tokens at the output rate', '50', '0.00001', '0.0005'],
      ['Total', '$0.006'],
    ]);
    expect(panel).toHaveTextContent('Cost status: inferred');
    expect(panel).toHaveTextContent('Priced with the tier “Standard”.');
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
            score('helpfulness', { value: 0.8, source: 'EVAL', comment: 'Direct.', observationId: 'conformance-obs-chat' }),
            score('thumbs', { dataType: 'BOOLEAN', value: 1, stringValue: 'True' }),
          ],
          meta: { page: 1, limit: 100, totalItems: 2, totalPages: 1 },
        }),
      ),
    );
    at('#/traces/conformance-trace-chat');
    renderSignedIn(<Traces />);
    const table = await screen.findByRole('table', { name: 'Scores of this trace' });
    const help = within(table).getByRole('rowheader', { name: 'helpfulness' }).closest('tr')!;
    expect(help).toHaveTextContent('0.8');
    expect(help).toHaveTextContent('EVAL');
    expect(help).toHaveTextContent('Direct.');
    expect(within(help).getByRole('link', { name: 'conformance-obs-chat' })).toHaveAttribute(
      'href',
      '#/traces/conformance-trace-chat?observation=conformance-obs-chat',
    );
    const thumbs = within(table).getByRole('rowheader', { name: 'thumbs' }).closest('tr')!;
    expect(thumbs).toHaveTextContent('True');
    expect(thumbs).toHaveTextContent('the trace');
    const scores = urls.find((u) => u.pathname === '/api/public/v2/scores')!;
    expect(scores.searchParams.get('traceId')).toBe('conformance-trace-chat');
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
    at('#/traces/conformance-trace-chat');
    renderSignedIn(<Traces />);
    await user.click(await screen.findByRole('button', { name: "Explain with today's prices" }));
    const explained = await screen.findByRole('region', { name: 'Cost explanation' });
    expect(within(explained).getByRole('table', { name: 'Cost lines' })).toBeInTheDocument();
    expect(bodies).toEqual([
      {
        model: 'conformance-flat',
        usageDetails: { input: 1000, total: 1500, output: 250, input_cached_tokens: 200, output_reasoning_tokens: 50 },
        modelParameters: null,
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
    at('#/traces/conformance-trace-chat?observation=gone');
    renderSignedIn(<Traces />);
    expect(await screen.findByText('No such observation in this trace')).toBeInTheDocument();
  });
});
