// The `langfuse` v3 SDK, which sends batches to /api/public/ingestion: its observeOpenAI wrapper
// (Chat Completions, streamed and not) and its low-level trace().generation() with the usage a
// user sets by hand, as the Langfuse docs show it (the provider's usage object as usageDetails, or
// Langfuse's own keys).
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { Langfuse, observeOpenAI } from 'langfuse';
import {
  ANTHROPIC_MODEL,
  dump,
  expectBillAndTrace,
  OPENAI_MODEL,
  startHarness,
  theStoredTrace,
  traceAttributesFor,
  type Harness,
} from './support.ts';

let h: Harness;
let langfuse: Langfuse;
beforeAll(async () => {
  h = await startHarness();
  langfuse = new Langfuse({ publicKey: h.publicKey, secretKey: h.secretKey, baseUrl: h.tallyUrl });
});
afterAll(async () => {
  await langfuse?.shutdownAsync();
  await h?.close();
});
beforeEach(() => h.reset());

const openai = () => new OpenAI({ baseURL: `${h.provider.url}/v1`, apiKey: 'sk-fake' });
const anthropic = () => new Anthropic({ baseURL: h.provider.url, apiKey: 'sk-ant-fake', openTelemetry: false });
const messages = [{ role: 'user' as const, content: 'Say hello.' }];

describe('langfuse v3 observeOpenAI (batch ingestion)', () => {
  const cases: { call: string; stream: boolean }[] = [
    { call: 'v3-observe-openai-chat', stream: false },
    { call: 'v3-observe-openai-chat-stream', stream: true },
  ];
  for (const c of cases) {
    it(`${c.call}: one generation at the provider's bill, and the trace's user, session, tags and name`, async () => {
      const { userId, sessionId, tags } = traceAttributesFor(c.call);
      const client = observeOpenAI(openai(), {
        clientInitParams: { publicKey: h.publicKey, secretKey: h.secretKey, baseUrl: h.tallyUrl },
        traceName: `trace-${c.call}`,
        userId,
        sessionId,
        tags,
        generationName: `gen-${c.call}`,
      });
      if (c.stream) {
        const stream = await client.chat.completions.create({
          model: OPENAI_MODEL,
          messages,
          stream: true,
          stream_options: { include_usage: true },
        });
        for await (const _ of stream);
      } else {
        await client.chat.completions.create({ model: OPENAI_MODEL, messages });
      }
      await client.flushAsync();
      const trace = await theStoredTrace(h);
      dump(`langfuse-v3-${c.call}`, h, trace);
      expectBillAndTrace(trace, 'openai', { userId, sessionId, tags, nameContains: `trace-${c.call}`, io: true });
    });
  }
});

describe('langfuse v3 trace().generation() with hand-set usage (batch ingestion)', () => {
  /** one traced call: the trace, a generation around the provider call, the usage the caller sets */
  async function tracedCall(call: string, model: string, send: () => Promise<{ output: unknown; usageDetails: Record<string, unknown> }>) {
    const { userId, sessionId, tags } = traceAttributesFor(call);
    const trace = langfuse.trace({ name: `trace-${call}`, userId, sessionId, tags, input: messages });
    const generation = trace.generation({ name: `gen-${call}`, model, input: messages });
    const { output, usageDetails } = await send();
    generation.end({ output, usageDetails: usageDetails as any });
    trace.update({ output });
    await langfuse.flushAsync();
  }

  it('v3-generation-openai-usage-object: usageDetails = the OpenAI usage object as returned', async () => {
    const call = 'v3-generation-openai-usage-object';
    await tracedCall(call, OPENAI_MODEL, async () => {
      const res = await openai().chat.completions.create({ model: OPENAI_MODEL, messages });
      return { output: res.choices[0]!.message, usageDetails: res.usage as any };
    });
    const trace = await theStoredTrace(h);
    dump(`langfuse-v3-${call}`, h, trace);
    const { userId, sessionId, tags } = traceAttributesFor(call);
    expectBillAndTrace(trace, 'openai', { userId, sessionId, tags, nameContains: `trace-${call}`, io: true });
  });

  it('v3-generation-openai-langfuse-keys: usageDetails in Langfuse keys (input, output, input_cached_tokens, output_reasoning_tokens)', async () => {
    const call = 'v3-generation-openai-langfuse-keys';
    await tracedCall(call, OPENAI_MODEL, async () => {
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
    });
    const trace = await theStoredTrace(h);
    dump(`langfuse-v3-${call}`, h, trace);
    const { userId, sessionId, tags } = traceAttributesFor(call);
    expectBillAndTrace(trace, 'openai', { userId, sessionId, tags, nameContains: `trace-${call}`, io: true });
  });

  it('v3-generation-anthropic-usage-object: usageDetails = the Anthropic usage object as returned', async () => {
    const call = 'v3-generation-anthropic-usage-object';
    await tracedCall(call, ANTHROPIC_MODEL, async () => {
      const res = await anthropic().messages.create({ model: ANTHROPIC_MODEL, max_tokens: 1024, messages });
      return { output: res.content, usageDetails: res.usage as any };
    });
    const trace = await theStoredTrace(h);
    dump(`langfuse-v3-${call}`, h, trace);
    const { userId, sessionId, tags } = traceAttributesFor(call);
    expectBillAndTrace(trace, 'anthropic', { userId, sessionId, tags, nameContains: `trace-${call}`, io: true });
  });
});
