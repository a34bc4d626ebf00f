import { describe, expect, it } from 'vitest';
import { calculateCost } from '../../src/domain/cost/calculate.ts';
import { selectPricingTier, stringAttributes } from '../../src/domain/cost/tiers.ts';
import type { PricingTierDef } from '../../src/domain/models/types.ts';

const tier = (over: Partial<PricingTierDef> & Pick<PricingTierDef, 'name'>): PricingTierDef => ({
  id: over.name.toLowerCase().replace(/\W+/g, '_'),
  isDefault: false,
  priority: 1,
  conditions: [],
  prices: {},
  ...over,
});

const standard = (prices: Record<string, number>) => tier({ name: 'Standard', isDefault: true, priority: 0, prices });

const claudeSonnet = [
  standard({ input: 3e-6, output: 1.5e-5, input_cache_creation: 3.75e-6, input_cache_read: 3e-7 }),
  tier({
    name: 'Large Context (>200K)',
    conditions: [{ usageDetailPattern: '(input|prompt|cached)', operator: 'gt', value: 200000, caseSensitive: false }],
    prices: { input: 6e-6, output: 2.25e-5, input_cache_creation: 7.5e-6, input_cache_read: 6e-7 },
  }),
];

const gemini25Pro = [
  standard({ input: 1.25e-6, input_cached_tokens: 1.25e-7, output: 1e-5 }),
  tier({
    name: 'Large Context',
    conditions: [{ usageDetailPattern: '(input|prompt|cached)', operator: 'gt', value: 200000, caseSensitive: false }],
    prices: { input: 2.5e-6, input_cached_tokens: 2.5e-7, output: 1.5e-5 },
  }),
];

const serviceTier = (values: string[]) => ({ source: 'model_parameters' as const, key: 'service_tier', operator: 'in' as const, values });
const largeInput = { usageDetailPattern: '(input)', operator: 'gt' as const, value: 272000, caseSensitive: false };

// gpt-5.4-like: AND of attribute and usage conditions, several priorities
const gpt54 = [
  standard({ input: 2.5e-6, output: 1.5e-5 }),
  tier({ name: 'Fast mode', priority: 2, conditions: [serviceTier(['fast', 'priority'])], prices: { input: 5e-6, output: 3e-5 } }),
  tier({
    name: 'Flex · Large context (>272K)',
    priority: 1,
    conditions: [serviceTier(['flex']), largeInput],
    prices: { input: 2.5e-6, output: 1.1e-5 },
  }),
  tier({ name: 'Flex', priority: 3, conditions: [serviceTier(['flex'])], prices: { input: 1.25e-6, output: 7.5e-6 } }),
  tier({ name: 'Large Context (>272K)', priority: 4, conditions: [largeInput], prices: { input: 5e-6, output: 2.25e-5 } }),
];

describe('selectPricingTier', () => {
  it('claude-sonnet-like: 150K input stays on Standard (input price 3e-6)', () => {
    const r = selectPricingTier(claudeSonnet, { input: 150000, output: 5000, total: 155000 }, {});
    expect(r.tier?.name).toBe('Standard');
    expect(r.tier?.prices.input).toBe(0.000003);
    expect(r.reason).toBe(
      'default tier "Standard": no conditional tier matched (Large Context (>200K): sum of usage keys matching /(input|prompt|cached)/i = 150000 is not > 200000)',
    );
  });

  it('claude-sonnet-like: cache reads and writes count toward the threshold', () => {
    const r = selectPricingTier(claudeSonnet, { input: 1000, input_cache_read: 150000, input_cache_creation: 60000, output: 10 }, {});
    expect(r.tier?.name).toBe('Large Context (>200K)');
    expect(r.reason).toBe(
      'tier "Large Context (>200K)" (priority 1): sum of usage keys matching /(input|prompt|cached)/i = 211000 > 200000',
    );
  });

  it('gemini 2.5 pro: >200K prompt selects Large Context and prices it', () => {
    const usage = { input: 250000, output: 1000, total: 251000 };
    const r = selectPricingTier(gemini25Pro, usage, {});
    expect(r.tier?.name).toBe('Large Context');
    expect(calculateCost({ usage, prices: r.tier!.prices }).costDetails).toEqual({ input: 0.625, output: 0.015, total: 0.64 });
  });

  it('gemini 2.5 pro: exactly 200000 is not > 200000', () => {
    expect(selectPricingTier(gemini25Pro, { input: 200000 }, {}).tier?.name).toBe('Standard');
  });

  it('gemini 2.5 pro: alias keys double-count toward the threshold, as in Langfuse', () => {
    const r = selectPricingTier(gemini25Pro, { input: 120000, prompt_token_count: 120000, output: 10 }, {});
    expect(r.tier?.name).toBe('Large Context');
  });

  it('evaluates conditional tiers by ascending priority with AND semantics', () => {
    const flexLarge = { modelParameters: { service_tier: 'flex' } };
    expect(selectPricingTier(gpt54, { input: 300000 }, flexLarge).tier?.name).toBe('Flex · Large context (>272K)');
    expect(selectPricingTier(gpt54, { input: 1000 }, flexLarge).tier?.name).toBe('Flex');
    expect(selectPricingTier(gpt54, { input: 1000 }, { modelParameters: { service_tier: 'priority' } }).tier?.name).toBe('Fast mode');
    expect(selectPricingTier(gpt54, { input: 300000 }, {}).tier?.name).toBe('Large Context (>272K)');
    expect(selectPricingTier(gpt54, { input: 1000 }, {}).tier?.name).toBe('Standard');
  });

  it('explains attribute conditions', () => {
    const r = selectPricingTier(gpt54, { input: 1000 }, { modelParameters: { service_tier: 'default' } });
    expect(r.reason).toContain('Flex · Large context (>272K): model_parameters.service_tier = "default" is not in ["flex"]');
    expect(selectPricingTier(gpt54, { input: 1000 }, {}).reason).toContain('Fast mode: model_parameters.service_tier is not set');
    const hit = selectPricingTier(gpt54, { input: 1 }, { modelParameters: { service_tier: 'fast' } });
    expect(hit.reason).toBe('tier "Fast mode" (priority 2): model_parameters.service_tier = "fast" is in ["fast","priority"]');
  });

  it('compares stringified number/boolean attributes and reads metadata and JSON strings', () => {
    const tiers = [
      standard({ input: 1 }),
      tier({ name: 'Batch', conditions: [{ source: 'metadata', key: 'batch', operator: 'in', values: ['true'] }], prices: { input: 0.5 } }),
      tier({
        name: 'N2',
        priority: 2,
        conditions: [{ source: 'model_parameters', key: 'n', operator: 'in', values: ['2'] }],
        prices: { input: 2 },
      }),
    ];
    expect(selectPricingTier(tiers, { input: 1 }, { metadata: { batch: true } }).tier?.name).toBe('Batch');
    expect(selectPricingTier(tiers, { input: 1 }, { modelParameters: '{"n": 2}' }).tier?.name).toBe('N2');
    expect(selectPricingTier(tiers, { input: 1 }, { metadata: { batch: { nested: true } } }).tier?.name).toBe('Standard');
    expect(selectPricingTier(tiers, { input: 1 }, { metadata: 'not json' }).tier?.name).toBe('Standard');
  });

  it('honours caseSensitive and every operator', () => {
    const make = (operator: 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'neq', caseSensitive = false) => [
      standard({ input: 1 }),
      tier({ name: 'T', conditions: [{ usageDetailPattern: '^input$', operator, value: 10, caseSensitive }], prices: { input: 2 } }),
    ];
    const name = (op: Parameters<typeof make>[0], usage: Record<string, number>, cs = false) =>
      selectPricingTier(make(op, cs), usage, {}).tier?.name;
    expect(name('gte', { INPUT: 10 })).toBe('T');
    expect(name('gte', { INPUT: 10 }, true)).toBe('Standard');
    expect(name('gt', { input: 10 })).toBe('Standard');
    expect(name('lt', { input: 9 })).toBe('T');
    expect(name('lte', { input: 10 })).toBe('T');
    expect(name('eq', { input: 10 })).toBe('T');
    expect(name('neq', { input: 10 })).toBe('Standard');
    expect(name('lt', { output: 10 })).toBe('T'); // no matching key sums to 0
  });

  it('never matches a conditional tier without conditions, and fails invalid patterns safely', () => {
    const tiers = [
      standard({ input: 1 }),
      tier({ name: 'Empty', prices: { input: 0 } }),
      tier({
        name: 'Bad',
        priority: 2,
        conditions: [{ usageDetailPattern: '(?<=x)input', operator: 'gte', value: 0, caseSensitive: false }],
        prices: { input: 0 },
      }),
    ];
    const r = selectPricingTier(tiers, { input: 5 }, {});
    expect(r.tier?.name).toBe('Standard');
    expect(r.reason).toContain('Empty: has no conditions');
    expect(r.reason).toContain('does not compile');
  });

  it('skips matching on empty usage and handles missing default tiers', () => {
    expect(selectPricingTier(claudeSonnet, {}, {})).toEqual({ tier: null, reason: 'no usage details: tier matching skipped' });
    expect(selectPricingTier(claudeSonnet, { input: 0 }, {}).tier?.name).toBe('Standard');
    expect(selectPricingTier([], { input: 1 }, {}).tier).toBeNull();
    const noDefault = selectPricingTier([claudeSonnet[1]!], { input: 1 }, {});
    expect(noDefault.tier).toBeNull();
    expect(noDefault.reason).toContain('no default tier');
  });

  it("does not reorder the caller's tiers", () => {
    const copy = [...gpt54];
    selectPricingTier(gpt54, { input: 1 }, {});
    expect(gpt54).toEqual(copy);
  });
});

describe('stringAttributes', () => {
  it('keeps top-level scalars as strings only', () => {
    expect(Object.fromEntries(stringAttributes({ a: 'x', b: 1, c: false, d: null, e: [1], f: { g: 1 } }))).toEqual({
      a: 'x',
      b: '1',
      c: 'false',
    });
    expect(stringAttributes([1, 2]).size).toBe(0);
    expect(stringAttributes(undefined).size).toBe(0);
  });
});
