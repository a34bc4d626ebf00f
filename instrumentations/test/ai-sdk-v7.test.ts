// Vercel AI SDK 7, whose OpenTelemetry spans come from @ai-sdk/otel: `LegacyOpenTelemetry` (the
// `ai.*` spans of AI SDK 6) and `OpenTelemetry` (GenAI semantic conventions, the recommended one),
// exported over OTLP/HTTP to Tally. AI SDK 7 has no telemetry `metadata`: user, session and tags
// travel as runtime context marked for telemetry (`ai.settings.context.*`).
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import { generateText, streamText, type Telemetry } from 'ai';
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';
import { createOpenAI } from '@ai-sdk/openai7';
import { createAnthropic } from '@ai-sdk/anthropic7';
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
  tracerProvider = registerTracerProvider(h, 'ai-sdk-v7-test');
});
afterAll(async () => {
  await tracerProvider?.shutdown();
  await h?.close();
});
beforeEach(() => h.reset());

const openai = () => createOpenAI({ baseURL: `${h.provider.url}/v1`, apiKey: 'sk-fake' });
const anthropic = () => createAnthropic({ baseURL: `${h.provider.url}/v1`, apiKey: 'sk-ant-fake' });

const cases: { call: string; provider: Provider; model: () => any; stream: boolean }[] = [
  { call: 'openai-chat-generate', provider: 'openai', model: () => openai().chat(OPENAI_MODEL), stream: false },
  { call: 'openai-chat-stream', provider: 'openai', model: () => openai().chat(OPENAI_MODEL), stream: true },
  { call: 'openai-responses-generate', provider: 'openai', model: () => openai()(OPENAI_MODEL), stream: false },
  { call: 'openai-responses-stream', provider: 'openai', model: () => openai()(OPENAI_MODEL), stream: true },
  { call: 'anthropic-generate', provider: 'anthropic', model: () => anthropic()(ANTHROPIC_MODEL), stream: false },
  { call: 'anthropic-stream', provider: 'anthropic', model: () => anthropic()(ANTHROPIC_MODEL), stream: true },
];

// `OpenTelemetry` emits the runtime context only with `runtimeContext: true`; its root span is
// `invoke_agent <model id>` (the function id goes to gen_ai.agent.name), so no trace name is expected
const integrations: { label: string; make: () => Telemetry; namesTrace: boolean }[] = [
  { label: 'v7-legacy', make: () => new LegacyOpenTelemetry(), namesTrace: true },
  { label: 'v7-semconv', make: () => new OpenTelemetry({ runtimeContext: true }), namesTrace: false },
];

for (const integration of integrations) {
  describe(`Vercel AI SDK 7 (@ai-sdk/otel ${integration.label === 'v7-legacy' ? 'LegacyOpenTelemetry' : 'OpenTelemetry'}, OTLP exporter)`, () => {
    for (const c of cases) {
      const call = `${integration.label}-${c.call}`;
      it(`${call}: one generation at the provider's bill, and the trace's user, session, tags and name`, async () => {
        const { userId, sessionId, tags } = traceAttributesFor(call);
        const args = {
          model: c.model(),
          prompt: 'Say hello.',
          runtimeContext: { userId, sessionId, tags },
          telemetry: {
            functionId: `fn-${call}`,
            includeRuntimeContext: { userId: true, sessionId: true, tags: true },
            integrations: [integration.make()],
          },
        };
        if (c.stream) {
          const result = streamText(args);
          await result.text;
          await result.usage;
        } else {
          await generateText(args);
        }
        await tracerProvider.forceFlush();
        const trace = await theStoredTrace(h);
        dump(`ai-sdk-${call}`, h, trace);
        expectBillAndTrace(trace, c.provider, {
          userId,
          sessionId,
          tags,
          ...(integration.namesTrace ? { nameContains: `fn-${call}` } : {}),
          io: true,
        });
      });
    }
  });
}
