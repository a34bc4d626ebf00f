import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHAT_SHAPE,
  RESPONSES_SHAPE,
  matchesStrictShape,
  strictShapeMismatch,
  finaliseUsage,
  parseCostDetails,
  parseLegacyUsage,
  parseUsageDetails,
  providedCost,
  providedUsage,
} from '../../src/domain/usage/normalise.ts';

const chat = {
  prompt_tokens: 1000,
  completion_tokens: 300,
  total_tokens: 1300,
  prompt_tokens_details: { cached_tokens: 800, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 120, audio_tokens: null },
};

describe('parseUsageDetails: strict OpenAI recognition', () => {
  it('maps a clean chat-completions object and subtracts every detail', () => {
    expect(parseUsageDetails(chat)).toEqual({
      shape: 'openai-chat',
      usage: { input: 200, output: 180, total: 1300, input_cached_tokens: 800, input_audio_tokens: 0, output_reasoning_tokens: 120 },
    });
  });

  it('stores the same object plus a gateway `cost` key flat: raw keys, details and float dropped', () => {
    expect(parseUsageDetails({ ...chat, cost: 0.00123 })).toEqual({
      shape: 'map',
      usage: { prompt_tokens: 1000, completion_tokens: 300, total_tokens: 1300 },
    });
  });

  it('clamps at zero after each subtraction', () => {
    const r = parseUsageDetails({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { a: 8, b: 8 } });
    expect(r.usage).toEqual({ input: 0, output: 5, total: 15, input_a: 8, input_b: 8 });
  });

  it('accepts null details objects and keeps total as given', () => {
    const r = parseUsageDetails({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 99, prompt_tokens_details: null });
    expect(r).toEqual({ shape: 'openai-chat', usage: { input: 1, output: 2, total: 99 } });
  });

  it.each([
    ['a missing total', { prompt_tokens: 1, completion_tokens: 2 }],
    ['a float count', { prompt_tokens: 1.5, completion_tokens: 2, total_tokens: 3 }],
    ['a negative count', { prompt_tokens: -1, completion_tokens: 2, total_tokens: 3 }],
    ['a float detail', { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, prompt_tokens_details: { cached_tokens: 0.5 } }],
  ])('falls back to the free map on %s', (_, raw) => {
    expect(parseUsageDetails(raw).shape).toBe('map');
  });

  it('maps the Responses shape', () => {
    const r = parseUsageDetails({
      input_tokens: 500,
      output_tokens: 100,
      total_tokens: 600,
      input_tokens_details: { cached_tokens: 200 },
      output_tokens_details: { reasoning_tokens: 40 },
    });
    expect(r).toEqual({
      shape: 'openai-responses',
      usage: { input: 300, output: 60, total: 600, input_cached_tokens: 200, output_reasoning_tokens: 40 },
    });
  });

  it('leaves the Anthropic shape (input_tokens without total) as a flat map', () => {
    const raw = { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 30 };
    expect(parseUsageDetails(raw)).toEqual({ shape: 'map', usage: raw });
  });
});

describe('parseUsageDetails: free map', () => {
  it('keeps non-negative integers and parseInt-able strings, drops the rest', () => {
    const r = parseUsageDetails({ a: 3, b: '12abc', c: 20.424, d: -1, e: { x: 1 }, f: true, g: null, h: 'abc', i: '-4', j: 0 });
    expect(r).toEqual({ shape: 'map', usage: { a: 3, b: 12, j: 0 } });
  });

  it('gives undefined usage when nothing survives', () => {
    expect(parseUsageDetails({ a: 1.5, b: false })).toEqual({ shape: 'map' });
    expect(parseUsageDetails({})).toEqual({ shape: 'map' });
  });

  it('treats null/undefined as absent and flags non-objects', () => {
    expect(parseUsageDetails(null)).toEqual({ shape: 'absent' });
    expect(parseUsageDetails(undefined)).toEqual({ shape: 'absent' });
    expect(parseUsageDetails([1, 2]).error).toBeDefined();
  });

  it('keeps a __proto__ key as plain data', () => {
    const r = parseUsageDetails(JSON.parse('{"__proto__": 5, "input": 1}'));
    expect(Object.getPrototypeOf(r.usage)).toBe(Object.prototype);
    expect(Object.keys(r.usage!)).toEqual(['__proto__', 'input']);
  });
});

describe('parseCostDetails', () => {
  it('keeps non-negative finite numbers including floats', () => {
    expect(parseCostDetails({ input: 0.0015, output: 0, total: -1, x: '1', y: null })).toEqual({ input: 0.0015, output: 0 });
  });
  it('returns undefined when empty', () => {
    expect(parseCostDetails({ a: -1 })).toBeUndefined();
    expect(parseCostDetails(undefined)).toBeUndefined();
  });
});

describe('parseLegacyUsage', () => {
  it('keeps the Langfuse form with costs', () => {
    expect(parseLegacyUsage({ input: 1, output: 2, total: 3, unit: 'TOKENS', inputCost: 0.1, outputCost: null, foo: 1 })).toEqual({
      value: { input: 1, output: 2, total: 3, unit: 'TOKENS', inputCost: 0.1 },
    });
  });

  it('rewrites the camelCase OpenAI form and drops its costs', () => {
    expect(parseLegacyUsage({ promptTokens: 10, completionTokens: 5, totalTokens: 15, inputCost: 1, input: 99 })).toEqual({
      value: { input: 10, output: 5, total: 15, unit: 'TOKENS' },
    });
  });

  it('treats {} and null as absent', () => {
    expect(parseLegacyUsage({})).toEqual({ value: undefined });
    expect(parseLegacyUsage(null)).toEqual({});
  });

  it.each([[{ input: '12' }], [{ unit: 'WORDS' }], [{ inputCost: 'cheap' }], ['tokens']])('fails validation on %j', (raw) => {
    expect(parseLegacyUsage(raw).error).toBeTypeOf('string');
  });

  it('drops negative and fractional counts and names them, keeping the rest of the event', () => {
    // negatives stay for finaliseUsage to drop (see the finaliseUsage vector below); fractions go at once
    expect(parseLegacyUsage({ input: 4, output: -7, total: -3 })).toEqual({
      value: { input: 4, output: -7, total: -3 },
      dropped: [
        ['output', -7],
        ['total', -3],
      ],
    });
    expect(parseLegacyUsage({ input: 1.5, output: 2, unit: 'TOKENS' })).toEqual({
      value: { output: 2, unit: 'TOKENS' },
      dropped: [['input', 1.5]],
    });
    expect(parseLegacyUsage({ promptTokens: 2.5, completionTokens: 3 })).toEqual({
      value: { output: 3, unit: 'TOKENS' },
      dropped: [['promptTokens', 2.5]],
    });
  });
});

describe('providedUsage / providedCost', () => {
  it('derives total from input+output when usageDetails is empty', () => {
    expect(providedUsage({ input: 1, output: 2 }, undefined)).toEqual({ input: 1, output: 2, total: 3 });
    expect(providedUsage({ input: 7 }, {})).toEqual({ input: 7, total: 7 });
  });

  it('keeps the {input:0, output:5} → total 0 quirk', () => {
    expect(providedUsage({ input: 0, output: 5 }, undefined)).toEqual({ input: 0, output: 5, total: 0 });
  });

  it('does not derive total when usageDetails has entries, and details win', () => {
    expect(providedUsage({ input: 1, output: 2 }, { input: 10, cached: 4 })).toEqual({ input: 10, output: 2, cached: 4 });
    expect(providedUsage({ total: 9 }, { input: 10 })).toEqual({ total: 9, input: 10 });
  });

  it('maps legacy costs and lets costDetails win', () => {
    expect(providedCost({ inputCost: 1, outputCost: 2 }, { output: 3, cache: 0.5 })).toEqual({ input: 1, output: 3, cache: 0.5 });
    expect(providedCost(undefined, undefined)).toEqual({});
  });
});

describe('finaliseUsage', () => {
  it('drops negatives and derives total (integration vector: input 4, output -7, total -3)', () => {
    const legacy = parseLegacyUsage({ input: 4, output: -7, total: -3 }).value;
    expect(finaliseUsage(providedUsage(legacy, undefined))).toEqual({ provided: { input: 4 }, usage: { input: 4, total: 4 } });
  });

  it('sums every key into total, raw OpenAI keys included', () => {
    const raw = parseUsageDetails({ prompt_tokens: 10, completion_tokens: 25, total_tokens: 35, foo: 1 }).usage!;
    expect(finaliseUsage(raw).usage.total).toBe(71);
  });

  it('keeps a provided total and leaves an empty map empty', () => {
    expect(finaliseUsage({ input: 1, total: 100 }).usage).toEqual({ input: 1, total: 100 });
    expect(finaliseUsage({ a: null, b: Number.NaN })).toEqual({ provided: {}, usage: {} });
  });
});

describe('matchesStrictShape', () => {
  it('agrees with strictShapeMismatch(...) === null on generated usage objects, both shapes', () => {
    const keys = [
      'prompt_tokens',
      'completion_tokens',
      'total_tokens',
      'prompt_tokens_details',
      'completion_tokens_details',
      'input_tokens',
      'output_tokens',
      'input_tokens_details',
      'output_tokens_details',
      'input',
      'cost',
      '__proto__',
    ];
    const chat = keys.slice(0, 5),
      responses = keys.slice(2, 9);
    const count = fc.oneof(
      { weight: 8, arbitrary: fc.nat(10_000) },
      fc.constant(-1),
      fc.constant(1.5),
      fc.constant('7'),
      fc.constant(null),
    );
    const details = fc.oneof(
      fc.constant(null),
      fc.constant('x'),
      fc.constant([1]),
      fc.dictionary(fc.constantFrom('cached_tokens', 'reasoning_tokens', 'audio_tokens'), count),
    );
    const keySet = fc.oneof(
      fc.subarray(chat, { minLength: 3 }),
      fc.subarray(responses, { minLength: 3 }),
      fc.uniqueArray(fc.constantFrom(...keys), { maxLength: 7 }),
    );
    const usage = keySet.chain((ks) =>
      fc
        .tuple(...ks.map((k) => (k.endsWith('_details') ? details : count)))
        .map((vs) => JSON.parse(JSON.stringify(Object.fromEntries(ks.map((k, i) => [k, vs[i]]))))),
    );
    let strict = 0;
    fc.assert(
      fc.property(usage, (raw: Record<string, unknown>) => {
        for (const shape of [CHAT_SHAPE, RESPONSES_SHAPE]) {
          const expected = strictShapeMismatch(raw, shape) === null;
          if (expected) strict++;
          expect(matchesStrictShape(raw, shape)).toBe(expected);
        }
      }),
      { numRuns: 20_000, seed: 23 },
    );
    // the generator reaches the strict shapes too, not only mismatches
    expect(strict).toBeGreaterThan(20);
  });
});
