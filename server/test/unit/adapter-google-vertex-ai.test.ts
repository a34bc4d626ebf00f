// The google-vertex-ai adapter against the loopback fake provider, which plays both Google's token
// endpoint (/token, checking the signed JWT assertion) and Vertex AI: what is sent for Gemini and
// for Claude, how answers are read, token caching, and how failures are classified. Nothing here
// leaves 127.0.0.1.
import { generateKeyPairSync, verify } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearGoogleTokenCache } from '../../src/adapters/google-auth.ts';
import { geminiThinkingConfig } from '../../src/adapters/google-ai-studio.ts';
import { callGoogleVertexAi } from '../../src/adapters/google-vertex-ai.ts';
import type { LlmCall, LlmConnectionTarget } from '../../src/domain/llm/call.ts';
import { parseAllowList } from '../../src/domain/llm/egress.ts';
import { catchLlm, closedPortOrigin, describeProviderFailures, useFakeProvider } from '../support/adapter-failures.ts';
import { json, never, sse, type Answer, type Received } from '../support/fake-provider.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const TOKEN = 'ya29.test-access-token-SECRET-0123456789';
const GATEWAY = 'gw-token-value-42';
const loopback = parseAllowList('127.0.0.1');

const fake = useFakeProvider();
let tokenAnswer: Answer;
let modelAnswer: Answer;

beforeAll(() => {
  fake.answer = (r, res) => (r.path === '/token' ? tokenAnswer(r, res) : modelAnswer(r, res));
});
beforeEach(() => {
  clearGoogleTokenCache();
  tokenAnswer = (_r, res) => json(res, 200, { access_token: TOKEN, expires_in: 3599, token_type: 'Bearer' });
  modelAnswer = (_r, res) => json(res, 500, { error: { message: 'no model answer set' } });
});

const serviceAccount = (tokenUri = `${fake.url}/token`) =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'proj-1',
    private_key_id: 'kid',
    private_key: PEM,
    client_email: 'judge@proj-1.iam.gserviceaccount.com',
    token_uri: tokenUri,
  });

const connection = (over: Partial<LlmConnectionTarget> = {}): LlmConnectionTarget => ({
  baseUrl: fake.url,
  secretKey: serviceAccount(),
  extraHeaders: { 'x-tenant': 'acme', 'x-gateway-token': GATEWAY },
  config: { location: 'europe-west4' },
  ...over,
});

const TOOL = {
  name: 'extract',
  description: 'Extract the score',
  parameters: {
    type: 'object',
    properties: { score: { type: 'number' }, reasoning: { type: 'string' } },
    required: ['score', 'reasoning'],
    additionalProperties: false,
  },
};

const gemini: LlmCall = {
  model: 'gemini-2.5-flash',
  messages: [
    { role: 'system', content: 'You grade answers.' },
    { role: 'user', content: 'Grade: 2+2=4' },
    { role: 'assistant', content: 'Thinking…' },
    { role: 'user', content: 'Go on' },
  ],
  params: { temperature: 0.2, top_p: 0.9, max_tokens: 256, frequency_penalty: 0.1, presence_penalty: 0.3, n: 1 },
  tools: [TOOL],
  toolChoice: { name: 'extract' },
  providerOptions: { maxReasoningTokens: 512, thinkingBudget: 64, unknownKey: 1 },
  timeoutMs: 5_000,
};

const claude: LlmCall = {
  ...gemini,
  model: 'claude-sonnet-4-5@20250929',
  providerOptions: { model: 'claude-other', thinking: { type: 'enabled', budget_tokens: 1024 }, metadata: { user_id: 'u1' } },
};

const GEMINI_USAGE = {
  promptTokenCount: 31,
  candidatesTokenCount: 12,
  thoughtsTokenCount: 7,
  totalTokenCount: 50,
  trafficType: 'ON_DEMAND',
};
const geminiAnswer = (parts: unknown[]) => ({
  candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }],
  usageMetadata: GEMINI_USAGE,
  modelVersion: 'gemini-2.5-flash-001',
});
const CLAUDE_USAGE = { input_tokens: 20, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const claudeAnswer = (content: unknown[]) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content,
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: CLAUDE_USAGE,
});

const modelRequests = () => fake.received.filter((r) => r.path !== '/token');
const tokenRequests = () => fake.received.filter((r) => r.path === '/token');

function checkAssertion(r: Received) {
  expect(r.method).toBe('POST');
  expect(r.headers['content-type']).toContain('application/x-www-form-urlencoded');
  const form = new URLSearchParams(r.raw);
  expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
  const [h, c, s] = form.get('assertion')!.split('.');
  expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT' });
  const claims = JSON.parse(Buffer.from(c!, 'base64url').toString());
  expect(claims).toMatchObject({
    iss: 'judge@proj-1.iam.gserviceaccount.com',
    scope: 'https://www.googleapis.com/auth/cloud-platform',
    aud: `${fake.url}/token`,
  });
  expect(claims.exp - claims.iat).toBe(3600);
  expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(60);
  expect(verify('RSA-SHA256', Buffer.from(`${h}.${c}`), publicKey, Buffer.from(s!, 'base64url'))).toBe(true);
}

describe('Gemini on Vertex', () => {
  it('signs the token request, posts generateContent with the Bearer token, headers and body, and reads the answer', async () => {
    modelAnswer = (_r, res) =>
      json(
        res,
        200,
        geminiAnswer([
          { text: 'thought summary', thought: true },
          { text: 'Score follows.' },
          { functionCall: { name: 'extract', args: { score: 5, reasoning: 'right' } } },
        ]),
      );
    const result = await callGoogleVertexAi(connection(), gemini, loopback);
    expect(tokenRequests()).toHaveLength(1);
    checkAssertion(tokenRequests()[0]!);
    const [r] = modelRequests();
    expect(r!.method).toBe('POST');
    expect(r!.path).toBe('/v1beta1/projects/proj-1/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent');
    expect(r!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(r!.headers['x-tenant']).toBe('acme');
    expect(r!.headers['x-gateway-token']).toBe(GATEWAY);
    expect(r!.body).toEqual({
      systemInstruction: { parts: [{ text: 'You grade answers.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Grade: 2+2=4' }] },
        { role: 'model', parts: [{ text: 'Thinking…' }] },
        { role: 'user', parts: [{ text: 'Go on' }] },
      ],
      generationConfig: {
        temperature: 0.2,
        topP: 0.9,
        maxOutputTokens: 256,
        frequencyPenalty: 0.1,
        presencePenalty: 0.3,
        candidateCount: 1,
        thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
      },
      tools: [
        {
          functionDeclarations: [
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
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['extract'] } },
    });
    expect(result).toEqual({
      text: 'Score follows.',
      toolCalls: [{ name: 'extract', arguments: '{"score":5,"reasoning":"right"}' }],
      usage: GEMINI_USAGE,
      model: 'gemini-2.5-flash-001',
    });
  });

  it('sends unset parameters nowhere, and defaults to us-central1', async () => {
    modelAnswer = (_r, res) => json(res, 200, geminiAnswer([{ text: 'hi' }]));
    await callGoogleVertexAi(
      connection({ config: null }),
      { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }], params: {}, timeoutMs: 5_000 },
      loopback,
    );
    const [r] = modelRequests();
    expect(r!.path).toBe('/v1beta1/projects/proj-1/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent');
    expect(r!.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  });

  it('caches the token: two calls, one token request', async () => {
    modelAnswer = (_r, res) => json(res, 200, geminiAnswer([{ text: 'ok' }]));
    await callGoogleVertexAi(connection(), gemini, loopback);
    await callGoogleVertexAi(connection(), gemini, loopback);
    expect(tokenRequests()).toHaveLength(1);
    expect(modelRequests()).toHaveLength(2);
    expect(modelRequests().every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('streams with streamGenerateContent?alt=sse through onText', async () => {
    modelAnswer = (_r, res) =>
      sse(res, [
        {
          candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] } }],
          usageMetadata: { promptTokenCount: 3 },
          modelVersion: 'gemini-2.5-flash-001',
        },
        { candidates: [{ content: { role: 'model', parts: [{ text: 'lo' }] } }] },
        {
          candidates: [
            { content: { role: 'model', parts: [{ functionCall: { name: 'extract', args: { score: 1 } } }] }, finishReason: 'STOP' },
          ],
          usageMetadata: GEMINI_USAGE,
          modelVersion: 'gemini-2.5-flash-001',
        },
      ]);
    const deltas: string[] = [];
    const result = await callGoogleVertexAi(connection(), { ...gemini, onText: (d) => deltas.push(d) }, loopback);
    expect(modelRequests()[0]!.path).toBe(
      '/v1beta1/projects/proj-1/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(deltas).toEqual(['Hel', 'lo']);
    expect(result).toEqual({
      text: 'Hello',
      toolCalls: [{ name: 'extract', arguments: '{"score":1}' }],
      usage: GEMINI_USAGE,
      model: 'gemini-2.5-flash-001',
    });
  });

  it('translates thinking options per model family, refusing what a model cannot take before any request', async () => {
    expect(geminiThinkingConfig('gemini-2.5-pro', { thinkingBudget: 0 }, { vertex: true })).toEqual({
      thinkingBudget: 128,
      includeThoughts: false,
    });
    expect(geminiThinkingConfig('gemini-2.5-flash', { google: { thinkingBudget: 0 } }, { vertex: true })).toEqual({
      thinkingBudget: 0,
      includeThoughts: false,
    });
    expect(geminiThinkingConfig('gemini-3-pro-preview', { thinkingLevel: 'MEDIUM' }, { vertex: true })).toEqual({
      thinkingLevel: 'high',
      includeThoughts: true,
    });
    expect(geminiThinkingConfig('gemini-3.1-pro-preview', { thinkingLevel: 'minimal' }, { vertex: true })).toEqual({
      thinkingLevel: 'low',
      includeThoughts: true,
    });
    expect(geminiThinkingConfig('gemini-3-flash', { thinkingLevel: 'minimal' }, { vertex: true })).toEqual({
      thinkingLevel: 'minimal',
      includeThoughts: false,
    });
    expect(geminiThinkingConfig('gemini-3-flash', { other: 1 }, { vertex: true })).toBeUndefined();
    const e = await catchLlm(callGoogleVertexAi(connection(), { ...gemini, providerOptions: { thinkingLevel: 'low' } }, loopback));
    expect(e.kind).toBe('invalid_request');
    expect(e.message).toBe('google-vertex-ai: gemini-2.5-flash takes thinkingBudget, not thinkingLevel');
    const e2 = await catchLlm(
      callGoogleVertexAi(connection(), { ...gemini, model: 'gemini-3-flash', providerOptions: { thinkingBudget: 100 } }, loopback),
    );
    expect(e2.kind).toBe('invalid_request');
    expect(fake.received).toHaveLength(0);
  });
});

describe('Claude on Vertex', () => {
  it('posts rawPredict with the Anthropic body (anthropic_version, no model) and reads the answer', async () => {
    modelAnswer = (_r, res) =>
      json(
        res,
        200,
        claudeAnswer([
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'Score follows.' },
          { type: 'tool_use', id: 'tu_1', name: 'extract', input: { score: 4, reasoning: 'ok' } },
        ]),
      );
    const result = await callGoogleVertexAi(connection(), claude, loopback);
    expect(tokenRequests()).toHaveLength(1);
    checkAssertion(tokenRequests()[0]!);
    const [r] = modelRequests();
    expect(r!.method).toBe('POST');
    expect(r!.path).toBe('/v1/projects/proj-1/locations/europe-west4/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict');
    expect(r!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(r!.headers['x-tenant']).toBe('acme');
    expect(r!.headers['x-gateway-token']).toBe(GATEWAY);
    expect(r!.headers['x-api-key']).toBeUndefined();
    expect(r!.body).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      system: 'You grade answers.',
      messages: [
        { role: 'user', content: 'Grade: 2+2=4' },
        { role: 'assistant', content: 'Thinking…' },
        { role: 'user', content: 'Go on' },
      ],
      max_tokens: 256 + 1024,
      // Anthropic refuses temperature and top_p alongside thinking: they are not sent
      tools: [{ name: 'extract', description: 'Extract the score', input_schema: TOOL.parameters }],
      tool_choice: { type: 'tool', name: 'extract' },
      thinking: { type: 'enabled', budget_tokens: 1024 },
      metadata: { user_id: 'u1' },
    });
    expect(r!.body).not.toHaveProperty('model');
    expect(result).toEqual({
      text: 'Score follows.',
      toolCalls: [{ name: 'extract', arguments: '{"score":4,"reasoning":"ok"}' }],
      usage: CLAUDE_USAGE,
      model: 'claude-sonnet-4-5-20250929',
    });
  });

  it('defaults max_tokens to 4096 and uses the global endpoint shape for location global', async () => {
    modelAnswer = (_r, res) => json(res, 200, claudeAnswer([{ type: 'text', text: 'hi' }]));
    await callGoogleVertexAi(
      connection({ config: { location: 'global' } }),
      { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }], params: {}, timeoutMs: 5_000 },
      loopback,
    );
    const [r] = modelRequests();
    expect(r!.path).toBe('/v1/projects/proj-1/locations/global/publishers/anthropic/models/claude-haiku-4-5:rawPredict');
    expect(r!.body).toEqual({ anthropic_version: 'vertex-2023-10-16', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4096 });
  });

  it('streams with streamRawPredict through onText', async () => {
    modelAnswer = (_r, res) =>
      sse(res, [
        {
          event: 'message_start',
          data: { type: 'message_start', message: { ...claudeAnswer([]), usage: { input_tokens: 20, output_tokens: 1 } } },
        },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        {
          event: 'message_delta',
          data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } },
        },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]);
    const deltas: string[] = [];
    const result = await callGoogleVertexAi(
      connection(),
      { ...claude, providerOptions: undefined, onText: (d) => deltas.push(d) },
      loopback,
    );
    const [r] = modelRequests();
    expect(r!.path).toBe(
      '/v1/projects/proj-1/locations/europe-west4/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict',
    );
    expect(r!.body.stream).toBe(true);
    expect(r!.body).not.toHaveProperty('model');
    expect(deltas).toEqual(['Hel', 'lo']);
    expect(result.text).toBe('Hello');
    expect(result.model).toBe('claude-sonnet-4-5-20250929');
    expect(result.usage).toMatchObject({ input_tokens: 20, output_tokens: 9 });
  });

  it('refuses unknown provider options before any request', async () => {
    const e = await catchLlm(
      callGoogleVertexAi(
        connection(),
        { ...claude, providerOptions: { thinking: { type: 'enabled', budget_tokens: 10, foo: 1 }, temperatureX: 1 } },
        loopback,
      ),
    );
    expect(e.kind).toBe('invalid_request');
    expect(e.message).toBe('Unsupported google-vertex-ai provider options: temperatureX');
    const e2 = await catchLlm(
      callGoogleVertexAi(
        connection(),
        { ...claude, providerOptions: { anthropic: { model: 'dropped', thinking: { type: 'enabled', budget_tokens: 10, foo: 1 } } } },
        loopback,
      ),
    );
    expect(e2.message).toBe('Unsupported google-vertex-ai provider options: thinking.foo');
    expect(fake.received).toHaveLength(0);
  });
});

describe('failures', () => {
  it('invalid_grant at the token endpoint is auth_invalid, and no model request is made', async () => {
    tokenAnswer = (_r, res) => json(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    const e = await catchLlm(callGoogleVertexAi(connection(), gemini, loopback));
    expect(e.kind).toBe('auth_invalid');
    expect(e.status).toBe(400);
    expect(e.message).toContain('invalid_grant');
    expect(modelRequests()).toHaveLength(0);
  });

  it('a key that is not JSON is auth_invalid without echoing it', async () => {
    const e = await catchLlm(callGoogleVertexAi(connection({ secretKey: 'not-a-json-key-SECRET' }), gemini, loopback));
    expect(e.kind).toBe('auth_invalid');
    expect(e.message).not.toContain('SECRET');
    expect(fake.received).toHaveLength(0);
  });

  it('a token endpoint that never answers is a timeout', async () => {
    tokenAnswer = never;
    const e = await catchLlm(callGoogleVertexAi(connection(), { ...gemini, timeoutMs: 300 }, loopback));
    expect(e.kind).toBe('timeout');
  });

  it('with a cached token, the model request itself is refused by the egress policy', async () => {
    modelAnswer = (_r, res) => json(res, 200, geminiAnswer([{ text: 'ok' }]));
    await callGoogleVertexAi(connection(), gemini, loopback);
    fake.reset();
    for (const c of [gemini, claude]) {
      const e = await catchLlm(callGoogleVertexAi(connection(), c, parseAllowList('')));
      expect(e.kind).toBe('egress_refused');
    }
    expect(fake.received).toHaveLength(0);
  });
});

describeProviderFailures({
  name: 'google-vertex-ai',
  fake,
  adapter: callGoogleVertexAi,
  connection: (origin = fake.url) => connection({ baseUrl: origin }),
  calls: [gemini, claude],
  secret: TOKEN,
  alsoRedacted: [GATEWAY],
  authMessage: 'Request had invalid authentication credentials',
  rateLimitMessage: 'Resource exhausted',
  // Gemini answers with Google's error shape, Claude with Anthropic's
  errorBody: (status, message, call) =>
    call.model.startsWith('claude')
      ? status === 429
        ? { type: 'error', error: { type: 'rate_limit_error', message } }
        : { error: { message } }
      : { error: { code: status, message, status: status === 401 ? 'UNAUTHENTICATED' : 'RESOURCE_EXHAUSTED' } },
  okBody: (call) => (call.model.startsWith('claude') ? claudeAnswer([{ type: 'text', text: 'ok' }]) : geminiAnswer([{ text: 'ok' }])),
  answer: (a) => void (modelAnswer = a),
  sent: modelRequests,
  abortSignal: true,
  more: {
    async unreachable() {
      // the token endpoint
      clearGoogleTokenCache();
      const e = await catchLlm(
        callGoogleVertexAi(connection({ secretKey: serviceAccount(`${await closedPortOrigin()}/token`) }), gemini, loopback),
      );
      expect(e.kind).toBe('unreachable');
    },
  },
});
