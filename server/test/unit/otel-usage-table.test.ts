// Span usage attributes → exclusive buckets, producer by producer, with the counts each real
// instrumentation sent for one call (instrumentations/test): OpenAI 1,200 prompt tokens of which
// 200 cached, 300 completion of which 100 reasoning; Anthropic 1,000 uncached input, 200 cache
// read, 100 cache write, 300 output.
import { describe, expect, it } from 'vitest';
import { extractUsage } from '../../src/ingestion/otel/usage.ts';
import { USAGE_SEMANTICS } from '../../src/domain/usage/semantics.ts';
import { computeUsageAndCost } from '../../src/domain/usage/index.ts';
import type { StoredModel } from '../../src/domain/models/types.ts';

const openaiExclusive = { input: 1000, input_cached_tokens: 200, output: 200, output_reasoning_tokens: 100 };
const anthropicExclusive = { input: 1000, input_cached_tokens: 200, input_cache_creation: 100, output: 300 };

const cases: [producer: string, scope: string, attributes: Record<string, unknown>, expected: Record<string, number>][] = [
  [
    'OpenInference, OpenAI',
    '@arizeai/openinference-instrumentation-openai',
    {
      'llm.token_count.prompt': 1200,
      'llm.token_count.completion': 300,
      'llm.token_count.total': 1500,
      'llm.token_count.prompt_details.cache_read': 200,
      'llm.token_count.prompt_details.audio': 0,
      'llm.token_count.completion_details.audio': 0,
      'llm.token_count.completion_details.reasoning': 100,
    },
    { ...openaiExclusive, total: 1500, input_audio_tokens: 0, output_audio_tokens: 0 },
  ],
  [
    'OpenInference, Anthropic (prompt includes the cache)',
    '@arizeai/openinference-instrumentation-anthropic',
    {
      'llm.token_count.prompt': 1300,
      'llm.token_count.completion': 300,
      'llm.token_count.total': 1600,
      'llm.token_count.prompt_details.cache_write': 100,
      'llm.token_count.prompt_details.cache_read': 200,
    },
    { ...anthropicExclusive, total: 1600 },
  ],
  [
    'OpenLLMetry, Anthropic (input excludes the cache)',
    '@traceloop/instrumentation-anthropic',
    {
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 300,
      'gen_ai.usage.total_tokens': 1300,
      'gen_ai.usage.cache_creation.input_tokens': 100,
      'gen_ai.usage.cache_read.input_tokens': 200,
    },
    { ...anthropicExclusive, total: 1600 },
  ], // its total 1,300 left the cache out too
  [
    'OpenLLMetry, Anthropic, older cache spellings',
    '@traceloop/instrumentation-anthropic',
    {
      'gen_ai.usage.prompt_tokens': 1000,
      'gen_ai.usage.completion_tokens': 300,
      'gen_ai.usage.cache_creation_input_tokens': 100,
      'gen_ai.usage.cache_read_input_tokens': 200,
    },
    anthropicExclusive,
  ],
  [
    'OpenLLMetry, OpenAI (no cache count sent)',
    '@traceloop/instrumentation-openai',
    {
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 300,
      'gen_ai.usage.total_tokens': 1500,
    },
    { input: 1200, output: 300, total: 1500 },
  ],
  [
    "the Anthropic SDK's own spans (cache_write spelling)",
    'com.anthropic.sdk.typescript',
    {
      'gen_ai.usage.input_tokens': 1300,
      'gen_ai.usage.output_tokens': 300,
      'gen_ai.usage.cache_write.input_tokens': 100,
      'gen_ai.usage.cache_read.input_tokens': 200,
    },
    anthropicExclusive,
  ],
  [
    'AI SDK 7 GenAI integration, Anthropic',
    'gen_ai',
    {
      'gen_ai.usage.input_tokens': 1300,
      'gen_ai.usage.output_tokens': 300,
      'gen_ai.usage.cache_read.input_tokens': 200,
      'gen_ai.usage.cache_creation.input_tokens': 100,
    },
    anthropicExclusive,
  ],
  [
    'AI SDK 6, OpenAI',
    'ai',
    {
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 300,
      'ai.usage.inputTokens': 1200,
      'ai.usage.inputTokenDetails.noCacheTokens': 1000,
      'ai.usage.inputTokenDetails.cacheReadTokens': 200,
      'ai.usage.outputTokens': 300,
      'ai.usage.outputTokenDetails.textTokens': 200,
      'ai.usage.outputTokenDetails.reasoningTokens': 100,
      'ai.usage.totalTokens': 1500,
      'ai.usage.reasoningTokens': 100,
      'ai.usage.cachedInputTokens': 200,
      'ai.response.providerMetadata': '{"openai":{"acceptedPredictionTokens":0,"rejectedPredictionTokens":0}}',
    },
    { ...openaiExclusive, total: 1500, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  ],
  [
    'AI SDK 6, Anthropic',
    'ai',
    {
      'gen_ai.usage.input_tokens': 1300,
      'gen_ai.usage.output_tokens': 300,
      'ai.usage.inputTokens': 1300,
      'ai.usage.inputTokenDetails.noCacheTokens': 1000,
      'ai.usage.inputTokenDetails.cacheReadTokens': 200,
      'ai.usage.inputTokenDetails.cacheWriteTokens': 100,
      'ai.usage.outputTokens': 300,
      'ai.usage.totalTokens': 1600,
      'ai.usage.cachedInputTokens': 200,
      'ai.response.providerMetadata':
        '{"anthropic":{"usage":{"input_tokens":1000,"cache_creation_input_tokens":100,"cache_read_input_tokens":200,"output_tokens":300},"cacheCreationInputTokens":100}}',
    },
    { ...anthropicExclusive, total: 1600 },
  ],
  [
    'AI SDK before 6 (no token details), Anthropic metadata',
    'ai',
    {
      'gen_ai.usage.input_tokens': 1300,
      'gen_ai.usage.output_tokens': 300,
      'ai.usage.tokens': 1600,
      'ai.response.providerMetadata': '{"anthropic":{"usage":{"cache_creation_input_tokens":100,"cache_read_input_tokens":200}}}',
    },
    { ...anthropicExclusive, total: 1600 },
  ],
];

describe('span usage → exclusive buckets, producer by producer', () => {
  it('OpenLLMetry on Anthropic is priced at the bill through the whole pipeline (no second subtraction, no overlap repair)', () => {
    const usage = extractUsage(
      {
        'gen_ai.usage.input_tokens': 1000,
        'gen_ai.usage.output_tokens': 300,
        'gen_ai.usage.total_tokens': 1300,
        'gen_ai.usage.cache_creation.input_tokens': 100,
        'gen_ai.usage.cache_read.input_tokens': 200,
      },
      '@traceloop/instrumentation-anthropic',
    )!;
    const model = {
      id: 'm',
      pricingTiers: [
        {
          id: 't',
          name: 'Standard',
          isDefault: true,
          priority: 0,
          conditions: [],
          prices: { input: 1e-6, output: 5e-6, input_cached_tokens: 0.1e-6, input_cache_creation: 1.25e-6 },
        },
      ],
    } as unknown as StoredModel;
    expect(computeUsageAndCost({ model, usageDetails: usage }).costDetails.total).toBe(0.002645);
  });

  it.each(cases)('%s', (_producer, scope, attributes, expected) => {
    expect(extractUsage(attributes, scope)).toEqual(expected);
  });

  it('the semantics table names each producer once, with a reason', () => {
    const scopes = USAGE_SEMANTICS.map((r) => r.scope);
    expect(new Set(scopes).size).toBe(scopes.length);
    for (const r of USAGE_SEMANTICS) expect(r.why.length, r.scope).toBeGreaterThan(20);
  });
});
