import { describe, expect, it } from 'vitest';
import type { PricingTierDef } from '../../src/domain/models/types.ts';
import type { StoredModel } from '../../src/store/models.ts';
import { computeFromProvided, computeUsageAndCost, needsTokenization } from '../../src/domain/usage/index.ts';
import { parseLegacyUsage } from '../../src/domain/usage/normalise.ts';

const standard: PricingTierDef = {
  id: 'gpt-4o-mini_tier_default',
  name: 'Standard',
  isDefault: true,
  priority: 0,
  conditions: [],
  prices: { input: 1.5e-7, output: 6e-7, input_cached_tokens: 7.5e-8 },
};
const fast: PricingTierDef = {
  id: 'gpt-4o-mini_tier_fast',
  name: 'Fast mode',
  isDefault: false,
  priority: 1,
  conditions: [{ source: 'model_parameters', key: 'service_tier', operator: 'in', values: ['fast', 'priority'] }],
  prices: { input: 2.5e-7, output: 1e-6, input_cached_tokens: 1.25e-7 },
};
const gpt4oMini: StoredModel = {
  id: 'gpt-4o-mini',
  modelName: 'gpt-4o-mini',
  matchPattern: '(?i)^(openai/)?(gpt-4o-mini)$',
  unit: 'TOKENS',
  startDate: null,
  tokenizerId: 'openai',
  tokenizerConfig: { tokenizerModel: 'gpt-4o', tokensPerMessage: 3, tokensPerName: 1 },
  pricingTiers: [standard, fast],
  projectId: null,
  createdAt: new Date(0),
};
const noTokenizer: StoredModel = { ...gpt4oMini, id: 'o1', tokenizerId: null };

describe('computeUsageAndCost', () => {
  it('prices provided usage with the default tier (gpt-4o-mini test vector)', () => {
    const r = computeUsageAndCost({ usageDetails: { input: 1295, output: 18, total: 1313 }, model: gpt4oMini });
    expect(r.usageDetails).toEqual({ input: 1295, output: 18, total: 1313 });
    expect(r.costDetails).toEqual({ input: 0.00019425, output: 0.0000108, total: 0.00020505 });
    expect(r.tier).toEqual({ id: 'gpt-4o-mini_tier_default', name: 'Standard' });
    expect(r.costStatus).toBe('inferred');
    expect(r.aggregates).toEqual({
      inputUsage: 1295,
      outputUsage: 18,
      totalUsage: 1313,
      inputCost: 0.00019425,
      outputCost: 0.0000108,
      totalCost: 0.00020505,
    });
    expect(r.usageInferred).toBe(false);
  });

  it('maps a chat-completions object, then prices input, cached and output separately', () => {
    const r = computeUsageAndCost({
      usageDetails: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100, prompt_tokens_details: { cached_tokens: 800 } },
      model: gpt4oMini,
      modelParameters: { service_tier: 'priority' },
    });
    expect(r.usageDetails).toEqual({ input: 200, output: 100, total: 1100, input_cached_tokens: 800 });
    expect(r.tier?.name).toBe('Fast mode');
    expect(r.costDetails).toEqual({ input: 0.00005, output: 0.0001, input_cached_tokens: 0.0001, total: 0.00025 });
    expect(r.warnings).toEqual([]);
  });

  it('stores the same object with `cost` flat, with no bucket priced (partial), and a warning', () => {
    const r = computeUsageAndCost({
      usageDetails: {
        prompt_tokens: 1000,
        completion_tokens: 100,
        total_tokens: 1100,
        prompt_tokens_details: { cached_tokens: 800 },
        cost: 0.0002,
      },
      model: gpt4oMini,
    });
    expect(r.usageDetails).toEqual({ prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100, total: 2200 });
    expect(r.costDetails).toEqual({});
    expect(r.costStatus).toBe('partial');
    expect(r.unpricedUsageKeys).toEqual(['prompt_tokens', 'completion_tokens', 'total_tokens']);
    expect(r.warnings[0]).toContain('remove `cost`');
  });

  it('keeps provided cost and ignores model prices, but still records the tier', () => {
    const r = computeUsageAndCost({
      legacyUsage: { input: 10, output: 20, inputCost: 0.1 },
      costDetails: { output: 0.2 },
      model: gpt4oMini,
    });
    expect(r.usageDetails).toEqual({ input: 10, output: 20, total: 30 });
    expect(r.costDetails).toEqual({ input: 0.1, output: 0.2, total: 0.3 });
    expect(r.costStatus).toBe('ingested');
    expect(r.tier?.name).toBe('Standard');
    expect(r.tierReason).toContain('cost was provided');
  });

  it('writes the normalised provided usage back (input 4, output -7, total -3)', () => {
    const legacy = parseLegacyUsage({ input: 4, output: -7, total: -3 }).value;
    const r = computeUsageAndCost({
      legacyUsage: legacy,
      model: { ...gpt4oMini, pricingTiers: [{ ...standard, prices: { input: 1.5e-7 } }] },
    });
    expect(r.providedUsageDetails).toEqual({ input: 4 });
    expect(r.usageDetails).toEqual({ input: 4, total: 4 });
    expect(r.costDetails).toEqual({ input: 6e-7, total: 6e-7 });
  });

  it('uses tokenizer counts only when nothing was provided', () => {
    const r = computeUsageAndCost({ model: gpt4oMini, inferredUsage: { input: 100, output: 10, total: 110 } });
    expect(r.usageInferred).toBe(true);
    expect(r.usageDetails).toEqual({ input: 100, output: 10, total: 110 });
    expect(r.costDetails).toEqual({ input: 0.000015, output: 0.000006, total: 0.000021 });

    const provided = computeUsageAndCost({ usageDetails: { input: 5 }, model: gpt4oMini, inferredUsage: { input: 100 } });
    expect(provided.usageDetails).toEqual({ input: 5, total: 5 });
  });

  it('leaves usage and cost empty when tokenization failed or the model has no tokenizer', () => {
    const failed = computeUsageAndCost({ model: gpt4oMini });
    expect(failed).toMatchObject({ usageDetails: {}, costDetails: {}, costStatus: 'none', tier: null, usageInferred: true });
    const none = computeUsageAndCost({ model: noTokenizer, inferredUsage: { input: 100 } });
    expect(none).toMatchObject({ usageDetails: {}, costDetails: {}, costStatus: 'none', usageInferred: false });
  });

  it('keeps usage without a model but computes no cost', () => {
    const r = computeUsageAndCost({ usageDetails: { input: 7, output: 3 }, model: null });
    expect(r).toMatchObject({
      usageDetails: { input: 7, output: 3, total: 10 },
      costDetails: {},
      costStatus: 'unpriced',
      tier: null,
      tierReason: 'no model matched',
    });
  });

  it('merged path: partial cost from a later event (usage {1,2,3}, cost {output:1})', () => {
    const r = computeFromProvided({ providedUsage: { input: 1, output: 2, total: 3 }, providedCost: { output: 1 }, model: gpt4oMini });
    expect(r.usageDetails).toEqual({ input: 1, output: 2, total: 3 });
    expect(r.costDetails).toEqual({ output: 1, total: 1 });
  });
});

describe('needsTokenization', () => {
  const base = { providedUsage: {}, providedCost: {}, model: gpt4oMini, level: 'DEFAULT' };
  it('holds only with no usable usage, no cost, a tokenizer and a non-ERROR level', () => {
    expect(needsTokenization(base)).toBe(true);
    expect(needsTokenization({ ...base, providedUsage: { input: -1, output: null } })).toBe(true);
    expect(needsTokenization({ ...base, providedUsage: { input: 0 } })).toBe(false);
    expect(needsTokenization({ ...base, providedCost: { total: 0 } })).toBe(false);
    expect(needsTokenization({ ...base, providedCost: { total: null } })).toBe(true);
    expect(needsTokenization({ ...base, model: noTokenizer })).toBe(false);
    expect(needsTokenization({ ...base, model: null })).toBe(false);
    expect(needsTokenization({ ...base, level: 'ERROR' })).toBe(false);
  });
});
