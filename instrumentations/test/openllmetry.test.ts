// OpenLLMetry (@traceloop/node-server-sdk) instrumenting the OpenAI and Anthropic SDKs, exporting
// with its own OTLP exporter to Tally's OTel endpoint (baseUrl + Authorization header, as the
// Langfuse docs set it up). User and session travel as association properties of a workflow;
// OpenLLMetry has no tags. The Anthropic SDK's own spans are switched off here (anthropic-sdk.test.ts).
// OpenLLMetry 0.27 patches `Anthropic.Completions`, which @anthropic-ai/sdk 1.x no longer has
// (initialize() throws), so its Anthropic calls go through the newest 0.x SDK.
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import OpenAI from 'openai';
import * as anthropicModule from '@anthropic-ai/sdk0';
import Anthropic from '@anthropic-ai/sdk0';
import * as traceloop from '@traceloop/node-server-sdk';
import {
  ANTHROPIC_MODEL,
  dump,
  expectBillAndTrace,
  OPENAI_MODEL,
  startHarness,
  theStoredTrace,
  traceAttributesFor,
  type Harness,
  type Provider,
} from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  traceloop.initialize({
    appName: 'openllmetry-test',
    baseUrl: `${h.tallyUrl}/api/public/otel`,
    headers: { Authorization: h.authorization },
    disableBatch: true,
    traceloopSyncEnabled: false,
    silenceInitializationMessage: true,
    // (its .d.ts types these with its own CommonJS view of the SDKs)
    instrumentModules: { openAI: OpenAI as any, anthropic: anthropicModule as any },
  });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => h.reset());

const openai = () => new OpenAI({ baseURL: `${h.provider.url}/v1`, apiKey: 'sk-fake' });
const anthropic = () => new Anthropic({ baseURL: h.provider.url, apiKey: 'sk-ant-fake', openTelemetry: false });
const messages = [{ role: 'user' as const, content: 'Say hello.' }];

// What OpenLLMetry's OpenAI instrumentation sends falls short of the bill, whatever Tally does:
// no cached-token (or reasoning) count, so all 1,200 input tokens look uncached; and for a streamed
// completion it counts tokens itself (3 in, 6 out) and ignores the usage chunk.
const OPENAI_NO_CACHE_COUNT = {
  cost: (1200 * 0.15 + 300 * 0.6) / 1e6,
  why: 'OpenLLMetry sends gen_ai.usage.input_tokens 1200 with no cached-token count',
};
const OPENAI_STREAM_OWN_COUNT = {
  cost: (3 * 0.15 + 6 * 0.6) / 1e6,
  why: 'OpenLLMetry tokenizes a streamed completion itself (3 in, 6 out) and ignores the usage chunk',
};

const cases: { call: string; provider: Provider; run: () => Promise<unknown>; producerCounts?: { cost: number; why: string } }[] = [
  {
    call: 'ol-openai-chat',
    provider: 'openai',
    producerCounts: OPENAI_NO_CACHE_COUNT,
    run: () => openai().chat.completions.create({ model: OPENAI_MODEL, messages }),
  },
  {
    call: 'ol-openai-chat-stream',
    provider: 'openai',
    producerCounts: OPENAI_STREAM_OWN_COUNT,
    run: async () => {
      const stream = await openai().chat.completions.create({
        model: OPENAI_MODEL,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      return text; // the workflow's output
    },
  },
  {
    call: 'ol-openai-responses',
    provider: 'openai',
    producerCounts: OPENAI_NO_CACHE_COUNT,
    run: () => openai().responses.create({ model: OPENAI_MODEL, input: 'Say hello.' }),
  },
  {
    call: 'ol-anthropic',
    provider: 'anthropic',
    run: () => anthropic().messages.create({ model: ANTHROPIC_MODEL, max_tokens: 1024, messages }),
  },
  {
    call: 'ol-anthropic-stream',
    provider: 'anthropic',
    run: async () => {
      const stream = await anthropic().messages.create({ model: ANTHROPIC_MODEL, max_tokens: 1024, messages, stream: true });
      let text = '';
      for await (const event of stream)
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      return text; // the workflow's output
    },
  },
];

describe('OpenLLMetry (@traceloop/node-server-sdk, its OTLP exporter)', () => {
  for (const c of cases) {
    it(`${c.call}: one generation at the provider's bill, and the trace's user, session and name`, async () => {
      const { userId, sessionId } = traceAttributesFor(c.call);
      await traceloop.withWorkflow({ name: `wf-${c.call}`, associationProperties: { userId, sessionId } }, c.run);
      await traceloop.forceFlush();
      const trace = await theStoredTrace(h);
      dump(`openllmetry-${c.call}`, h, trace);
      expectBillAndTrace(trace, c.provider, {
        userId,
        sessionId,
        nameContains: `wf-${c.call}`,
        io: true,
        producerCounts: c.producerCounts,
      });
    });
  }
});
