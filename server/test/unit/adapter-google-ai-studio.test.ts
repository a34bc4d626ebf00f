// The google-ai-studio adapter against the fake provider on loopback: what it sends, how it reads
// the answer (plain and streamed), the thinking translation, how failures are classified. Nothing
// here leaves 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { callGoogleAiStudio, geminiThinkingConfig } from '../../src/adapters/google-ai-studio.ts';
import { LlmError, type LlmCall } from '../../src/domain/llm/call.ts';
import { parseAllowList } from '../../src/domain/llm/egress.ts';
import { catchLlm, describeProviderFailures, useFakeProvider } from '../support/adapter-failures.ts';
import { json, sse } from '../support/fake-provider.ts';

const fake = useFakeProvider();

const KEY = 'AIzaSyTEST0123456789abcdefSECRETKEYxx';
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
  model: 'gemini-2.5-flash',
  messages: [
    { role: 'system', content: 'You grade answers.' },
    { role: 'user', content: 'Grade: 2+2=4' },
    { role: 'assistant', content: 'Ready.' },
    { role: 'user', content: 'Go.' },
  ],
  params: { temperature: 0.2, top_p: 0.9, max_tokens: 256, frequency_penalty: 0.1, presence_penalty: 0.3, n: 1 },
  tools: [{ name: 'extract', description: 'Extract the score', parameters: SCHEMA }],
  toolChoice: { name: 'extract' },
  providerOptions: { google: { thinkingBudget: 1024 }, maxReasoningTokens: 4, reasoning_effort: 'low' },
  timeoutMs: 5_000,
};

const USAGE = {
  promptTokenCount: 31,
  candidatesTokenCount: 12,
  totalTokenCount: 95,
  promptTokensDetails: [{ modality: 'TEXT', tokenCount: 31 }],
  thoughtsTokenCount: 52,
};

// a generateContent answer as AI Studio sends it: a thought summary, text and a function call
const ANSWER = {
  candidates: [
    {
      content: {
        parts: [
          { text: 'The user wants a grade; 2+2=4 is right.', thought: true },
          { text: 'Grading now.' },
          { functionCall: { name: 'extract', args: { score: 5, reasoning: 'correct' } }, thoughtSignature: 'CiQBcsjafDkzKGV0ZXN0' },
        ],
        role: 'model',
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: USAGE,
  modelVersion: 'gemini-2.5-flash-001',
  responseId: 'oFYjabcdEF',
};

describe('google-ai-studio adapter: request and answer', () => {
  it('POSTs <base>/v1beta/models/<model>:generateContent with the key, custom headers, system instruction, config and tools', async () => {
    fake.answer = (_r, res) => json(res, 200, ANSWER);
    const result = await callGoogleAiStudio(connection(), call, loopback);

    expect(fake.received).toHaveLength(1);
    const r = fake.received[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(r.headers['x-goog-api-key']).toBe(KEY);
    expect(r.headers['x-tenant']).toBe('acme');
    expect(r.headers['x-gateway-token']).toBe('gw-token-value-42');
    expect(r.body).toMatchObject({
      contents: [
        { role: 'user', parts: [{ text: 'Grade: 2+2=4' }] },
        { role: 'model', parts: [{ text: 'Ready.' }] },
        { role: 'user', parts: [{ text: 'Go.' }] },
      ],
      systemInstruction: { parts: [{ text: 'You grade answers.' }] },
      generationConfig: {
        temperature: 0.2,
        topP: 0.9,
        maxOutputTokens: 256,
        frequencyPenalty: 0.1,
        presencePenalty: 0.3,
        candidateCount: 1,
        // maxReasoningTokens is Vertex-only; the nested google budget is used
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      },
      tools: [{ functionDeclarations: [{ name: 'extract', description: 'Extract the score', parametersJsonSchema: SCHEMA }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['extract'] } },
    });
    expect(r.body).not.toHaveProperty('model');
    expect(JSON.stringify(r.body)).not.toContain('reasoning_effort');

    expect(result).toEqual({
      text: 'Grading now.',
      toolCalls: [{ name: 'extract', arguments: '{"score":5,"reasoning":"correct"}' }],
      usage: USAGE,
      model: 'gemini-2.5-flash-001',
    });
  });

  it('sends only what is set; the model falls back to the requested one', async () => {
    const { modelVersion: _drop, ...noVersion } = ANSWER;
    fake.answer = (_r, res) =>
      json(res, 200, { ...noVersion, candidates: [{ content: { parts: [{ text: 'plain' }], role: 'model' }, finishReason: 'STOP' }] });
    const result = await callGoogleAiStudio(
      connection(),
      { model: 'gemini-3-flash-preview', messages: [{ role: 'user', content: 'hi' }], params: {}, timeoutMs: 5_000 },
      loopback,
    );
    const r = fake.received[0]!;
    expect(r.path).toBe('/v1beta/models/gemini-3-flash-preview:generateContent');
    // the SDK always writes a generationConfig object; nothing unset goes into it
    expect(r.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: {} });
    expect(result).toEqual({ text: 'plain', toolCalls: [], usage: USAGE, model: 'gemini-3-flash-preview' });
  });

  it('a rejected thinking option is invalid_request and nothing is sent', async () => {
    fake.answer = (_r, res) => json(res, 200, ANSWER);
    const e = await catchLlm(callGoogleAiStudio(connection(), { ...call, providerOptions: { thinkingLevel: 'high' } }, loopback));
    expect(e.kind).toBe('invalid_request');
    expect(e.message).toMatch(/gemini-2\.5-flash takes thinkingBudget/);
    expect(fake.received).toHaveLength(0);
  });
});

describe('geminiThinkingConfig (Google thinking options)', () => {
  it('gemini-2.5: needs a budget; includeThoughts off for 0 and for pro at 128; pro budgets 0–127 become 128', () => {
    expect(geminiThinkingConfig('gemini-2.5-flash', {})).toBeUndefined();
    expect(geminiThinkingConfig('gemini-2.5-flash', { thinkingBudget: 0 })).toEqual({ thinkingBudget: 0, includeThoughts: false });
    expect(geminiThinkingConfig('gemini-2.5-flash', { thinkingBudget: -1 })).toEqual({ thinkingBudget: -1, includeThoughts: true });
    expect(geminiThinkingConfig('gemini-2.5-flash', { thinkingBudget: 128, thinkingLevel: 'high' })).toEqual({
      thinkingBudget: 128,
      includeThoughts: true,
    });
    expect(geminiThinkingConfig('gemini-2.5-pro', { thinkingBudget: 0 })).toEqual({ thinkingBudget: 128, includeThoughts: false });
    expect(geminiThinkingConfig('gemini-2.5-pro', { thinkingBudget: 127 })).toEqual({ thinkingBudget: 128, includeThoughts: false });
    expect(geminiThinkingConfig('gemini-2.5-pro', { thinkingBudget: 2048 })).toEqual({ thinkingBudget: 2048, includeThoughts: true });
    expect(() => geminiThinkingConfig('gemini-2.5-flash', { thinkingLevel: 'low' })).toThrow(LlmError);
  });

  it('gemini-3+: needs a level (lower-cased); includeThoughts off for minimal; the pro mappings', () => {
    expect(geminiThinkingConfig('gemini-3-flash-preview', { thinkingLevel: 'MINIMAL' })).toEqual({
      thinkingLevel: 'minimal',
      includeThoughts: false,
    });
    expect(geminiThinkingConfig('gemini-3-flash-preview', { thinkingLevel: 'medium', thinkingBudget: 99 })).toEqual({
      thinkingLevel: 'medium',
      includeThoughts: true,
    });
    expect(geminiThinkingConfig('gemini-3-pro-preview', { thinkingLevel: 'minimal' })).toEqual({
      thinkingLevel: 'low',
      includeThoughts: true,
    });
    expect(geminiThinkingConfig('gemini-3-pro-preview', { thinkingLevel: 'medium' })).toEqual({
      thinkingLevel: 'high',
      includeThoughts: true,
    });
    expect(geminiThinkingConfig('gemini-3.1-pro-preview', { thinkingLevel: 'minimal' })).toEqual({
      thinkingLevel: 'low',
      includeThoughts: true,
    });
    expect(geminiThinkingConfig('gemini-3.1-pro-preview', { thinkingLevel: 'medium' })).toEqual({
      thinkingLevel: 'medium',
      includeThoughts: true,
    });
    expect(() => geminiThinkingConfig('gemini-3-flash-preview', { thinkingBudget: 1024 })).toThrow(/takes thinkingLevel/);
    expect(() => geminiThinkingConfig('gemini-3-flash-preview', { thinkingLevel: 'extreme' })).toThrow(/minimal, low, medium or high/);
  });

  it('maxReasoningTokens wins over thinkingBudget for Vertex only; other keys are ignored', () => {
    expect(geminiThinkingConfig('gemini-2.5-flash', { maxReasoningTokens: 512, thinkingBudget: 64 }, { vertex: true })).toEqual({
      thinkingBudget: 512,
      includeThoughts: true,
    });
    expect(geminiThinkingConfig('gemini-2.5-flash', { maxReasoningTokens: 512, thinkingBudget: 64 })).toEqual({
      thinkingBudget: 64,
      includeThoughts: true,
    });
    expect(geminiThinkingConfig('gemini-2.5-flash', { maxReasoningTokens: 512, topK: 3 })).toBeUndefined();
  });
});

describe('google-ai-studio adapter: streaming', () => {
  it('calls :streamGenerateContent?alt=sse, passes text deltas (not thoughts) to onText and returns the same result', async () => {
    const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
      candidates: [{ content: { parts, role: 'model' }, index: 0, ...extra }],
      usageMetadata: { promptTokenCount: 31, totalTokenCount: 31 },
      modelVersion: 'gemini-2.5-flash-001',
      responseId: 'oFYjabcdEF',
    });
    fake.answer = (_r, res) =>
      sse(res, [
        chunk([{ text: 'Thinking about it', thought: true }]),
        chunk([{ text: 'Grading' }]),
        chunk([{ text: ' now.' }]),
        {
          ...chunk([{ functionCall: { name: 'extract', args: { score: 5, reasoning: 'correct' } } }], { finishReason: 'STOP' }),
          usageMetadata: USAGE,
        },
      ]);
    const deltas: string[] = [];
    const result = await callGoogleAiStudio(connection(), { ...call, onText: (d) => deltas.push(d) }, loopback);

    const r = fake.received[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(r.headers['x-goog-api-key']).toBe(KEY);
    expect(r.headers['x-tenant']).toBe('acme');
    expect(deltas).toEqual(['Grading', ' now.']);
    expect(result).toEqual({
      text: 'Grading now.',
      toolCalls: [{ name: 'extract', arguments: '{"score":5,"reasoning":"correct"}' }],
      usage: USAGE,
      model: 'gemini-2.5-flash-001',
    });
  });
});

describeProviderFailures({
  name: 'google-ai-studio',
  fake,
  adapter: callGoogleAiStudio,
  connection,
  calls: [call],
  secret: KEY,
  authMessage: 'Request had invalid authentication credentials',
  rateLimitMessage: 'Resource has been exhausted (e.g. check quota).',
  errorBody: (status, message) => ({ error: { code: status, message, status: status === 401 ? 'UNAUTHENTICATED' : 'RESOURCE_EXHAUSTED' } }),
  okBody: () => ANSWER,
  abortSignal: true,
  more: {
    async auth() {
      // AI Studio's usual answer to a bad key
      fake.answer = (_r, res) =>
        json(res, 400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } });
      expect((await catchLlm(callGoogleAiStudio(connection(), call, loopback))).kind).toBe('auth_invalid');
    },
  },
});
