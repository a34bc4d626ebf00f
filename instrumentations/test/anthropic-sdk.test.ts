// The Anthropic SDK's own OpenTelemetry spans (@anthropic-ai/sdk 1.x, scope
// `com.anthropic.sdk.typescript`, on by default whenever a global tracer provider is registered),
// exported over OTLP/HTTP to Tally: alone, and beside OpenInference's Anthropic instrumentation
// as a user who has both gets them (one call, two LLM spans: the bill must still be counted once).
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { AnthropicInstrumentation } from '@arizeai/openinference-instrumentation-anthropic';
import {
  ANTHROPIC_MODEL,
  dump,
  expectBillAndTrace,
  registerTracerProvider,
  startHarness,
  theStoredTrace,
  type Harness,
} from './support.ts';

let h: Harness;
let tracerProvider: NodeTracerProvider;
beforeAll(async () => {
  h = await startHarness();
  tracerProvider = registerTracerProvider(h, 'anthropic-sdk-test');
});
afterAll(async () => {
  await tracerProvider?.shutdown();
  await h?.close();
});
beforeEach(() => h.reset());

const anthropic = () => new Anthropic({ baseURL: h.provider.url, apiKey: 'sk-ant-fake' });
const messages = [{ role: 'user' as const, content: 'Say hello.' }];
const create = () => anthropic().messages.create({ model: ANTHROPIC_MODEL, max_tokens: 1024, messages });
const stream = async () => {
  const s = await anthropic().messages.create({ model: ANTHROPIC_MODEL, max_tokens: 1024, messages, stream: true });
  for await (const _ of s);
};

describe("the Anthropic SDK's own spans (OTLP exporter)", () => {
  for (const [call, run] of [
    ['sdk-anthropic', create],
    ['sdk-anthropic-stream', stream],
  ] as const) {
    it(`${call}: one generation at the provider's bill`, async () => {
      await run();
      await tracerProvider.forceFlush();
      const trace = await theStoredTrace(h);
      dump(`anthropic-sdk-${call}`, h, trace);
      expectBillAndTrace(trace, 'anthropic', {});
    });
  }
});

describe("the Anthropic SDK's own spans beside OpenInference's Anthropic instrumentation", () => {
  let oi: AnthropicInstrumentation;
  beforeAll(() => {
    oi = new AnthropicInstrumentation({ tracerProvider });
    oi.manuallyInstrument(Anthropic);
  });
  afterAll(() => oi?.disable());

  // The SDK's span is a child of OpenInference's and both are generations of the same call
  // (Langfuse stores both); each arrives in its own export here (SimpleSpanProcessor)
  for (const [call, run] of [
    ['sdk-and-oi-anthropic', create],
    ['sdk-and-oi-anthropic-stream', stream],
  ] as const) {
    it(`${call}: one call is billed once (one generation at the provider's bill)`, async () => {
      await run();
      await tracerProvider.forceFlush();
      const trace = await theStoredTrace(h);
      dump(`anthropic-sdk-${call}`, h, trace);
      expectBillAndTrace(trace, 'anthropic', {});
    });
  }
});
