// The bedrock adapter against the shared fake provider on loopback: what the AWS SDK sends (path,
// SigV4 or bearer auth, custom headers, the Converse body), how the answer is read (also from a
// ConverseStream in AWS event-stream framing), how failures are classified. Every test gives the
// client explicit credentials, region and endpoint, so nothing is read from ~/.aws or IMDS and
// nothing leaves 127.0.0.1.
import type http from 'node:http';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import { describe, expect, it } from 'vitest';
import { callBedrock } from '../../src/adapters/bedrock.ts';
import type { LlmCall } from '../../src/domain/llm/call.ts';
import { parseAllowList } from '../../src/domain/llm/egress.ts';
import { BEDROCK_DEFAULT_CREDENTIALS } from '../../src/domain/llm-connections/validate.ts';
import { catchLlm, describeProviderFailures, useFakeProvider } from '../support/adapter-failures.ts';
import { json } from '../support/fake-provider.ts';

const fake = useFakeProvider();

const ACCESS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLWtleS0xMjM0NTY3ODkw';
const loopback = parseAllowList('127.0.0.1');
const sigv4Key = JSON.stringify({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY });
const connection = (secretKey = sigv4Key, baseUrl: string | null = fake.url) => ({
  baseUrl,
  secretKey,
  extraHeaders: { 'x-tenant': 'acme', 'x-gateway-token': 'gw-token-value-42' },
  config: { region: 'eu-central-1' },
});

const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const call: LlmCall = {
  model: MODEL,
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
  providerOptions: { top_k: 40, bedrock: { anthropic_beta: ['token-efficient-tools-2025-02-19'], thinking: { type: 'disabled' } } },
  timeoutMs: 5_000,
};

const USAGE = { inputTokens: 412, outputTokens: 58, totalTokens: 470, cacheReadInputTokens: 0, cacheWriteInputTokens: 0 };

// a Converse answer as Bedrock sends it for a forced tool call with a preamble
const CONVERSE_ANSWER = {
  metrics: { latencyMs: 1187 },
  output: {
    message: {
      role: 'assistant',
      content: [
        { text: 'Grading now.' },
        { toolUse: { toolUseId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'extract', input: { score: 5, reasoning: 'correct' } } },
      ],
    },
  },
  stopReason: 'tool_use',
  usage: USAGE,
};

const awsError = (res: http.ServerResponse, status: number, type: string, message: string) =>
  json(
    res,
    status,
    { message },
    {
      'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': 'a1b2c3d4-0000-4000-8000-000000000000',
    },
  );

describe('bedrock adapter: Converse', () => {
  it('signs with SigV4 and sends the path, custom headers and Converse body', async () => {
    fake.answer = (_r, res) => json(res, 200, CONVERSE_ANSWER);
    const result = await callBedrock(connection(), call, loopback);

    expect(fake.received).toHaveLength(1);
    const r = fake.received[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe(`/model/${encodeURIComponent(MODEL)}/converse`);
    expect(r.headers.authorization).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY_ID}/\\d{8}/eu-central-1/bedrock/aws4_request, SignedHeaders=`),
    );
    expect(r.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(r.headers['x-tenant']).toBe('acme');
    expect(r.headers['x-gateway-token']).toBe('gw-token-value-42');
    expect(r.body).toEqual({
      system: [{ text: 'You grade answers.' }],
      messages: [{ role: 'user', content: [{ text: 'Grade: 2+2=4' }] }],
      inferenceConfig: { maxTokens: 256, temperature: 0.2, topP: 0.9 },
      toolConfig: {
        tools: [{ toolSpec: { name: 'extract', description: 'Extract the score', inputSchema: { json: call.tools![0]!.parameters } } }],
        toolChoice: { tool: { name: 'extract' } },
      },
      // verbatim, the nested bedrock:{} merged at the top level
      additionalModelRequestFields: { top_k: 40, anthropic_beta: ['token-efficient-tools-2025-02-19'], thinking: { type: 'disabled' } },
    });

    expect(result).toEqual({
      text: 'Grading now.',
      toolCalls: [{ name: 'extract', arguments: '{"score":5,"reasoning":"correct"}' }],
      usage: USAGE,
      model: MODEL,
    });
  });

  it('sends a Bedrock API key as a bearer token, not SigV4, and only what is set', async () => {
    fake.answer = (_r, res) =>
      json(res, 200, {
        ...CONVERSE_ANSWER,
        output: { message: { role: 'assistant', content: [{ text: 'plain ' }, { text: 'text' }] } },
        stopReason: 'end_turn',
      });
    const result = await callBedrock(
      connection(JSON.stringify({ apiKey: API_KEY })),
      { model: 'amazon.nova-lite-v1:0', messages: [{ role: 'user', content: 'hi' }], params: {}, timeoutMs: 5_000 },
      loopback,
    );
    const r = fake.received[0]!;
    expect(r.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(r.headers['x-amz-date']).toBeUndefined();
    expect(r.headers['x-tenant']).toBe('acme');
    expect(r.path).toBe('/model/amazon.nova-lite-v1%3A0/converse');
    expect(r.body).toEqual({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
    expect(result).toEqual({ text: 'plain text', toolCalls: [], usage: USAGE, model: 'amazon.nova-lite-v1:0' });
  });

  it.skip('BEDROCK_DEFAULT_CREDENTIALS uses the SDK default credential chain (reads the environment, ~/.aws and IMDS: not run here)', async () => {
    await callBedrock(connection(BEDROCK_DEFAULT_CREDENTIALS), call, loopback);
  });
});

describe('bedrock adapter: ConverseStream', () => {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const frame = (type: string, body: unknown) =>
    codec.encode({
      headers: {
        ':event-type': { type: 'string', value: type },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: fromUtf8(JSON.stringify(body)),
    });

  it('streams text deltas to onText and assembles text, tool call and usage', async () => {
    fake.answer = (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'req-1' });
      const events: [string, unknown][] = [
        ['messageStart', { role: 'assistant', p: 'abcd' }],
        ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Grading' }, p: 'abcdef' }],
        ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: ' now.' }, p: 'ab' }],
        ['contentBlockStop', { contentBlockIndex: 0, p: 'abc' }],
        ['contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_1', name: 'extract' } }, p: 'a' }],
        ['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"score":5,' } }, p: 'abcd' }],
        ['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '"reasoning":"correct"}' } }, p: 'abcd' }],
        ['contentBlockStop', { contentBlockIndex: 1, p: 'abc' }],
        ['messageStop', { stopReason: 'tool_use', p: 'abcdefg' }],
        ['metadata', { usage: USAGE, metrics: { latencyMs: 902 }, p: 'abc' }],
      ];
      for (const [type, body] of events) res.write(frame(type, body));
      res.end();
    };
    const deltas: string[] = [];
    const result = await callBedrock(connection(), { ...call, onText: (d) => deltas.push(d) }, loopback);

    const r = fake.received[0]!;
    expect(r.path).toBe(`/model/${encodeURIComponent(MODEL)}/converse-stream`);
    expect(r.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\//);
    expect(r.headers['x-tenant']).toBe('acme');
    expect(r.body.toolConfig.toolChoice).toEqual({ tool: { name: 'extract' } });
    expect(deltas).toEqual(['Grading', ' now.']);
    expect(result).toEqual({
      text: 'Grading now.',
      toolCalls: [{ name: 'extract', arguments: '{"score":5,"reasoning":"correct"}' }],
      usage: USAGE,
      model: MODEL,
    });
  });
});

describe('bedrock adapter: failures', () => {
  it('403 UnrecognizedClientException / AccessDeniedException is auth_invalid, secrets redacted even when echoed', async () => {
    fake.answer = (_r, res) =>
      awsError(
        res,
        403,
        'UnrecognizedClientException',
        `The security token included in the request is invalid: ${ACCESS_KEY_ID} ${SECRET_ACCESS_KEY} gw-token-value-42`,
      );
    const e = await catchLlm(callBedrock(connection(), call, loopback));
    expect(e.kind).toBe('auth_invalid');
    expect(e.status).toBe(403);
    expect(e.message).toContain('The security token included in the request is invalid');
    for (const s of [ACCESS_KEY_ID, SECRET_ACCESS_KEY, 'gw-token-value-42']) expect(e.message).not.toContain(s);
    expect(fake.received).toHaveLength(1); // maxAttempts 1

    fake.answer = (_r, res) =>
      awsError(res, 403, 'AccessDeniedException', `Authentication failed: Please make sure your API Key is valid. ${API_KEY.slice(-8)}`);
    const e2 = await catchLlm(callBedrock(connection(JSON.stringify({ apiKey: API_KEY })), call, loopback));
    expect(e2.kind).toBe('auth_invalid');
    expect(e2.message).not.toContain(API_KEY.slice(-8));
    expect(e2.message).toContain('***');
  });

  it('unknown model is model_unavailable; 503 is a retryable provider_error', async () => {
    fake.answer = (_r, res) => awsError(res, 400, 'ValidationException', 'The provided model identifier is invalid.');
    expect((await catchLlm(callBedrock(connection(), call, loopback))).kind).toBe('model_unavailable');

    fake.answer = (_r, res) => awsError(res, 404, 'ResourceNotFoundException', 'Model not found.');
    expect((await catchLlm(callBedrock(connection(), call, loopback))).kind).toBe('model_unavailable');

    fake.answer = (_r, res) => awsError(res, 503, 'ServiceUnavailableException', 'Bedrock is unable to process your request.');
    const e5 = await catchLlm(callBedrock(connection(), call, loopback));
    expect(e5.kind).toBe('provider_error');
    expect(e5.retryable).toBe(true);
    expect(fake.received).toHaveLength(3);
  });

  it('malformed credentials or a missing region are invalid_request, without echoing the secret', async () => {
    const e = await catchLlm(callBedrock(connection('{"accessKeyId":"AKIAONLYHALFOFIT"}'), call, loopback));
    expect(e.kind).toBe('invalid_request');
    expect(e.message).not.toContain('AKIAONLYHALFOFIT');
    const e2 = await catchLlm(callBedrock({ ...connection(), config: null }, call, loopback));
    expect(e2.kind).toBe('invalid_request');
    expect(fake.received).toHaveLength(0);
  });
});

describeProviderFailures({
  name: 'bedrock',
  fake,
  adapter: callBedrock,
  connection: (origin = fake.url) => connection(sigv4Key, origin),
  calls: [call],
  secret: SECRET_ACCESS_KEY,
  alsoRedacted: [ACCESS_KEY_ID, 'gw-token-value-42'],
  authMessage: 'unauthorized',
  rateLimitMessage: 'Too many requests, please wait before trying again.',
  errorBody: (_status, message) => ({ message }),
  errorHeaders: (status) => ({
    'x-amzn-errortype': `${status === 401 ? 'UnauthorizedException' : 'ThrottlingException'}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': 'a1b2c3d4-0000-4000-8000-000000000000',
  }),
  okBody: () => CONVERSE_ANSWER,
  abortSignal: true,
});
