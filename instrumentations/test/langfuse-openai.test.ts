// @langfuse/openai (observeOpenAI, Langfuse JS SDK v4+) over @langfuse/otel's LangfuseSpanProcessor:
// OpenAI Chat Completions (streamed and not) and Responses.
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import OpenAI from 'openai';
import { observeOpenAI } from '@langfuse/openai';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  dump,
  expectBillAndTrace,
  langfuseProcessor,
  OPENAI_MODEL,
  registerTracerProvider,
  startHarness,
  theStoredTrace,
  traceAttributesFor,
  type Harness,
} from './support.ts';

let h: Harness;
let tracerProvider: NodeTracerProvider;
beforeAll(async () => {
  h = await startHarness();
  tracerProvider = registerTracerProvider(h, 'langfuse-openai-test', langfuseProcessor(h));
});
afterAll(async () => {
  await tracerProvider?.shutdown();
  await h?.close();
});
beforeEach(() => h.reset());

const client = (call: string) => {
  const { userId, sessionId, tags } = traceAttributesFor(call);
  return observeOpenAI(new OpenAI({ baseURL: `${h.provider.url}/v1`, apiKey: 'sk-fake' }), {
    traceName: `trace-${call}`,
    userId,
    sessionId,
    tags,
    generationName: `gen-${call}`,
  });
};
const messages = [{ role: 'user' as const, content: 'Say hello.' }];

const cases: { call: string; run: (c: OpenAI) => Promise<unknown> }[] = [
  { call: 'lf-openai-chat', run: (c) => c.chat.completions.create({ model: OPENAI_MODEL, messages }) },
  {
    call: 'lf-openai-chat-stream',
    run: async (c) => {
      const stream = await c.chat.completions.create({
        model: OPENAI_MODEL,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const _ of stream);
    },
  },
  { call: 'lf-openai-responses', run: (c) => c.responses.create({ model: OPENAI_MODEL, input: 'Say hello.' }) },
];

describe('@langfuse/openai observeOpenAI (LangfuseSpanProcessor)', () => {
  for (const c of cases) {
    it(`${c.call}: one generation at the provider's bill, and the trace's user, session, tags and name`, async () => {
      await c.run(client(c.call));
      await tracerProvider.forceFlush();
      const trace = await theStoredTrace(h);
      dump(`langfuse-openai-${c.call}`, h, trace);
      const { userId, sessionId, tags } = traceAttributesFor(c.call);
      expectBillAndTrace(trace, 'openai', { userId, sessionId, tags, nameContains: `trace-${c.call}`, io: true });
    });
  }
});
