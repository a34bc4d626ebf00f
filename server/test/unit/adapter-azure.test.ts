// The azure adapter against the shared fake provider on loopback: the deployment URL and
// api-version, the api-key header, the Chat Completions body, strict provider options, streaming
// and failures. Nothing here leaves 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { azureBaseUrl, callAzure } from '../../src/adapters/azure.ts';
import type { LlmCall } from '../../src/domain/llm/call.ts';
import { parseAllowList } from '../../src/domain/llm/egress.ts';
import { catchLlm, describeProviderFailures, useFakeProvider } from '../support/adapter-failures.ts';
import { json, sse } from '../support/fake-provider.ts';

const fake = useFakeProvider();

const KEY = '3f1c9a7be2d64c0f8a5e1b2c3d4e5f60';
const loopback = parseAllowList('127.0.0.1');
const connection = (baseUrl: string | null = `${fake.url}/openai`) => ({
  baseUrl,
  secretKey: KEY,
  extraHeaders: { 'x-tenant': 'acme', 'x-gateway-token': 'gw-token-value-42' },
  config: null,
});

const DEPLOYMENT = 'gpt-4o-mini-eval';
const call: LlmCall = {
  model: DEPLOYMENT,
  messages: [
    { role: 'system', content: 'You grade answers.' },
    { role: 'user', content: 'Grade: 2+2=4' },
  ],
  params: { temperature: 0.2, top_p: 0.9, max_tokens: 256 },
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
  providerOptions: { serviceTier: 'default', openai: { parallel_tool_calls: false, user: 'judge' } },
  timeoutMs: 5_000,
};

const USAGE = {
  completion_tokens: 12,
  completion_tokens_details: { accepted_prediction_tokens: 0, audio_tokens: 0, reasoning_tokens: 0, rejected_prediction_tokens: 0 },
  prompt_tokens: 31,
  prompt_tokens_details: { audio_tokens: 0, cached_tokens: 0 },
  total_tokens: 43,
};

// a Chat Completions answer as Azure OpenAI sends it (with its content-filter annotations)
const AZURE_ANSWER = {
  choices: [
    {
      content_filter_results: {},
      finish_reason: 'stop',
      index: 0,
      logprobs: null,
      message: {
        annotations: [],
        content: null,
        refusal: null,
        role: 'assistant',
        tool_calls: [{ function: { arguments: '{"score":5,"reasoning":"correct"}', name: 'extract' }, id: 'call_Xw2', type: 'function' }],
      },
    },
  ],
  created: 1763856000,
  id: 'chatcmpl-AzR1',
  model: 'gpt-4o-mini-2024-07-18',
  object: 'chat.completion',
  prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: 'safe' } } }],
  system_fingerprint: 'fp_b705f0c291',
  usage: USAGE,
};

describe('azure adapter', () => {
  it('posts to <base>/deployments/<model>/chat/completions?api-version with api-key, custom headers and the body', async () => {
    fake.answer = (_r, res) => json(res, 200, AZURE_ANSWER);
    const result = await callAzure(connection(), call, loopback);

    expect(fake.received).toHaveLength(1);
    const r = fake.received[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe(`/openai/deployments/${DEPLOYMENT}/chat/completions?api-version=2025-02-01-preview`);
    expect(r.headers['api-key']).toBe(KEY);
    expect(r.headers.authorization).toBeUndefined();
    expect(r.headers['x-tenant']).toBe('acme');
    expect(r.headers['x-gateway-token']).toBe('gw-token-value-42');
    expect(r.body).toEqual({
      // AzureOpenAI leaves the deployment in the body as `model` too
      model: DEPLOYMENT,
      messages: call.messages,
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 256,
      stream: false,
      tools: [
        { type: 'function', function: { name: 'extract', description: 'Extract the score', parameters: call.tools![0]!.parameters } },
      ],
      tool_choice: { type: 'function', function: { name: 'extract' } },
      service_tier: 'default',
      parallel_tool_calls: false,
      user: 'judge',
    });

    expect(result).toEqual({
      text: null,
      toolCalls: [{ name: 'extract', arguments: '{"score":5,"reasoning":"correct"}' }],
      usage: USAGE,
      model: 'gpt-4o-mini-2024-07-18',
    });
  });

  it('cuts a stored base URL before its /deployments segment', async () => {
    fake.answer = (_r, res) => json(res, 200, AZURE_ANSWER);
    await callAzure(connection(`${fake.url}/openai/deployments/some-other/`), call, loopback);
    expect(fake.received[0]!.path).toBe(`/openai/deployments/${DEPLOYMENT}/chat/completions?api-version=2025-02-01-preview`);
    expect(azureBaseUrl('https://r.openai.azure.com/openai/deployments/x/chat/completions')).toBe('https://r.openai.azure.com/openai');
    expect(azureBaseUrl('https://r.openai.azure.com/openai/')).toBe('https://r.openai.azure.com/openai');
  });

  it('refuses provider options outside the OpenAI key map, and a missing baseURL, before sending', async () => {
    const e = await catchLlm(
      callAzure(connection(), { ...call, providerOptions: { reasoning_effort: 'low', thinkingBudget: 128, openai: { foo: 1 } } }, loopback),
    );
    expect(e.kind).toBe('invalid_request');
    expect(e.message).toBe('Unsupported azure provider options: thinkingBudget, openai.foo');
    const e2 = await catchLlm(callAzure(connection(null), call, loopback));
    expect(e2.kind).toBe('invalid_request');
    expect(fake.received).toHaveLength(0);
  });

  it('streams text to onText with include_usage and returns the same result shape', async () => {
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      id: 'chatcmpl-AzR2',
      object: 'chat.completion.chunk',
      created: 1763856000,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [{ index: 0, delta, finish_reason: null, content_filter_results: {} }],
      ...extra,
    });
    fake.answer = (_r, res) =>
      sse(
        res,
        [
          {
            id: '',
            object: '',
            created: 0,
            model: '',
            choices: [],
            prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }],
          },
          chunk({ role: 'assistant', content: '' }),
          chunk({ content: 'Score' }),
          chunk({ content: ': 5' }),
          { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
          { ...chunk({}), choices: [], usage: USAGE },
        ],
        { done: true },
      );
    const deltas: string[] = [];
    const result = await callAzure(
      connection(),
      { ...call, tools: undefined, toolChoice: undefined, onText: (d) => deltas.push(d) },
      loopback,
    );
    const r = fake.received[0]!;
    expect(r.path).toBe(`/openai/deployments/${DEPLOYMENT}/chat/completions?api-version=2025-02-01-preview`);
    expect(r.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(r.headers['api-key']).toBe(KEY);
    expect(deltas).toEqual(['Score', ': 5']);
    expect(result).toEqual({ text: 'Score: 5', toolCalls: [], usage: USAGE, model: 'gpt-4o-mini-2024-07-18' });
  });
});

describeProviderFailures({
  name: 'azure',
  fake,
  adapter: callAzure,
  connection: (origin = fake.url) => connection(`${origin}/openai`),
  calls: [call],
  secret: KEY,
  authMessage: 'Access denied due to invalid subscription key',
  rateLimitMessage: 'Requests to the ChatCompletions_Create Operation have exceeded call rate limit.',
  errorBody: (status, message) => ({ error: { code: String(status), message } }),
  errorHeaders: (status): Record<string, string> => (status === 429 ? { 'retry-after': '1' } : {}),
  okBody: () => AZURE_ANSWER,
});
