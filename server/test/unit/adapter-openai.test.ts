// The openai adapter against a fake provider on loopback: what it sends, how it reads the answer,
// how failures are classified. Nothing here leaves 127.0.0.1.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callOpenAi } from '../../src/adapters/openai.ts';
import { classifyHttpError, LlmError, redact, type LlmCall } from '../../src/domain/llm/call.ts';
import { parseAllowList } from '../../src/domain/llm/egress.ts';

interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

let received: Received[] = [];
let answer: (req: Received, res: http.ServerResponse) => void = () => {};
let server: http.Server;
let base: string;
const hanging = new Set<http.ServerResponse>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const r: Received = { method: req.method!, path: req.url!, headers: req.headers, body: raw ? JSON.parse(raw) : null };
      received.push(r);
      answer(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
});

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const KEY = 'sk-test-0123456789abcdefSECRETKEY';
const loopback = parseAllowList('127.0.0.1');
const connection = (config: Record<string, string | boolean> | null = null) => ({
  baseUrl: base,
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
  tools: [{ name: 'extract', description: 'Extract the score', parameters: { type: 'object', properties: { score: { type: 'number' }, reasoning: { type: 'string' } }, required: ['score', 'reasoning'] } }],
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
    answer = (_r, res) => json(res, 200, CHAT_ANSWER);
    const result = await callOpenAi(connection(), call, loopback);

    expect(received).toHaveLength(1);
    const r = received[0]!;
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
      tools: [{ type: 'function', function: { name: 'extract', description: 'Extract the score', parameters: call.tools![0]!.parameters } }],
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
    answer = (_r, res) => json(res, 200, { ...CHAT_ANSWER, choices: [{ index: 0, message: { role: 'assistant', content: 'plain text' }, finish_reason: 'stop' }] });
    const result = await callOpenAi(connection(), { model: 'o4-mini', messages: [{ role: 'user', content: 'hi' }], params: { max_tokens: 100 }, timeoutMs: 5_000 }, loopback);
    const body = received[0]!.body;
    expect(Object.keys(body).sort()).toEqual(['max_completion_tokens', 'messages', 'model', 'stream']);
    expect(body.max_completion_tokens).toBe(100);
    expect(result.text).toBe('plain text');
    expect(result.toolCalls).toEqual([]);
  });
});

describe('openai adapter: Responses API', () => {
  it('calls <baseURL>/responses when config.useResponsesApi is set and reads text, tool calls and usage', async () => {
    const usage = { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 29 };
    answer = (_r, res) =>
      json(res, 200, {
        id: 'resp_1',
        object: 'response',
        created_at: 1763856000,
        status: 'completed',
        model: 'gpt-4o-mini-2024-07-18',
        output: [
          { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Score follows.', annotations: [] }] },
          { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'extract', arguments: '{"score":4,"reasoning":"ok"}', status: 'completed' },
        ],
        usage,
      });
    const result = await callOpenAi(connection({ useResponsesApi: true }), call, loopback);

    const r = received[0]!;
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
    for (const absent of ['messages', 'max_tokens', 'n', 'frequency_penalty', 'presence_penalty', 'reasoning_effort']) expect(r.body, absent).not.toHaveProperty(absent);

    expect(result).toEqual({ text: 'Score follows.', toolCalls: [{ name: 'extract', arguments: '{"score":4,"reasoning":"ok"}' }], usage, model: 'gpt-4o-mini-2024-07-18' });
  });
});

describe('openai adapter: failures', () => {
  const catchLlm = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      if (e instanceof LlmError) return e;
      throw e;
    }
    throw new Error('expected the call to fail');
  };

  it('401 is auth_invalid, and the key is redacted even when the provider echoes it', async () => {
    answer = (_r, res) =>
      json(res, 401, { error: { message: `Incorrect API key provided: ${KEY}. Also seen as sk-...${KEY.slice(-8)}.`, type: 'invalid_request_error', code: 'invalid_api_key' } });
    const e = await catchLlm(callOpenAi(connection(), call, loopback));
    expect(e.kind).toBe('auth_invalid');
    expect(e.status).toBe(401);
    expect(e.message).toContain('Incorrect API key provided');
    expect(e.message).not.toContain(KEY);
    expect(e.message).not.toContain(KEY.slice(-8));
    expect(e.message).toContain('***');
    expect(received).toHaveLength(1); // maxRetries 0
  });

  it('429 is rate_limited; 429 insufficient_quota is billing_exhausted', async () => {
    answer = (_r, res) => json(res, 429, { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } });
    const e = await catchLlm(callOpenAi(connection(), call, loopback));
    expect(e.kind).toBe('rate_limited');
    expect(e.status).toBe(429);
    expect(e.retryable).toBe(true);
    expect(received).toHaveLength(1);

    answer = (_r, res) => json(res, 429, { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } });
    expect((await catchLlm(callOpenAi(connection(), call, loopback))).kind).toBe('billing_exhausted');
  });

  it('a provider that never answers is a timeout', async () => {
    answer = (_r, res) => void hanging.add(res);
    const started = Date.now();
    const e = await catchLlm(callOpenAi(connection(), { ...call, timeoutMs: 300 }, loopback));
    expect(e.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(received).toHaveLength(1);
  });

  it('an allow list without the address is egress_refused, and nothing reaches the provider', async () => {
    answer = (_r, res) => json(res, 200, CHAT_ANSWER);
    const e = await catchLlm(callOpenAi(connection(), call, parseAllowList('')));
    expect(e.kind).toBe('egress_refused');
    expect(e.message).toMatch(/loopback/);
    expect(received).toHaveLength(0);

    // a host name is checked on the address it resolves to, at connect time
    const e2 = await catchLlm(callOpenAi({ ...connection(), baseUrl: base.replace('127.0.0.1', 'localhost') }, call, parseAllowList('10.0.0.0/8')));
    expect(e2.kind).toBe('egress_refused');
    expect(received).toHaveLength(0);
  });

  it('a closed port is unreachable', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const e = await catchLlm(callOpenAi({ ...connection(), baseUrl: `http://127.0.0.1:${port}/v1` }, call, loopback));
    expect(e.kind).toBe('unreachable');
  });
});

describe('classifyHttpError and redact', () => {
  it('classifies per behaviour §7.2', () => {
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
