// The openai adapter against a fake provider on loopback: what it sends, how it reads the answer,
// how failures are classified. Nothing here leaves 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { callOpenAi } from '../../src/adapters/openai.ts';
import { classifyHttpError, redact, type LlmCall } from '../../src/domain/llm/call.ts';
import { parseAllowList } from '../../src/domain/llm/egress.ts';
import { catchLlm, describeProviderFailures, useFakeProvider } from '../support/adapter-failures.ts';
import { json } from '../support/fake-provider.ts';

const fake = useFakeProvider();

const KEY = 'sk-test-0123456789abcdefSECRETKEY';
const loopback = parseAllowList('127.0.0.1');
const connection = (config: Record<string, string | boolean> | null = null, origin = fake.url) => ({
  baseUrl: `${origin}/v1`,
  secretKey: KEY,
  extraHeaders: { 'x-tenant': 'acme', 'x-gateway-token': 'gw-token-value-42' },
  config,
});

const call: LlmCall = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You grade answers.' },
    { role: 'user', content: 'Grade: 2+2=4' },
  ],
  params: { temperature: 0.2, top_p: 0.9, max_tokens: 256, frequency_penalty: 0.1, presence_penalty: 0.3, n: 1 },
  tools: [
    {
      name: 'extract',
      description: 'Extract the score',
      parameters: {
        type: 'object',
        properties: { score: { type: 'number' }, reasoning: { type: 'string' } },
        required: ['score', 'reasoning'],
      },
    },
  ],
  toolChoice: { name: 'extract' },
  providerOptions: { reasoning_effort: 'low', service_tier: 'flex', thinkingBudget: 128 },
  timeoutMs: 5_000,
};

const USAGE = {
  prompt_tokens: 31,
  completion_tokens: 12,
  total_tokens: 43,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 4, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};

// a Chat Completions answer as OpenAI sends it for a forced tool call
const CHAT_ANSWER = {
  id: 'chatcmpl-abc123',
  object: 'chat.completion',
  created: 1763856000,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'extract', arguments: '{"score":5,"reasoning":"correct"}' } }],
        refusal: null,
      },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: USAGE,
  service_tier: 'flex',
  system_fingerprint: 'fp_1',
};

describe('openai adapter: Chat Completions', () => {
  it('sends the call to <baseURL>/chat/completions with the key, custom headers, params, tools and provider options', async () => {
    fake.answer = (_r, res) => json(res, 200, CHAT_ANSWER);
    const result = await callOpenAi(connection(), call, loopback);

    expect(fake.received).toHaveLength(1);
    const r = fake.received[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v1/chat/completions');
    expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r.headers['x-tenant']).toBe('acme');
    expect(r.headers['x-gateway-token']).toBe('gw-token-value-42');
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({
      model: 'gpt-4o-mini',
      messages: call.messages,
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 256,
      frequency_penalty: 0.1,
      presence_penalty: 0.3,
      n: 1,
      tools: [
        { type: 'function', function: { name: 'extract', description: 'Extract the score', parameters: call.tools![0]!.parameters } },
      ],
      tool_choice: { type: 'function', function: { name: 'extract' } },
      reasoning_effort: 'low',
      service_tier: 'flex',
      thinkingBudget: 128,
    });
    expect(r.body.stream).toBe(false);

    expect(result).toEqual({
      text: null,
      toolCalls: [{ name: 'extract', arguments: '{"score":5,"reasoning":"correct"}' }],
      usage: USAGE,
      model: 'gpt-4o-mini-2024-07-18',
    });
  });

  it('sends only what is set, and max_completion_tokens for reasoning models', async () => {
    fake.answer = (_r, res) =>
      json(res, 200, {
        ...CHAT_ANSWER,
        choices: [{ index: 0, message: { role: 'assistant', content: 'plain text' }, finish_reason: 'stop' }],
      });
    const result = await callOpenAi(
      connection(),
      { model: 'o4-mini', messages: [{ role: 'user', content: 'hi' }], params: { max_tokens: 100 }, timeoutMs: 5_000 },
      loopback,
    );
    const body = fake.received[0]!.body;
    expect(Object.keys(body).sort()).toEqual(['max_completion_tokens', 'messages', 'model', 'stream']);
    expect(body.max_completion_tokens).toBe(100);
    expect(result.text).toBe('plain text');
    expect(result.toolCalls).toEqual([]);
  });
});

describe('openai adapter: Responses API', () => {
  it('calls <baseURL>/responses when config.useResponsesApi is set and reads text, tool calls and usage', async () => {
    const usage = {
      input_tokens: 20,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 29,
    };
    fake.answer = (_r, res) =>
      json(res, 200, {
        id: 'resp_1',
        object: 'response',
        created_at: 1763856000,
        status: 'completed',
        model: 'gpt-4o-mini-2024-07-18',
        output: [
          {
            type: 'message',
            id: 'msg_1',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Score follows.', annotations: [] }],
          },
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'call_1',
            name: 'extract',
            arguments: '{"score":4,"reasoning":"ok"}',
            status: 'completed',
          },
        ],
        usage,
      });
    const result = await callOpenAi(connection({ useResponsesApi: true }), call, loopback);

    const r = fake.received[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v1/responses');
    expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r.headers['x-tenant']).toBe('acme');
    expect(r.body).toMatchObject({
      model: 'gpt-4o-mini',
      input: call.messages,
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 256,
      tools: [{ type: 'function', name: 'extract', description: 'Extract the score', parameters: call.tools![0]!.parameters }],
      tool_choice: { type: 'function', name: 'extract' },
      reasoning: { effort: 'low' },
      service_tier: 'flex',
    });
    for (const absent of ['messages', 'max_tokens', 'n', 'frequency_penalty', 'presence_penalty', 'reasoning_effort'])
      expect(r.body, absent).not.toHaveProperty(absent);

    expect(result).toEqual({
      text: 'Score follows.',
      toolCalls: [{ name: 'extract', arguments: '{"score":4,"reasoning":"ok"}' }],
      usage,
      model: 'gpt-4o-mini-2024-07-18',
    });
  });
});

describeProviderFailures({
  name: 'openai',
  fake,
  adapter: callOpenAi,
  connection: (origin) => connection(null, origin),
  calls: [call],
  secret: KEY,
  authMessage: 'Incorrect API key provided',
  rateLimitMessage: 'Rate limit reached for requests',
  errorBody: (status, message) => ({
    error: {
      message,
      type: status === 401 ? 'invalid_request_error' : 'requests',
      code: status === 401 ? 'invalid_api_key' : 'rate_limit_exceeded',
    },
  }),
  okBody: () => CHAT_ANSWER,
  more: {
    async rateLimited() {
      fake.answer = (_r, res) =>
        json(res, 429, { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } });
      expect((await catchLlm(callOpenAi(connection(), call, loopback))).kind).toBe('billing_exhausted');
    },
  },
});

describe('classifyHttpError and redact', () => {
  it('classifies provider failures as retryable or not, as Langfuse does', () => {
    expect(classifyHttpError(401, '')).toBe('auth_invalid');
    expect(classifyHttpError(400, 'API key not valid. Please pass a valid API key.')).toBe('auth_invalid');
    expect(classifyHttpError(402, '')).toBe('billing_exhausted');
    expect(classifyHttpError(400, 'Your credit balance is too low to access the Anthropic API')).toBe('billing_exhausted');
    expect(classifyHttpError(404, '')).toBe('model_unavailable');
    expect(classifyHttpError(429, '')).toBe('rate_limited');
    expect(classifyHttpError(500, '')).toBe('provider_error');
    expect(classifyHttpError(400, 'bad request')).toBe('provider_error');
  });

  it('replaces each secret and its last 8 characters', () => {
    expect(redact('key sk-abcdefgh12345678 tail …12345678 other', ['sk-abcdefgh12345678'])).toBe('key *** tail …*** other');
    expect(redact('nothing here', ['', 'secret-value'])).toBe('nothing here');
  });
});
