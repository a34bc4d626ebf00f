// The Langfuse JS SDK v4+ by hand (@langfuse/tracing over @langfuse/otel's LangfuseSpanProcessor):
// propagateAttributes for the trace's user, session, tags and name, a handler span, and a
// generation around the provider call with the usage the user sets (the provider's usage
// object, or Langfuse's own keys). Also shows what the newest exporter sends (headers, trace
// attributes on every span).
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { propagateAttributes, startActiveObservation } from '@langfuse/tracing';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ANTHROPIC_MODEL,
  dump,
  expectBillAndTrace,
  langfuseProcessor,
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
  tracerProvider = registerTracerProvider(h, 'langfuse-tracing-test', langfuseProcessor(h));
});
afterAll(async () => {
  await tracerProvider?.shutdown();
  await h?.close();
});
beforeEach(() => h.reset());

const openai = () => new OpenAI({ baseURL: `${h.provider.url}/v1`, apiKey: 'sk-fake' });
const anthropic = () => new Anthropic({ baseURL: h.provider.url, apiKey: 'sk-ant-fake', openTelemetry: false });
const messages = [{ role: 'user' as const, content: 'Say hello.' }];

type Sent = { output: unknown; usageDetails: Record<string, unknown> };
const cases: { call: string; provider: Provider; model: string; send: () => Promise<Sent> }[] = [
  {
    call: 'lft-openai-usage-object',
    provider: 'openai',
    model: OPENAI_MODEL,
    send: async () => {
      const res = await openai().chat.completions.create({ model: OPENAI_MODEL, messages });
      return { output: res.choices[0]!.message, usageDetails: res.usage as any };
    },
  },
  {
    call: 'lft-openai-langfuse-keys',
    provider: 'openai',
    model: OPENAI_MODEL,
    send: async () => {
      const res = await openai().chat.completions.create({ model: OPENAI_MODEL, messages });
      const u = res.usage!;
      const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
      const reasoning = u.completion_tokens_details?.reasoning_tokens ?? 0;
      return {
        output: res.choices[0]!.message,
        usageDetails: {
          input: u.prompt_tokens - cached,
          output: u.completion_tokens - reasoning,
          input_cached_tokens: cached,
          output_reasoning_tokens: reasoning,
        },
      };
    },
  },
  {
    call: 'lft-anthropic-usage-object',
    provider: 'anthropic',
    model: ANTHROPIC_MODEL,
    send: async () => {
      const res = await anthropic().messages.create({ model: ANTHROPIC_MODEL, max_tokens: 1024, messages });
      return { output: res.content, usageDetails: res.usage as any };
    },
  },
];

describe('@langfuse/tracing by hand (LangfuseSpanProcessor)', () => {
  for (const c of cases) {
    it(`${c.call}: one generation at the provider's bill, and the trace's user, session, tags, name, input and output`, async () => {
      const { userId, sessionId, tags } = traceAttributesFor(c.call);
      await propagateAttributes({ userId, sessionId, tags, traceName: `trace-${c.call}` }, () =>
        startActiveObservation(`handler-${c.call}`, async (root) => {
          root.update({ input: messages });
          const output = await startActiveObservation(
            `gen-${c.call}`,
            async (generation) => {
              generation.update({ model: c.model, input: messages });
              const sent = await c.send();
              generation.update({ output: sent.output, usageDetails: sent.usageDetails as any });
              return sent.output;
            },
            { asType: 'generation' },
          );
          root.update({ output });
        }),
      );
      await tracerProvider.forceFlush();
      const trace = await theStoredTrace(h);
      dump(`langfuse-tracing-${c.call}`, h, trace);
      expectBillAndTrace(trace, c.provider, { userId, sessionId, tags, nameContains: `trace-${c.call}`, io: true });
    });
  }
});
