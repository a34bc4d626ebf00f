// The anthropic adapter against the fake provider on loopback: what it sends, how it reads the
// answer (plain and streamed), how failures are classified. Nothing here leaves 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_DEFAULT_MAX_TOKENS, anthropicBody, callAnthropic } from '../../src/adapters/anthropic.ts';
import type { LlmCall } from '../../src/domain/llm/call.ts';
import { parseAllowList } from '../../src/domain/llm/egress.ts';
import { catchLlm, describeProviderFailures, useFakeProvider } from '../support/adapter-failures.ts';
import { json, sse } from '../support/fake-provider.ts';

const fake = useFakeProvider();

const KEY = 'sk-ant-api03-test0123456789abcdefSECRETKEY';
const loopback = parseAllowList('127.0.0.1');
const connection = (origin = fake.url) => ({
  baseUrl: origin,
  secretKey: KEY,
  extraHeaders: { 'x-tenant': 'acme', 'x-gateway-token': 'gw-token-value-42' },
  config: null,
});

const SCHEMA = {
  type: 'object',
  properties: { score: { type: 'number' }, reasoning: { type: 'string' } },
  required: ['score', 'reasoning'],
};
const call: LlmCall = {
  model: 'claude-sonnet-4-6',
  messages: [
    { role: 'system', content: 'You grade answers.' },
    { role: 'system', content: 'Be strict.' },
    { role: 'user', content: 'Grade: 2+2=4' },
    { role: 'assistant', content: 'Ready.' },
    { role: 'user', content: 'Go.' },
  ],
  params: { temperature: 0.2, top_p: 0.9, max_tokens: 256, frequency_penalty: 0.1, presence_penalty: 0.3, n: 1 },
  tools: [{ name: 'extract', description: 'Extract the score', parameters: SCHEMA }],
  toolChoice: { name: 'extract' },
  providerOptions: { metadata: { user_id: 'user-42' }, anthropic: { effort: 'low' } },
  timeoutMs: 5_000,
};

const USAGE = {
  input_tokens: 412,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  output_tokens: 57,
  service_tier: 'standard',
};

// a Messages API answer as Anthropic sends it for a forced tool call
const ANSWER = {
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [
    { type: 'text', text: 'Grading now.' },
    { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'extract', input: { score: 5, reasoning: 'correct' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: USAGE,
};

describe('anthropic adapter: request and answer', () => {
  it('POSTs <base>/v1/messages with the key, version, custom headers, system on top, params, tools and options', async () => {
    fake.answer = (_r, res) => json(res, 200, ANSWER);
    const result = await callAnthropic(connection(), call, loopback);

    expect(fake.received).toHaveLength(1);
    const r = fake.received[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v1/messages');
    expect(r.headers['x-api-key']).toBe(KEY);
    expect(r.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(r.headers.authorization).toBeUndefined();
    expect(r.headers['x-tenant']).toBe('acme');
    expect(r.headers['x-gateway-token']).toBe('gw-token-value-42');
    expect(r.body).toEqual({
      model: 'claude-sonnet-4-6',
      system: 'You grade answers.\n\nBe strict.',
      messages: [
        { role: 'user', content: 'Grade: 2+2=4' },
        { role: 'assistant', content: 'Ready.' },
        { role: 'user', content: 'Go.' },
      ],
      max_tokens: 256,
      temperature: 0.2,
      top_p: 0.9,
      tools: [{ name: 'extract', description: 'Extract the score', input_schema: SCHEMA }],
      tool_choice: { type: 'tool', name: 'extract' },
      metadata: { user_id: 'user-42' },
      output_config: { effort: 'low' },
    });

    expect(result).toEqual({
      text: 'Grading now.',
      toolCalls: [{ name: 'extract', arguments: '{"score":5,"reasoning":"correct"}' }],
      usage: USAGE,
      model: 'claude-sonnet-4-6',
    });
  });

  it('sends the documented max_tokens default when unset, and nothing else unset', async () => {
    fake.answer = (_r, res) => json(res, 200, { ...ANSWER, content: [{ type: 'text', text: 'plain' }], stop_reason: 'end_turn' });
    const result = await callAnthropic(
      connection(),
      { model: 'claude-opus-4-6', messages: [{ role: 'user', content: 'hi' }], params: {}, timeoutMs: 5_000 },
      loopback,
    );
    const body = fake.received[0]!.body;
    expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model']);
    expect(body.max_tokens).toBe(ANTHROPIC_DEFAULT_MAX_TOKENS);
    expect(result.text).toBe('plain');
    expect(result.toolCalls).toEqual([]);
  });

  it('thinking enabled: wire thinking and max_tokens = max_tokens + budget_tokens (256 + 1024 = 1280)', async () => {
    fake.answer = (_r, res) => json(res, 200, ANSWER);
    await callAnthropic(
      connection(),
      {
        ...call,
        toolChoice: undefined,
        providerOptions: { thinking: { type: 'enabled', budgetTokens: 1024 }, speed: 'fast', disableParallelToolUse: true },
      },
      loopback,
    );
    const body = fake.received[0]!.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(body.max_tokens).toBe(1280);
    expect(body.speed).toBe('fast');
    expect(body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    // Anthropic refuses sampling parameters alongside thinking
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
  });

  it('translates the other thinking types and accepts the passthrough options without wire effect', () => {
    const base = { ...call, tools: undefined, toolChoice: undefined };
    expect(
      anthropicBody({
        ...base,
        providerOptions: { thinking: { type: 'adaptive', display: 'summarized' }, sendReasoning: true, structuredOutputMode: 'auto' },
      }),
    ).toMatchObject({
      thinking: { type: 'adaptive', display: 'summarized' },
      max_tokens: 256,
    });
    const disabled = anthropicBody({ ...base, providerOptions: { anthropic: { thinking: { type: 'disabled' } } } });
    expect(disabled).toMatchObject({ thinking: { type: 'disabled' }, max_tokens: 256, temperature: 0.2 });
    expect(disabled).not.toHaveProperty('sendReasoning');
  });

  it('rejects unsupported options as invalid_request without calling the provider', async () => {
    fake.answer = (_r, res) => json(res, 200, ANSWER);
    const e = await catchLlm(
      callAnthropic(connection(), { ...call, providerOptions: { reasoning_effort: 'low', anthropic: { topK: 3 } } }, loopback),
    );
    expect(e.kind).toBe('invalid_request');
    expect(e.message).toBe('Unsupported anthropic provider options: reasoning_effort, topK');
    const e2 = await catchLlm(
      callAnthropic(
        connection(),
        { ...call, providerOptions: { thinking: { type: 'enabled', budget_tokens: 1024, effort: 'x' } } },
        loopback,
      ),
    );
    expect(e2.kind).toBe('invalid_request');
    expect(e2.message).toBe('Unsupported anthropic provider options: thinking.effort');
    expect(
      (await catchLlm(callAnthropic(connection(), { ...call, providerOptions: { thinking: { type: 'enabled' } } }, loopback))).kind,
    ).toBe('invalid_request');
    expect(fake.received).toHaveLength(0);
  });
});

describe('anthropic adapter: streaming', () => {
  it('streams text deltas to onText and returns the same result, usage included', async () => {
    const start = { ...ANSWER, content: [], stop_reason: null, usage: { ...USAGE, output_tokens: 1 } };
    fake.answer = (_r, res) =>
      sse(res, [
        { event: 'message_start', data: { type: 'message_start', message: start } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'ping', data: { type: 'ping' } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Grading' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' now.' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'extract', input: {} } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"score": 5, ' } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"reasoning": "correct"}' } },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
        {
          event: 'message_delta',
          data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 57 } },
        },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]);
    const deltas: string[] = [];
    const result = await callAnthropic(connection(), { ...call, onText: (d) => deltas.push(d) }, loopback);

    expect(fake.received[0]!.body.stream).toBe(true);
    expect(deltas).toEqual(['Grading', ' now.']);
    expect(result).toEqual({
      text: 'Grading now.',
      toolCalls: [{ name: 'extract', arguments: '{"score":5,"reasoning":"correct"}' }],
      usage: USAGE,
      model: 'claude-sonnet-4-6',
    });
  });
});

describeProviderFailures({
  name: 'anthropic',
  fake,
  adapter: callAnthropic,
  connection,
  calls: [call],
  secret: KEY,
  authMessage: 'invalid x-api-key',
  rateLimitMessage: 'Number of request tokens has exceeded your per-minute rate limit',
  errorBody: (status, message) => ({
    type: 'error',
    error: { type: status === 401 ? 'authentication_error' : 'rate_limit_error', message },
    ...(status === 401 ? { request_id: 'req_1' } : {}),
  }),
  okBody: () => ANSWER,
  abortSignal: true,
  more: {
    async rateLimited() {
      fake.answer = (_r, res) =>
        json(res, 400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API.' },
        });
      expect((await catchLlm(callAnthropic(connection(), call, loopback))).kind).toBe('billing_exhausted');
    },
  },
});
