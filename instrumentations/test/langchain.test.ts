// LangChain (@langchain/openai, @langchain/anthropic) traced by @langfuse/langchain's CallbackHandler
// over @langfuse/otel's LangfuseSpanProcessor: a prompt | model chain, invoked and streamed.
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import { ChatOpenAI } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { CallbackHandler } from '@langfuse/langchain';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ANTHROPIC_MODEL,
  BILL,
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
  tracerProvider = registerTracerProvider(h, 'langchain-test', langfuseProcessor(h));
});
afterAll(async () => {
  await tracerProvider?.shutdown();
  await h?.close();
});
beforeEach(() => h.reset());

const models: Record<Provider, () => BaseChatModel> = {
  openai: () => new ChatOpenAI({ model: OPENAI_MODEL, apiKey: 'sk-fake', configuration: { baseURL: `${h.provider.url}/v1` } }),
  anthropic: () => new ChatAnthropic({ model: ANTHROPIC_MODEL, apiKey: 'sk-ant-fake', anthropicApiUrl: h.provider.url }),
};

// @langchain/anthropic sums the usage of every stream event: message_start's output_tokens (1, as
// the API sends it) plus message_delta's cumulative 300, so a streamed call reports 301 output tokens
const LANGCHAIN_ANTHROPIC_STREAM = {
  cost: BILL.anthropic + (1 * 5) / 1e6,
  why: '@langchain/anthropic reports 301 output tokens for a streamed call billed 300',
};

const cases: { call: string; provider: Provider; stream: boolean; producerCounts?: typeof LANGCHAIN_ANTHROPIC_STREAM }[] = [
  { call: 'lc-openai-invoke', provider: 'openai', stream: false },
  { call: 'lc-openai-stream', provider: 'openai', stream: true },
  { call: 'lc-anthropic-invoke', provider: 'anthropic', stream: false },
  { call: 'lc-anthropic-stream', provider: 'anthropic', stream: true, producerCounts: LANGCHAIN_ANTHROPIC_STREAM },
];

describe('LangChain with @langfuse/langchain CallbackHandler (LangfuseSpanProcessor)', () => {
  for (const c of cases) {
    it(`${c.call}: one generation at the provider's bill, and the trace's user, session, tags and name`, async () => {
      const { userId, sessionId, tags } = traceAttributesFor(c.call);
      const handler = new CallbackHandler({ userId, sessionId, tags });
      const chain = ChatPromptTemplate.fromMessages([['user', 'Say {what}.']]).pipe(models[c.provider]());
      const config = { callbacks: [handler], runName: `chain-${c.call}` };
      if (c.stream) for await (const _ of await chain.stream({ what: 'hello' }, config));
      else await chain.invoke({ what: 'hello' }, config);
      await tracerProvider.forceFlush();
      const trace = await theStoredTrace(h);
      dump(`langchain-${c.call}`, h, trace);
      expectBillAndTrace(trace, c.provider, {
        userId,
        sessionId,
        tags,
        nameContains: `chain-${c.call}`,
        io: true,
        producerCounts: c.producerCounts,
      });
    });
  }
});
