// Arize OpenInference instrumentations of the OpenAI and Anthropic SDKs, exported over OTLP/HTTP
// to Tally. User, session and tags come from OpenInference's context attributes
// (@arizeai/openinference-core). The Anthropic SDK's own spans are switched off here
// (anthropic-sdk.test.ts covers them, alone and beside OpenInference).
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { context } from '@opentelemetry/api';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { AnthropicInstrumentation } from '@arizeai/openinference-instrumentation-anthropic';
import { setSession, setTags, setUser } from '@arizeai/openinference-core';
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
let instrumentations: { disable(): void }[] = [];
beforeAll(async () => {
  h = await startHarness();
  tracerProvider = registerTracerProvider(h, 'openinference-test');
  const oiOpenAI = new OpenAIInstrumentation({ tracerProvider });
  oiOpenAI.manuallyInstrument({ OpenAI } as any);
  const oiAnthropic = new AnthropicInstrumentation({ tracerProvider });
  oiAnthropic.manuallyInstrument(Anthropic);
  instrumentations = [oiOpenAI, oiAnthropic];
});
afterAll(async () => {
  for (const i of instrumentations) i.disable();
  await tracerProvider?.shutdown();
  await h?.close();
});
beforeEach(() => h.reset());

/** runs `fn` with OpenInference's session, user and tags in the active context */
function withAttributes<T>(call: string, fn: () => Promise<T>): Promise<T> {
  const { userId, sessionId, tags } = traceAttributesFor(call);
  return context.with(setTags(setUser(setSession(context.active(), { sessionId }), { userId }), tags), fn);
}

const openai = () => new OpenAI({ baseURL: `${h.provider.url}/v1`, apiKey: 'sk-fake' });
const anthropic = () => new Anthropic({ baseURL: h.provider.url, apiKey: 'sk-ant-fake', openTelemetry: false });
const messages = [{ role: 'user' as const, content: 'Say hello.' }];

// `noUsageSent`: OpenInference's OpenAI instrumentation records no token counts for a streamed
// chat completion, even with stream_options.include_usage (it reads `usage` of non-streamed answers only)
const cases: { call: string; provider: Provider; run: () => Promise<unknown>; noUsageSent?: boolean }[] = [
  { call: 'oi-openai-chat', provider: 'openai', run: () => openai().chat.completions.create({ model: OPENAI_MODEL, messages }) },
  {
    call: 'oi-openai-chat-stream',
    provider: 'openai',
    noUsageSent: true,
    run: async () => {
      const stream = await openai().chat.completions.create({
        model: OPENAI_MODEL,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const _ of stream);
    },
  },
  { call: 'oi-openai-responses', provider: 'openai', run: () => openai().responses.create({ model: OPENAI_MODEL, input: 'Say hello.' }) },
  {
    call: 'oi-anthropic',
    provider: 'anthropic',
    run: () => anthropic().messages.create({ model: ANTHROPIC_MODEL, max_tokens: 1024, messages }),
  },
  {
    call: 'oi-anthropic-stream',
    provider: 'anthropic',
    run: async () => {
      const stream = await anthropic().messages.create({ model: ANTHROPIC_MODEL, max_tokens: 1024, messages, stream: true });
      for await (const _ of stream);
    },
  },
];

describe('OpenInference (OpenAI and Anthropic instrumentations, OTLP exporter)', () => {
  for (const c of cases) {
    it(`${c.call}: one generation at the provider's bill, and the trace's user, session and tags`, async () => {
      await withAttributes(c.call, c.run);
      await tracerProvider.forceFlush();
      const trace = await theStoredTrace(h);
      dump(`openinference-${c.call}`, h, trace);
      const { userId, sessionId, tags } = traceAttributesFor(c.call);
      expectBillAndTrace(trace, c.provider, { userId, sessionId, tags, io: true, noUsageSent: c.noUsageSent });
    });
  }
});
