import { describe, expect, it } from 'vitest';
import { finaliseUsage, parseUsageDetails } from '../../src/domain/usage/normalise.ts';
import { droppedValueWarnings, usageWarnings } from '../../src/domain/usage/warnings.ts';

function warn(raw: unknown): string[] {
  const parsed = parseUsageDetails(raw);
  const final = finaliseUsage(parsed.usage ?? {}).usage;
  const before = JSON.stringify(final);
  const out = usageWarnings(raw, parsed, final);
  expect(JSON.stringify(final)).toBe(before); // warnings never change values
  return out;
}

describe('usageWarnings', () => {
  it('is silent for clean disjoint buckets and for the mapped OpenAI shape', () => {
    expect(warn({ input: 86, input_cached_tokens: 17817, output: 50 })).toEqual([]);
    expect(
      warn({ prompt_tokens: 17903, completion_tokens: 50, total_tokens: 17953, prompt_tokens_details: { cached_tokens: 17817 } }),
    ).toEqual([]);
    expect(warn(undefined)).toEqual([]);
  });

  it('flags an input that looks inclusive of cached tokens (#10592 numbers)', () => {
    const [w, ...rest] = warn({ input: 17903, input_cached_tokens: 17817, output: 50 });
    expect(rest).toEqual([]);
    expect(w).toContain('`input` (17903)');
    expect(w).toContain('`input_cached_tokens` (17817)');
    expect(w).toContain('counted twice');
  });

  it('flags cache writes/reads and reasoning the same way', () => {
    const w = warn({ input: 9844, cache_read_input_tokens: 9842, input_cache_creation: 2, output: 500, output_reasoning_tokens: 400 });
    expect(w).toHaveLength(2);
    expect(w[0]).toContain('`input` (9844) is not smaller than `cache_read_input_tokens` (9842):');
    expect(w[0]).not.toContain('input_cache_creation');
    expect(w[1]).toContain('`output` (500) is not smaller than `output_reasoning_tokens` (400)');
  });

  it('stays quiet on ordinary exclusive buckets: a small part, or a base smaller than its part', () => {
    expect(warn({ input: 1000, input_cached_tokens: 200, output: 300, output_reasoning_tokens: 20 })).toEqual([]);
    expect(warn({ input: 183, input_cached_tokens: 17817, output: 50 })).toEqual([]);
  });

  it('trusts a sent total that agrees with the buckets', () => {
    expect(warn({ input: 1000, input_cached_tokens: 200, output: 10, total: 1210 })).toEqual([]);
  });

  it('flags a total smaller than the other buckets beyond max(1, 1%)', () => {
    const w = warn({ input: 17903, input_cached_tokens: 17817, output: 50, total: 17953 });
    expect(w[0]).toContain('`total` (17953) is smaller than the sum of the other usage buckets (35770)');
    expect(w[1]).toContain('`input` (17903)');
    expect(warn({ a: 1000, b: 10, total: 1000 })).toEqual([]); // within 1%
    expect(warn({ a: 1, b: 1, total: 1 })).toEqual([]); // within 1 token
    expect(warn({ a: 3, total: 1 })).toHaveLength(1);
  });

  it('flags two spellings of the same bucket', () => {
    const w = warn({ input: 10, input_cached_tokens: 50, cache_read_input_tokens: 50 });
    expect(w).toEqual(['`input_cached_tokens` and `cache_read_input_tokens` name the same tokens; sending both counts them twice']);
  });

  it('explains an unmapped chat-completions object and names the keys to remove', () => {
    const w = warn({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 2 },
      cost: 0.001,
      provider: 'x',
    });
    expect(w).toHaveLength(1);
    expect(w[0]).toContain('OpenAI Chat Completions');
    expect(w[0]).toContain('stored unmapped');
    expect(w[0]).toContain('remove `cost`, `provider` to get it mapped');
  });

  it('explains an unmapped object without extra keys by what is wrong', () => {
    const [w] = warn({ prompt_tokens: 10, completion_tokens: 5 });
    expect(w).toContain('missing `total_tokens`');
  });

  it('explains an unmapped Responses object', () => {
    const [w] = warn({ input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 1 }, cost: 1 });
    expect(w).toContain('OpenAI Responses');
    expect(w).toContain('remove `cost`');
  });
});

describe('usageWarnings: shape detection', () => {
  it('leaves the Anthropic flat shape alone', () => {
    expect(warn({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3 })).toEqual([]);
  });
  it('recognises a Responses object by total_tokens with input/output_tokens', () => {
    expect(warn({ input_tokens: 10, output_tokens: 5, total_tokens: 15, cost: 0.1 })[0]).toContain('OpenAI Responses');
  });
});

describe('values that are not stored', () => {
  it('names each dropped usage count and cost, and points costs sent as usage to costDetails', async () => {
    const raw = { input: 0.5, output: 10, cached: -3, cost: 0.01, note: 'n/a', nothing: null };
    expect(droppedValueWarnings(raw, parseUsageDetails(raw), { input: -1, output: 0.2, total: 'x', none: null })).toEqual([
      'usageDetails.input (0.5) was not stored: a usage count must be a whole number >= 0',
      'usageDetails.cached (-3) was not stored: a usage count must be a whole number >= 0',
      'usageDetails.cost (0.01) was not stored: a usage count must be a whole number >= 0; costs belong in costDetails',
      'usageDetails.note ("n/a") was not stored: a usage count must be a whole number >= 0',
      'costDetails.input (-1) was not stored: a cost must be a number >= 0',
      'costDetails.total ("x") was not stored: a cost must be a number >= 0',
    ]);
  });

  it('says nothing about a clean map, a mapped OpenAI object or digit strings Langfuse reads as counts', () => {
    for (const raw of [
      { input: 5, output: '7' },
      { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    ]) {
      expect(droppedValueWarnings(raw, parseUsageDetails(raw), { input: 0.1 })).toEqual([]);
    }
  });
});
