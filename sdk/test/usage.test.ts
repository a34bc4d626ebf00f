import { describe, expect, it } from 'vitest';
import { usageFromAnthropic, usageFromBedrock, usageFromGemini, usageFromOpenAI, type UsageBuckets } from '../src/usage.ts';
import { parseUsageDetails } from '../../server/src/domain/usage/normalise.ts';
import openai from './fixtures/openai.json' with { type: 'json' };
import anthropic from './fixtures/anthropic.json' with { type: 'json' };
import gemini from './fixtures/gemini.json' with { type: 'json' };
import bedrock from './fixtures/bedrock.json' with { type: 'json' };

/** every token in exactly one bucket: the buckets other than total add up to total */
function expectExclusive(b: UsageBuckets, providerTotal: number) {
  const { total, ...rest } = b;
  expect(Object.values(rest).reduce((s, v) => s + v, 0)).toBe(total);
  expect(total).toBe(providerTotal);
  for (const v of Object.values(b)) expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
}

describe('usageFromOpenAI', () => {
  it('Chat Completions: cached tokens subtracted from input once, zero details kept as the server keeps them', () => {
    const b = usageFromOpenAI(openai['chat-gpt-4.1-mini-cached']);
    expect(b).toEqual({
      input: 86,
      output: 300,
      total: 2306,
      input_cached_tokens: 1920,
      input_audio_tokens: 0,
      output_reasoning_tokens: 0,
      output_audio_tokens: 0,
      output_accepted_prediction_tokens: 0,
      output_rejected_prediction_tokens: 0,
    });
    expectExclusive(b, 2306);
  });

  it('Chat Completions: reasoning tokens subtracted from output once', () => {
    const b = usageFromOpenAI(openai['chat-o4-mini-reasoning']);
    expect(b).toMatchObject({ input: 93, input_cached_tokens: 1024, output: 218, output_reasoning_tokens: 1344, total: 2679 });
    expectExclusive(b, 2679);
  });

  it('Chat Completions: audio output split out', () => {
    const b = usageFromOpenAI(openai['chat-gpt-4o-audio-preview']);
    expect(b).toMatchObject({ input: 52, output: 40, output_audio_tokens: 110, total: 202 });
    expectExclusive(b, 202);
  });

  it("ignores a gateway's extra keys (cost, is_byok) that would make the server store the object unmapped", () => {
    const recorded = openai['chat-openrouter-with-cost'];
    const b = usageFromOpenAI(recorded);
    expect(b).toEqual({
      input: 194,
      output: 2,
      total: 196,
      input_cached_tokens: 0,
      input_audio_tokens: 0,
      output_reasoning_tokens: 0,
      output_image_tokens: 0,
    });
    // the raw object is NOT recognised by the server: the helper is what makes it priceable
    expect(parseUsageDetails(recorded).shape).toBe('map');
    expect(parseUsageDetails(b).usage).toEqual(b);
  });

  it('Responses API: input_tokens_details / output_tokens_details subtracted once', () => {
    const b = usageFromOpenAI(openai['responses-o4-mini']);
    expect(b).toEqual({ input: 305, input_cached_tokens: 1536, output: 209, output_reasoning_tokens: 704, total: 2754 });
    expectExclusive(b, 2754);
  });

  it("agrees with the server's own mapping of every strict recorded object", () => {
    for (const [name, recorded] of Object.entries(openai)) {
      if (name === 'chat-openrouter-with-cost') continue;
      const server = parseUsageDetails(recorded);
      expect(server.shape, name).toMatch(/^openai-/);
      expect(usageFromOpenAI(recorded), name).toEqual(server.usage);
    }
  });

  it('clamps at zero and computes total when total_tokens is missing; null details are skipped', () => {
    expect(
      usageFromOpenAI({ prompt_tokens: 5, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 9, audio_tokens: null } }),
    ).toEqual({
      input: 0,
      output: 3,
      input_cached_tokens: 9,
      total: 12,
    });
  });
});

describe('usageFromAnthropic', () => {
  it('input_tokens already excludes cache read/creation: nothing subtracted, 5m write split', () => {
    const b = usageFromAnthropic(anthropic['messages-cache-write-5m']);
    expect(b).toEqual({ input: 21, output: 393, input_cache_creation_5m: 188086, total: 21 + 393 + 188086 });
    expectExclusive(b, 188500);
  });

  it('1h cache writes and cache reads get their own buckets', () => {
    const b = usageFromAnthropic(anthropic['messages-cache-read-and-1h-write']);
    expect(b).toEqual({ input: 4, output: 210, input_cache_read: 12000, input_cache_creation_1h: 3200, total: 15414 });
  });

  it('without the cache_creation split, writes go to input_cache_creation', () => {
    expect(usageFromAnthropic(anthropic['messages-legacy-no-split'])).toEqual({
      input: 2095,
      output: 503,
      input_cache_read: 1800,
      total: 4398,
    });
    expect(usageFromAnthropic({ input_tokens: 3, output_tokens: 1, cache_creation_input_tokens: 50 })).toEqual({
      input: 3,
      output: 1,
      input_cache_creation: 50,
      total: 54,
    });
  });

  it('a write the split does not cover stays in input_cache_creation, so it is counted once', () => {
    const b = usageFromAnthropic({
      input_tokens: 1,
      output_tokens: 1,
      cache_creation_input_tokens: 100,
      cache_creation: { ephemeral_5m_input_tokens: 60, ephemeral_1h_input_tokens: 30 },
    });
    expect(b).toEqual({
      input: 1,
      output: 1,
      input_cache_creation_5m: 60,
      input_cache_creation_1h: 30,
      input_cache_creation: 10,
      total: 102,
    });
  });
});

describe('usageFromGemini', () => {
  it('promptTokenCount includes cached content: subtracted once; thoughts are reasoning', () => {
    const b = usageFromGemini(gemini['gemini-2.5-flash-cached-thinking']);
    expect(b).toEqual({ input: 1329, input_cached_tokens: 4096, output: 312, output_reasoning_tokens: 998, total: 6735 });
    expectExclusive(b, 6735);
  });

  it('tool-use prompt tokens are apart from the prompt and billed as input', () => {
    const b = usageFromGemini(gemini['gemini-2.5-flash-tool-use']);
    expect(b).toEqual({ input: 500, output: 45, output_reasoning_tokens: 210, total: 755 });
    expectExclusive(b, 755);
  });

  it('audio prompt tokens get their own (separately priced) bucket', () => {
    const b = usageFromGemini(gemini['gemini-2.5-flash-audio']);
    expect(b).toEqual({ input: 30, input_audio_tokens: 1500, output: 40, total: 1570 });
    expectExclusive(b, 1570);
  });

  it('cached audio is split from cached text; a whole response is accepted', () => {
    const b = usageFromGemini({
      usageMetadata: {
        promptTokenCount: 2000,
        cachedContentTokenCount: 1200,
        candidatesTokenCount: 10,
        totalTokenCount: 2010,
        promptTokensDetails: [
          { modality: 'TEXT', tokenCount: 500 },
          { modality: 'AUDIO', tokenCount: 1500 },
        ],
        cacheTokensDetails: [
          { modality: 'TEXT', tokenCount: 200 },
          { modality: 'AUDIO', tokenCount: 1000 },
        ],
      },
    });
    expect(b).toEqual({
      input: 300,
      input_cached_tokens: 200,
      input_cached_audio_tokens: 1000,
      input_audio_tokens: 500,
      output: 10,
      total: 2010,
    });
  });

  it('a plain response', () => {
    const b = usageFromGemini(gemini['gemini-2.0-flash-plain']);
    expect(b).toEqual({ input: 8, output: 11, total: 19 });
  });
});

describe('usageFromBedrock', () => {
  it('inputTokens excludes cache writes: totalTokens is the sum', () => {
    const b = usageFromBedrock(bedrock['converse-claude-cache-write']);
    expect(b).toEqual({ input: 12, output: 417, input_cache_creation: 7100, total: 7529 });
    expectExclusive(b, 7529);
  });

  it('cache reads', () => {
    const b = usageFromBedrock({ usage: bedrock['converse-claude-cache-read'] });
    expect(b).toEqual({ input: 35, output: 128, input_cache_read: 7100, total: 7263 });
    expectExclusive(b, 7263);
  });

  it('no cache fields', () => {
    expect(usageFromBedrock(bedrock['converse-nova-pro'])).toEqual({ input: 1250, output: 86, total: 1336 });
  });
});
