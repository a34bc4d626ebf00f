// Buckets without a price of their own are billed as the provider bills them: under another
// spelling of the same bucket, else at the parent's rate (output_* as output, input_* as input).
// The bills are the providers' own: gpt-4o-mini $0.15 / $0.60 per M, cached input $0.075;
// claude-haiku-4-5 $1 / $5 per M, cache read $0.10, cache write $1.25.
import { describe, expect, it } from 'vitest';
import { calculateCost } from '../../src/domain/cost/calculate.ts';
import { ALIAS_TABLE, bucketOf, otherSpellings, parentBucket } from '../../src/domain/usage/aliases.ts';

const inputOutput = { input: 0.15e-6, output: 0.6e-6 };

describe('pricing a bucket without a price of its own', () => {
  it('reasoning tokens on a model priced for input and output only: the bill, not $0.000285 partial', () => {
    const r = calculateCost({
      usage: { input: 1000, input_cached_tokens: 200, output: 200, output_reasoning_tokens: 100, total: 1500 },
      prices: { ...inputOutput, input_cached_tokens: 0.075e-6 },
    });
    expect(r.costDetails.total).toBe(0.000345);
    expect(r.status).toBe('inferred');
    expect(r.unpricedUsageKeys).toEqual([]);
    expect(r.pricedAs).toEqual({ output_reasoning_tokens: 'output' });
    expect(r.lines.find((l) => l.usageType === 'output_reasoning_tokens')).toEqual({
      usageType: 'output_reasoning_tokens',
      units: 100,
      price: 0.6e-6,
      cost: 0.00006,
      priceKey: 'output',
    });
  });

  it('cached input on a model without a cache price is billed at the input rate, and says so', () => {
    const r = calculateCost({ usage: { input: 1000, input_cached_tokens: 200, output: 300, total: 1500 }, prices: inputOutput });
    expect(r.costDetails).toMatchObject({ input_cached_tokens: 0.00003, total: 0.00036 });
    expect(r.pricedAs).toEqual({ input_cached_tokens: 'input' });
  });

  it('a cache write spelled differently from the price key takes that price, not the parent rate', () => {
    const prices = { input: 1e-6, output: 5e-6, input_cache_read: 0.1e-6, input_cache_creation: 1.25e-6 };
    const r = calculateCost({
      usage: { input: 1000, cache_read_input_tokens: 200, cache_creation_input_tokens: 100, output: 300, total: 1600 },
      prices,
    });
    expect(r.costDetails.total).toBe(0.002645);
    expect(r.pricedAs).toEqual({ cache_read_input_tokens: 'input_cache_read', cache_creation_input_tokens: 'input_cache_creation' });
  });

  it('audio and prediction details go to their parent', () => {
    const r = calculateCost({
      usage: {
        input: 10,
        input_audio_tokens: 5,
        output: 10,
        output_accepted_prediction_tokens: 2,
        output_rejected_prediction_tokens: 3,
        total: 30,
      },
      prices: { input: 1, output: 2 },
    });
    expect(r.costDetails).toEqual({
      input: 10,
      input_audio_tokens: 5,
      output: 20,
      output_accepted_prediction_tokens: 4,
      output_rejected_prediction_tokens: 6,
      total: 45,
    });
    expect(Object.keys(r.pricedAs).sort()).toEqual([
      'input_audio_tokens',
      'output_accepted_prediction_tokens',
      'output_rejected_prediction_tokens',
    ]);
  });

  it('keeps partial for keys with no price at all, and never re-prices what a priced total covers', () => {
    const partial = calculateCost({ usage: { input: 10, image_tokens: 4, total: 14 }, prices: { input: 1 } });
    expect(partial).toMatchObject({ status: 'partial', unpricedUsageKeys: ['image_tokens'], pricedAs: {} });
    const outputless = calculateCost({ usage: { input: 10, output_reasoning_tokens: 4, total: 14 }, prices: { input: 1 } });
    expect(outputless).toMatchObject({ status: 'partial', unpricedUsageKeys: ['output_reasoning_tokens'] });
    const embedding = calculateCost({ usage: { input: 10, input_cached_tokens: 4, total: 14 }, prices: { total: 1 } });
    expect(embedding).toMatchObject({ costDetails: { total: 14 }, status: 'inferred', pricedAs: {} });
  });

  it('own prices always win over the fallback', () => {
    const r = calculateCost({
      usage: { input: 10, output_reasoning_tokens: 10, total: 20 },
      prices: { input: 1, output: 2, output_reasoning_tokens: 3 },
    });
    expect(r.costDetails.output_reasoning_tokens).toBe(30);
    expect(r.pricedAs).toEqual({});
  });
});

describe('the alias table', () => {
  it.each([
    ['cache_read.input_tokens', 'input_cached_tokens'],
    ['cache_creation.input_tokens', 'input_cache_creation'],
    ['cache_write.input_tokens', 'input_cache_creation'],
    ['cache_read_input_tokens', 'input_cached_tokens'],
    ['cache_creation_input_tokens', 'input_cache_creation'],
    ['prompt_details.cache_read', 'input_cached_tokens'],
    ['prompt_details.cache_write', 'input_cache_creation'],
    ['completion_details.reasoning', 'output_reasoning_tokens'],
    ['prompt_details.audio', 'input_audio_tokens'],
    ['prompt', 'input'],
    ['completion', 'output'],
    ['prompt_tokens', 'input'],
    ['input_tokens', 'input'],
    ['reasoning_tokens', 'output_reasoning_tokens'],
  ])('%s names %s', (key, bucket) => expect(bucketOf(key)).toBe(bucket));

  it('gives each key one bucket, whoever sends it, and a reason on every row', () => {
    const seen = new Map<string, string>();
    for (const row of ALIAS_TABLE) {
      expect(row.why.length, row.key).toBeGreaterThan(5);
      expect(seen.get(row.key) ?? row.bucket, row.key).toBe(row.bucket);
      seen.set(row.key, row.bucket);
    }
  });

  it('parents: details by their bucket, counts by their own name', () => {
    expect(parentBucket('output_reasoning_tokens')).toBe('output');
    expect(parentBucket('cached_tokens')).toBe('input');
    expect(parentBucket('cache_creation_input_tokens')).toBe('input');
    expect(parentBucket('input_tokens')).toBe('input');
    expect(parentBucket('prompt_tokens')).toBeNull();
    expect(parentBucket('image_tokens')).toBeNull();
    expect(parentBucket('total')).toBeNull();
    expect(otherSpellings('cache_read_input_tokens').sort()).toEqual([
      'cache_read_tokens',
      'cached_tokens',
      'input_cache_read',
      'input_cached_tokens',
    ]);
    expect(otherSpellings('input')).toEqual([]);
  });
});
