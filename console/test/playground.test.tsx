import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { mockOperation } from '../../sdk/mocks/index.ts';
import { Playground } from '../src/pages/Playground.tsx';
import { SseParser } from '../src/pages/playground/sse.ts';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

const URL_ = `${BASE_URL}/api/public/playground/completions`;
const enc = new TextEncoder();
// the model the page picks: the spec examples' openai connection offers a fine-tune, which it prefers
const FINE_TUNE = 'ft:gpt-4o-mini-2024-07-18:acme::Ab12Cd34';
const COMPLETION = {
  traceId: 't-1',
  observationId: 'o-1',
  provider: 'openai',
  model: FINE_TUNE,
  responseModel: FINE_TUNE,
  text: 'Paris',
  toolCalls: [],
  usageDetails: { input: 21, output: 2, total: 23 },
  costDetails: { input: 0.00000315, output: 0.0000012, total: 0.00000435 },
  totalCost: 0.00000435,
  costStatus: 'inferred',
  warnings: [],
  latencyMs: 12,
};
const ev = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** an event-stream answer whose chunks are released one by one by the test */
function gatedStream(chunks: string[]) {
  const gates: (() => void)[] = [];
  const opened = chunks.map(() => new Promise<void>((r) => gates.push(r)));
  const bodies: unknown[] = [];
  const handler = http.post(URL_, async ({ request }) => {
    bodies.push(await request.json());
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (let i = 0; i < chunks.length; i++) {
          await opened[i];
          controller.enqueue(enc.encode(chunks[i]));
        }
        controller.close();
      },
    });
    return new HttpResponse(stream, { headers: { 'content-type': 'text/event-stream' } });
  });
  return { handler, release: (i: number) => gates[i]!(), bodies };
}

async function fillAndRun(message = 'Capital of France?') {
  await waitFor(() => expect(screen.getByLabelText('Model')).toHaveValue(FINE_TUNE));
  expect(screen.getByLabelText('Connection')).toHaveValue('openai');
  await userEvent.type(screen.getByLabelText('Content of message 1'), message);
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));
}

describe('SSE parser', () => {
  it('handles events, lines and characters split across chunks', () => {
    const p = new SseParser();
    const bytes = enc.encode('event: delta\r\ndata: {"text":"é"}\r\n\r\n: keep-alive\n\nevent: completion\ndata: {"a":\ndata: 1}\n\n');
    const out = [];
    // one byte at a time: splits "\r\n", the two bytes of "é" and every field
    for (const b of bytes) out.push(...p.push(new Uint8Array([b])));
    out.push(...p.end());
    expect(out).toEqual([
      { event: 'delta', data: '{"text":"é"}' },
      { event: 'completion', data: '{"a":\n1}' },
    ]);
  });

  it('dispatches a last event without its blank line at the end, and defaults the name to message', () => {
    const p = new SseParser();
    expect(p.push('data: x\n\nevent: error\ndata: {"m":1}')).toEqual([{ event: 'message', data: 'x' }]);
    expect(p.end()).toEqual([{ event: 'error', data: '{"m":1}' }]);
  });
});

describe('Playground page', () => {
  it('streams the answer as delta events arrive, then shows usage, cost and costStatus', async () => {
    const s = gatedStream([
      ev('delta', { text: 'Pa' }),
      ev('delta', { text: 'ri' }).slice(0, 12),
      ev('delta', { text: 'ri' }).slice(12) + ev('delta', { text: 's' }),
      ev('completion', COMPLETION),
    ]);
    mockServer.use(s.handler);
    renderSignedIn(<Playground />);
    await userEvent.type(screen.getByLabelText('Temperature'), '0.5');
    await userEvent.type(screen.getByLabelText('Max tokens'), '16');
    await fillAndRun();
    const answer = screen.getByRole('region', { name: 'Answer' });
    s.release(0);
    await waitFor(() => expect(answer).toHaveTextContent('Pa'));
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();
    s.release(1);
    s.release(2);
    await waitFor(() => expect(within(answer).getByTestId('answer-text')).toHaveTextContent(/^Paris$/));
    expect(screen.queryByRole('table', { name: 'Usage' })).not.toBeInTheDocument();
    s.release(3);
    const usage = await screen.findByRole('table', { name: 'Usage' });
    expect(within(usage).getByRole('row', { name: 'input 21' })).toBeInTheDocument();
    expect(within(usage).getByRole('row', { name: 'total 23' })).toBeInTheDocument();
    const cost = screen.getByRole('table', { name: 'Cost' });
    expect(within(cost).getByRole('row', { name: 'Total cost $0.00000435' })).toBeInTheDocument();
    expect(within(cost).getByRole('row', { name: 'input $0.00000315' })).toBeInTheDocument();
    expect(screen.getByText('Cost status: inferred')).toBeInTheDocument();
    // the run's trace opens in the explorer with its generation selected
    expect(screen.getByRole('link', { name: 't-1' })).toHaveAttribute('href', '#/traces/t-1?observation=o-1');
    expect(s.bodies[0]).toEqual({
      provider: 'openai',
      model: FINE_TUNE,
      messages: [{ role: 'user', content: 'Capital of France?' }],
      temperature: 0.5,
      max_tokens: 16,
      stream: true,
    });
  });

  it("shows an error event's kind, provider status and message", async () => {
    const s = gatedStream([
      ev('delta', { text: 'Pa' }) +
        ev('error', { message: '401 Incorrect API key provided: ***.', error: 'LlmCallError', kind: 'auth_invalid', providerStatus: 401 }),
    ]);
    mockServer.use(s.handler);
    s.release(0);
    renderSignedIn(<Playground />);
    await fillAndRun();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Provider failure: auth_invalid');
    expect(alert).toHaveTextContent('provider status 401');
    expect(alert).toHaveTextContent('Incorrect API key provided');
  });

  it("shows a 502 JSON answer's kind and message", async () => {
    mockServer.use(mockOperation('playground_completions', { status: 502 } as never, { baseUrl: BASE_URL }));
    renderSignedIn(<Playground />);
    await fillAndRun();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Provider failure: auth_invalid');
    expect(alert).toHaveTextContent('401 Incorrect API key provided: ***.');
    expect(alert).toHaveTextContent('HTTP 502');
  });

  it('shows 400 issues next to their fields', async () => {
    mockServer.use(mockOperation('playground_completions', 'temperatureTooHigh', { baseUrl: BASE_URL }));
    renderSignedIn(<Playground />);
    await fillAndRun();
    await waitFor(() => expect(screen.getByLabelText('Temperature')).toHaveAccessibleDescription(/Must be 2 or less\./));
    expect(screen.getByRole('alert')).toHaveTextContent('Invalid request data');
  });

  it('catches invalid provider options locally, without a call', async () => {
    let called = 0;
    mockServer.use(
      http.post(URL_, () => {
        called++;
        return HttpResponse.json({});
      }),
    );
    renderSignedIn(<Playground />);
    await userEvent.click(screen.getByLabelText('Provider options (JSON)'));
    await userEvent.paste('{"reasoning_effort": low}');
    await fillAndRun();
    expect(screen.getByLabelText('Provider options (JSON)')).toHaveAccessibleDescription(/Not valid JSON/);
    await userEvent.clear(screen.getByLabelText('Provider options (JSON)'));
    await userEvent.paste('[1]');
    await userEvent.click(screen.getByRole('button', { name: 'Run' }));
    expect(screen.getByLabelText('Provider options (JSON)')).toHaveAccessibleDescription(/must be a JSON object/);
    expect(called).toBe(0);
  });

  it('edits messages and runs without streaming', async () => {
    const bodies: unknown[] = [];
    mockServer.use(
      http.post(URL_, async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json(COMPLETION);
      }),
    );
    renderSignedIn(<Playground />);
    await userEvent.click(screen.getByRole('button', { name: 'Add message' }));
    await userEvent.click(screen.getByRole('button', { name: 'Add message' }));
    await userEvent.selectOptions(screen.getByLabelText('Role of message 1'), 'system');
    await userEvent.type(screen.getByLabelText('Content of message 1'), 'One word.');
    await userEvent.selectOptions(screen.getByLabelText('Role of message 2'), 'user');
    await userEvent.type(screen.getByLabelText('Content of message 2'), 'Capital?');
    await userEvent.click(screen.getByRole('button', { name: 'Remove message 3' }));
    await userEvent.click(screen.getByLabelText('Stream the answer'));
    await waitFor(() => expect(screen.getByLabelText('Model')).toHaveValue(FINE_TUNE));
    await userEvent.click(screen.getByRole('button', { name: 'Run' }));
    expect(await screen.findByText('Cost status: inferred')).toBeInTheDocument();
    expect(screen.getByTestId('answer-text')).toHaveTextContent('Paris');
    expect(bodies[0]).toMatchObject({
      messages: [
        { role: 'system', content: 'One word.' },
        { role: 'user', content: 'Capital?' },
      ],
      stream: false,
    });
  });

  it('stops a running stream', async () => {
    const s = gatedStream([ev('delta', { text: 'Pa' }), ev('completion', COMPLETION)]);
    mockServer.use(s.handler);
    renderSignedIn(<Playground />);
    await fillAndRun();
    s.release(0);
    await waitFor(() => expect(screen.getByTestId('answer-text')).toHaveTextContent('Pa'));
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(await screen.findByText(/Stopped: the call was aborted/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Run' })).toBeEnabled();
    s.release(1);
  });

  it('says where to create a connection when there is none', async () => {
    mockServer.use(
      http.get(`${BASE_URL}/api/public/llm-connections`, () =>
        HttpResponse.json({ data: [], meta: { page: 1, limit: 100, totalItems: 0, totalPages: 0 } }),
      ),
    );
    renderSignedIn(<Playground />);
    expect(await screen.findByText('No LLM connection yet')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'LLM connections' })).toHaveAttribute('href', '#/connections');
  });
});
