import { describe, expect, it } from 'vitest';
import { calculateCost } from '../../src/domain/cost/calculate.ts';
import { aggregates } from '../../src/domain/usage/aggregate.ts';

const PRICES = { input: 0.01, output: 0.02, total: 0.03 };

describe('calculateCost, computed (Case B)', () => {
  it('prices total on its own when a total price matches (test vector: total 9, not 14)', () => {
    const r = calculateCost({ usage: { input: 100, output: 200, total: 300 }, prices: PRICES });
    expect(r.costDetails).toEqual({ input: 1, output: 4, total: 9 });
    expect(r.status).toBe('inferred');
    expect(r.lines).toEqual([
      { usageType: 'input', units: 100, price: 0.01, cost: 1 },
      { usageType: 'output', units: 200, price: 0.02, cost: 4 },
      { usageType: 'total', units: 300, price: 0.03, cost: 9 },
    ]);
  });

  it('scales to millions of units', () => {
    const r = calculateCost({ usage: { input: 1e6, output: 2e6, total: 3e6 }, prices: PRICES });
    expect(r.costDetails).toEqual({ input: 10000, output: 40000, total: 90000 });
  });

  it('gpt-4o-mini-like: sums the entries when total is not priced', () => {
    const r = calculateCost({ usage: { input: 1295, output: 18, total: 1313 }, prices: { input: 1.5e-7, output: 6e-7 } });
    expect(r.costDetails).toEqual({ input: 0.00019425, output: 0.0000108, total: 0.00020505 });
    expect(r.status).toBe('inferred');
  });

  it('is exact where floats are not', () => {
    // 0.1 + 0.2 !== 0.3 in floats; 3 × 0.1 = 0.30000000000000004
    const sum = calculateCost({ usage: { input: 1, output: 1 }, prices: { input: 0.1, output: 0.2 } });
    expect(sum.costDetails.total).toBe(0.3);
    const product = calculateCost({ usage: { input: 3 }, prices: { input: 0.1 } });
    expect(product.costDetails.input).toBe(0.3);
    const big = calculateCost({ usage: { input: 1_000_000 }, prices: { input: 2.5e-6 } });
    expect(big.costDetails).toEqual({ input: 2.5, total: 2.5 });
    const cached = calculateCost({
      usage: { input: 786, input_cached_tokens: 718398, output: 242 },
      prices: { input: 1.1e-6, input_cached_tokens: 2.75e-7, output: 4.4e-6 },
    });
    expect(cached.costDetails.total).toBe(0.19948885);
  });

  it('prices zero usage at zero', () => {
    expect(calculateCost({ usage: { input: 0, total: 0 }, prices: { input: 1 } }).costDetails).toEqual({ input: 0, total: 0 });
  });

  it('reports partial pricing and names unpriced keys (never total)', () => {
    const r = calculateCost({ usage: { input: 10, reasoning_tokens: 5, foo: 0, total: 15 }, prices: { input: 0.5 } });
    expect(r.costDetails).toEqual({ input: 5, total: 5 });
    expect(r.status).toBe('partial');
    expect(r.unpricedUsageKeys).toEqual(['reasoning_tokens']);
  });

  it('treats a priced total as covering every bucket (embedding models)', () => {
    const r = calculateCost({ usage: { input: 1000, total: 1000 }, prices: { total: 2e-8 } });
    expect(r.costDetails).toEqual({ total: 0.00002 });
    expect(r).toMatchObject({ status: 'inferred', unpricedUsageKeys: [] });
  });

  it('is unpriced without a model, partial when a model prices none of the buckets', () => {
    expect(calculateCost({ usage: { input: 5, total: 5 }, prices: null })).toEqual({
      costDetails: {},
      status: 'unpriced',
      unpricedUsageKeys: ['input'],
      lines: [],
      pricedAs: {},
    });
    const raw = calculateCost({ usage: { prompt_tokens: 5, total: 5 }, prices: { input: 1 } });
    expect(raw).toMatchObject({ costDetails: {}, status: 'partial', unpricedUsageKeys: ['prompt_tokens'] });
  });

  it('is none without usage and cost', () => {
    expect(calculateCost({ usage: {}, prices: null }).status).toBe('none');
    expect(calculateCost({ usage: {}, providedCost: {}, prices: { input: 1 } })).toMatchObject({ costDetails: {}, status: 'none' });
  });
});

describe('calculateCost, provided (Case A)', () => {
  it.each([
    [
      { input: 1, output: 2 },
      { input: 1, output: 2, total: 3 },
    ],
    [{ total: 2 }, { total: 2 }],
    [
      { output: 2, total: 2 },
      { output: 2, total: 2 },
    ],
    [{ input: 1 }, { input: 1, total: 1 }],
    [{ output: 2 }, { output: 2, total: 2 }],
    [
      { input: 1, output: 2, cache_read_input_tokens: 0.5 },
      { input: 1, output: 2, cache_read_input_tokens: 0.5 },
    ],
  ])('%j → %j', (provided, expected) => {
    const r = calculateCost({ usage: { input: 100, output: 100, total: 200 }, providedCost: provided, prices: PRICES });
    expect(r.costDetails).toEqual(expected);
    expect(r.status).toBe('ingested');
    expect(r.lines).toEqual([]);
  });

  it('keeps a __proto__ key as plain data, provided or priced', () => {
    const provided = calculateCost({ usage: {}, providedCost: JSON.parse('{"__proto__": 0.5, "input": 1}'), prices: null });
    expect(Object.keys(provided.costDetails)).toEqual(['__proto__', 'input']);
    expect(Object.getPrototypeOf(provided.costDetails)).toBe(Object.prototype);
    const priced = calculateCost({
      usage: JSON.parse('{"__proto__": 10, "input": 2}'),
      prices: JSON.parse('{"__proto__": 0.1, "input": 1}'),
    });
    expect(Object.keys(priced.costDetails)).toEqual(['__proto__', 'input', 'total']);
    expect(Object.getOwnPropertyDescriptor(priced.costDetails, '__proto__')?.value).toBe(1);
    expect(priced.costDetails.total).toBe(3);
  });

  it('derives input+output exactly', () => {
    expect(calculateCost({ usage: {}, providedCost: { input: 0.1, output: 0.2 }, prices: null }).costDetails.total).toBe(0.3);
  });
});

describe('aggregates', () => {
  it('sums keys containing input/output case-insensitively', () => {
    const a = aggregates(
      { input: 200, input_cached_tokens: 800, Cache_Input: 1, output: 180, output_reasoning_tokens: 120, total: 1300 },
      { input: 0.1, input_cached_tokens: 0.2, output: 0.5, total: 0.8 },
    );
    expect(a).toEqual({ inputUsage: 1001, outputUsage: 300, totalUsage: 1300, inputCost: 0.3, outputCost: 0.5, totalCost: 0.8 });
  });

  it('gives 0 usage, null input/output cost and 0 total cost when absent', () => {
    expect(aggregates({ foo: 3 }, {})).toEqual({
      inputUsage: 0,
      outputUsage: 0,
      totalUsage: 0,
      inputCost: null,
      outputCost: null,
      totalCost: 0,
    });
  });
});
