// The playground and the connection probe on the suite's server (PGlite, and PostgreSQL when
// DATABASE_URL is set), against fake providers on 127.0.0.2, the one address the suite's server
// may call: answers whole and streamed, the call recorded as a generation priced like an
// ingested one and visible in metrics, provider failures classified, and the probe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';
import { json, never, sse, startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { FAKE_PROVIDER_HOST, SUITE_LLM_TIMEOUT_MS } from './global-setup.ts';

let openai: FakeProvider;
let anthropic: FakeProvider;
const KEY = `sk-playground-${unique('key')}`;
const ANTHROPIC_KEY = `sk-ant-${unique('key')}`;
const openaiProvider = unique('pg-openai');
const anthropicProvider = unique('pg-anthropic');
let openaiConnectionId = '';

const post = (path: string, body: unknown) =>
  raw(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const complete = (body: Record<string, unknown>) => post('/api/public/playground/completions', body);

const chat = (content: string | null, usage: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1763856000,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, message: { role: 'assistant', content, ...extra }, finish_reason: 'stop' }],
  usage,
});

beforeAll(async () => {
  openai = await startFakeProvider(FAKE_PROVIDER_HOST);
  anthropic = await startFakeProvider(FAKE_PROVIDER_HOST);
  const put = (body: unknown) =>
    raw('/api/public/llm-connections', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const a = await put({
    provider: openaiProvider,
    adapter: 'openai',
    secretKey: KEY,
    baseURL: `${openai.url}/v1`,
    extraHeaders: { 'X-Team': 'evals' },
  });
  expect(a.status).toBe(201);
  openaiConnectionId = a.body.id;
  expect((await put({ provider: anthropicProvider, adapter: 'anthropic', secretKey: ANTHROPIC_KEY, baseURL: anthropic.url })).status).toBe(
    201,
  );
});

afterAll(async () => {
  await openai.close();
  await anthropic.close();
});

describe('playground completions', () => {
  it('answers with the usage buckets and cost, and records a tally-playground generation that metrics count', async () => {
    openai.reset();
    openai.answer = (_r, res) =>
      json(
        res,
        200,
        chat('Paris', {
          prompt_tokens: 1000,
          completion_tokens: 200,
          total_tokens: 1200,
          prompt_tokens_details: { cached_tokens: 400 },
          completion_tokens_details: { reasoning_tokens: 0 },
        }),
      );
    const messages = [
      { role: 'system', content: 'One word.' },
      { role: 'user', content: 'Capital of France?' },
    ];
    const r = await complete({
      provider: openaiProvider,
      model: 'gpt-4o-mini',
      messages,
      temperature: 0.5,
      max_tokens: 20,
      providerOptions: { service_tier: 'flex' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // chat-completions usage: the details are taken out of prompt/completion, each counted once
    expect(r.body.usageDetails).toEqual({ input: 600, input_cached_tokens: 400, output: 200, output_reasoning_tokens: 0, total: 1200 });
    expect(r.body.costStatus).toBe('inferred');
    expect(r.body.totalCost).toBeGreaterThan(0);
    expect(r.body.costDetails.total).toBeCloseTo(r.body.totalCost, 15);
    expect(r.body).toMatchObject({
      provider: openaiProvider,
      model: 'gpt-4o-mini',
      responseModel: 'gpt-4o-mini-2024-07-18',
      text: 'Paris',
      toolCalls: [],
      warnings: [],
    });

    // what the provider received: the connection's key and header, the params and options
    expect(openai.received).toHaveLength(1);
    const sent = openai.received[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.headers['x-team']).toBe('evals');
    expect(sent.body).toEqual({ model: 'gpt-4o-mini', messages, temperature: 0.5, max_tokens: 20, stream: false, service_tier: 'flex' });

    // the trace and its generation, as any reader of the API sees them
    const trace = await raw(`/api/public/traces/${r.body.traceId}`);
    expect(trace.status).toBe(200);
    expect(trace.body.environment).toBe('tally-playground');
    const obs = await raw(`/api/public/observations/${r.body.observationId}`);
    expect(obs.status).toBe(200);
    expect(obs.body).toMatchObject({
      type: 'GENERATION',
      environment: 'tally-playground',
      model: 'gpt-4o-mini',
      traceId: r.body.traceId,
      input: messages,
      calculatedTotalCost: r.body.totalCost,
    });
    expect(obs.body.output).toEqual({ role: 'assistant', content: 'Paris' });
    expect(obs.body.modelParameters).toEqual({ temperature: 0.5, max_tokens: 20 });

    const query = {
      view: 'observations',
      metrics: [
        { measure: 'totalCost', aggregation: 'sum' },
        { measure: 'count', aggregation: 'count' },
      ],
      dimensions: [{ field: 'environment' }],
      filters: [{ column: 'traceId', operator: '=', value: r.body.traceId, type: 'string' }],
      fromTimestamp: '2020-01-01T00:00:00Z',
      toTimestamp: '2100-01-01T00:00:00Z',
    };
    const m = await raw(`/api/public/v2/metrics?query=${encodeURIComponent(JSON.stringify(query))}`);
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body.data).toEqual([{ environment: 'tally-playground', sum_totalCost: r.body.totalCost, count_count: 1 }]);
  });

  it('streams text as server-sent events, then the same completion; completionStartTime is the first text', async () => {
    openai.reset();
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [{ index: 0, delta, finish_reason: null }],
      ...extra,
    });
    openai.answer = (_r, res) =>
      sse(
        res,
        [
          chunk({ role: 'assistant', content: 'Pa' }),
          chunk({ content: 'ri' }),
          chunk({ content: 's' }),
          {
            id: 'c1',
            object: 'chat.completion.chunk',
            created: 1,
            model: 'gpt-4o-mini-2024-07-18',
            choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
          },
          {
            id: 'c1',
            object: 'chat.completion.chunk',
            created: 1,
            model: 'gpt-4o-mini-2024-07-18',
            choices: [],
            usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
          },
        ],
        { done: true },
      );
    const r = await complete({
      provider: openaiProvider,
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Capital of France?' }],
      stream: true,
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = String(r.body)
      .trim()
      .split('\n\n')
      .map((block) => {
        const [e, d] = block.split('\n');
        return { event: e!.replace('event: ', ''), data: JSON.parse(d!.replace('data: ', '')) };
      });
    expect(events.slice(0, 3)).toEqual([
      { event: 'delta', data: { text: 'Pa' } },
      { event: 'delta', data: { text: 'ri' } },
      { event: 'delta', data: { text: 's' } },
    ]);
    expect(events).toHaveLength(4);
    const done = events[3]!;
    expect(done.event, JSON.stringify(done.data)).toBe('completion');
    expect(done.data).toMatchObject({ text: 'Paris', usageDetails: { input: 12, output: 3, total: 15 }, costStatus: 'inferred' });
    // the streamed request asked for the usage chunk
    expect(openai.received[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const obs = await raw(`/api/public/observations/${done.data.observationId}`);
    expect(obs.body.completionStartTime).not.toBeNull();
    expect(Date.parse(obs.body.completionStartTime)).toBeGreaterThanOrEqual(Date.parse(obs.body.startTime));
  });

  it('stores a usage object with an extra key unmapped, with the warning ingestion gives', async () => {
    openai.answer = (_r, res) => json(res, 200, chat('ok', { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cost: 0.0001 }));
    const r = await complete({ provider: openaiProvider, model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.status).toBe(200);
    // as ingestion stores such an object: a free map, `total` the sum of its keys
    expect(r.body.usageDetails).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, total: 30 });
    expect(r.body.warnings.join(' ')).toMatch(/cost/);
  });

  it('returns tool calls and records them in the output', async () => {
    openai.answer = (_r, res) =>
      json(
        res,
        200,
        chat(
          null,
          { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 },
          {
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'extract', arguments: '{"score":"4","reasoning":"fine"}' } }],
          },
        ),
      );
    const tools = [
      { name: 'extract', parameters: { type: 'object', properties: { score: { type: 'string' }, reasoning: { type: 'string' } } } },
    ];
    const r = await complete({
      provider: openaiProvider,
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'grade' }],
      tools,
      toolChoice: { name: 'extract' },
    });
    expect(r.status).toBe(200);
    expect(r.body.toolCalls).toEqual([{ name: 'extract', arguments: '{"score":"4","reasoning":"fine"}' }]);
    const obs = await raw(`/api/public/observations/${r.body.observationId}`);
    expect(obs.body.output.tool_calls).toEqual(r.body.toolCalls);
  });

  it('prices an Anthropic answer from its own usage object', async () => {
    anthropic.reset();
    const usage = { input_tokens: 2000, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 500 };
    anthropic.answer = (_r, res) =>
      json(res, 200, {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-20250514',
        content: [{ type: 'text', text: 'Hello' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
      });
    const r = await complete({
      provider: anthropicProvider,
      model: 'claude-sonnet-4-20250514',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      max_tokens: 50,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(anthropic.received[0]!.path).toBe('/v1/messages');
    expect(anthropic.received[0]!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(anthropic.received[0]!.body).toMatchObject({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 50 });
    expect(r.body.text).toBe('Hello');
    expect(r.body.usageDetails).toMatchObject({ input_tokens: 2000, output_tokens: 100, cache_read_input_tokens: 500 });
    expect(r.body.costStatus).toBe('inferred');
    // 2000 × 3e-6 + 100 × 1.5e-5 + 500 × 3e-7 (the managed claude-sonnet-4 prices)
    expect(r.body.totalCost).toBeCloseTo(0.006 + 0.0015 + 0.00015, 12);
  });

  it('classifies provider failures: 502 with the key redacted, 429, 504 after TALLY_LLM_TIMEOUT_MS', async () => {
    const base = { provider: openaiProvider, model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
    openai.answer = (_r, res) => json(res, 401, { error: { message: `Incorrect API key provided: ${KEY}.`, code: 'invalid_api_key' } });
    const auth = await complete(base);
    expect(auth.status).toBe(502);
    expect(auth.body).toMatchObject({ error: 'LlmCallError', kind: 'auth_invalid', providerStatus: 401 });
    expect(JSON.stringify(auth.body)).not.toContain(KEY);
    expect(JSON.stringify(auth.body)).not.toContain(KEY.slice(-8));

    openai.answer = (_r, res) => json(res, 429, { error: { message: 'Rate limit reached', code: 'rate_limit_exceeded' } });
    const limited = await complete(base);
    expect(limited.status).toBe(429);
    expect(limited.body.kind).toBe('rate_limited');

    openai.answer = never;
    const started = Date.now();
    const slow = await complete(base);
    expect(slow.status).toBe(504);
    expect(slow.body.kind).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(SUITE_LLM_TIMEOUT_MS - 100);
  });

  it('refuses before calling: unknown provider 404, toolChoice not among tools 400', async () => {
    openai.reset();
    expect((await complete({ provider: unique('none'), model: 'm', messages: [{ role: 'user', content: 'x' }] })).status).toBe(404);
    const bad = await complete({
      provider: openaiProvider,
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      toolChoice: { name: 'extract' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error[0].path).toEqual(['toolChoice', 'name']);
    expect(openai.received).toHaveLength(0);
  });
});

describe('connection probe', () => {
  it('is ok for an extract tool call, names a malformed answer, and reports failures as ok:false', async () => {
    openai.reset();
    openai.answer = (_r, res) =>
      json(
        res,
        200,
        chat(
          null,
          { prompt_tokens: 80, completion_tokens: 10, total_tokens: 90 },
          { tool_calls: [{ id: 'c', type: 'function', function: { name: 'extract', arguments: '{"score":"5","reasoning":"r"}' } }] },
        ),
      );
    const ok = await post(`/api/public/llm-connections/${openaiConnectionId}/test`, { model: 'gpt-4o-mini' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, model: 'gpt-4o-mini', responseModel: 'gpt-4o-mini-2024-07-18' });
    const sent = openai.received[0]!.body;
    expect(sent.tool_choice).toEqual({ type: 'function', function: { name: 'extract' } });
    expect(sent.tools[0].function.parameters).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      required: ['score', 'reasoning'],
      additionalProperties: false,
    });

    // without a body: the first of the connection's models
    openai.answer = (_r, res) => json(res, 200, chat('I think 5', { prompt_tokens: 80, completion_tokens: 10, total_tokens: 90 }));
    const malformed = await post(`/api/public/llm-connections/${openaiConnectionId}/test`, {});
    expect(malformed.body).toMatchObject({ ok: false, error: { kind: 'malformed_answer' } });
    expect(malformed.body.model).toBe(openai.received[1]!.body.model);

    openai.answer = (_r, res) => json(res, 404, { error: { message: 'The model `nope` does not exist', code: 'model_not_found' } });
    const missing = await post(`/api/public/llm-connections/${openaiConnectionId}/test`, { model: 'nope' });
    expect(missing.status).toBe(200);
    expect(missing.body).toMatchObject({ ok: false, model: 'nope', error: { kind: 'model_unavailable', providerStatus: 404 } });

    expect((await post(`/api/public/llm-connections/${unique('nope')}/test`, {})).status).toBe(404);
  });
});
