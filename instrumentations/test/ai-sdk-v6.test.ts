// Vercel AI SDK 6 with its native OpenTelemetry (experimental_telemetry), exported over OTLP/HTTP
// to Tally: OpenAI (Chat Completions and Responses) and Anthropic, generateText and streamText.
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import { generateText, streamText } from 'ai6';
import { createOpenAI } from '@ai-sdk/openai6';
import { createAnthropic } from '@ai-sdk/anthropic6';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ANTHROPIC_MODEL,
  dump,
  expectBillAndTrace,
  OPENAI_MODEL,
  registerTracerProvider,
  startHarness,
  theStoredTrace,
  traceAttributesFor,
  type Harness,
  type Provider,
} from './support.ts';

let h: Harness;
let tracerProvider: NodeTracerProvider;
beforeAll(async () => {
  h = await startHarness();
  tracerProvider = registerTracerProvider(h, 'ai-sdk-v6-test');
});
afterAll(async () => {
  await tracerProvider?.shutdown();
  await h?.close();
});
beforeEach(() => h.reset());

const openai = () => createOpenAI({ baseURL: `${h.provider.url}/v1`, apiKey: 'sk-fake' });
const anthropic = () => createAnthropic({ baseURL: `${h.provider.url}/v1`, apiKey: 'sk-ant-fake' });
const telemetry = (call: string) => {
  const { userId, sessionId, tags } = traceAttributesFor(call);
  return { isEnabled: true, functionId: `fn-${call}`, metadata: { userId, sessionId, tags } };
};

const cases: { call: string; provider: Provider; model: () => any; stream: boolean }[] = [
  { call: 'v6-openai-chat-generate', provider: 'openai', model: () => openai().chat(OPENAI_MODEL), stream: false },
  { call: 'v6-openai-chat-stream', provider: 'openai', model: () => openai().chat(OPENAI_MODEL), stream: true },
  { call: 'v6-openai-responses-generate', provider: 'openai', model: () => openai()(OPENAI_MODEL), stream: false },
  { call: 'v6-openai-responses-stream', provider: 'openai', model: () => openai()(OPENAI_MODEL), stream: true },
  { call: 'v6-anthropic-generate', provider: 'anthropic', model: () => anthropic()(ANTHROPIC_MODEL), stream: false },
  { call: 'v6-anthropic-stream', provider: 'anthropic', model: () => anthropic()(ANTHROPIC_MODEL), stream: true },
];

describe('Vercel AI SDK 6 (experimental_telemetry, OTLP exporter)', () => {
  for (const c of cases) {
    it(`${c.call}: one generation at the provider's bill, and the trace's user, session, tags and name`, async () => {
      const args = { model: c.model(), prompt: 'Say hello.', experimental_telemetry: telemetry(c.call) };
      if (c.stream) {
        const result = streamText(args);
        await result.text;
        await result.usage;
      } else {
        await generateText(args);
      }
      await tracerProvider.forceFlush();
      const trace = await theStoredTrace(h);
      dump(`ai-sdk-${c.call}`, h, trace);
      const { userId, sessionId, tags } = traceAttributesFor(c.call);
      expectBillAndTrace(trace, c.provider, { userId, sessionId, tags, nameContains: `fn-${c.call}`, io: true });
    });
  }
});
