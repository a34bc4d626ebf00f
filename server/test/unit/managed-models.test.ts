import RE2 from 're2';
import { describe, expect, it } from 'vitest';
import { buildManagedModels, CONTEXT_USAGE_PATTERN, managedModelProbes } from '../../src/domain/managed-models/index.ts';
import type { ModelDefinition, UsageCondition } from '../../src/domain/models/types.ts';
import { validateModelDefinitionInput } from '../../src/domain/models/validate.ts';
import { compileRe2 } from '../../src/domain/regex.ts';

// a fixed day keeps price assertions independent of dates scheduled in the dataset
const DAY = new Date('2026-11-22T12:00:00Z');
const models = buildManagedModels(DAY);
const byName = new Map(models.map((m) => [m.modelName, m]));
const compiled = models.map((m) => ({ model: m, re: compileRe2(m.matchPattern) as RE2 }));

function matching(name: string): string[] {
  return compiled.filter(({ re }) => re.test(name)).map(({ model }) => model.modelName);
}

function model(name: string): ModelDefinition {
  const m = byName.get(name);
  if (!m) throw new Error(`no managed model ${name}`);
  return m;
}

const defaultPrices = (name: string) => model(name).pricingTiers.find((t) => t.isDefault)!.prices;

describe('managed model list', () => {
  it('has at least 150 entries with unique names and ids', () => {
    expect(models.length).toBeGreaterThanOrEqual(150);
    expect(new Set(models.map((m) => m.modelName)).size).toBe(models.length);
    expect(new Set(models.map((m) => m.id)).size).toBe(models.length);
  });

  it('covers the three main families', () => {
    const count = (re: RegExp) => models.filter((m) => re.test(m.modelName)).length;
    expect(count(/^(gpt-|o\d|text-embedding-|chatgpt-)/)).toBeGreaterThanOrEqual(70);
    expect(count(/^claude-/)).toBeGreaterThanOrEqual(20);
    expect(count(/^gemini-/)).toBeGreaterThanOrEqual(30);
  });

  it('uses stable ids derived from the model name', () => {
    for (const m of models) {
      expect(m.id).toMatch(/^managed_[a-z0-9_-]+$/);
      const tiers = m.pricingTiers;
      expect(tiers.filter((t) => t.isDefault).map((t) => t.id)).toEqual([`${m.id}_tier_default`]);
      for (const t of tiers.filter((t) => !t.isDefault)) expect(t.id).toMatch(new RegExp(`^${m.id}_tier_[a-z0-9_]+$`));
    }
    expect(model('gpt-4o').id).toBe('managed_gpt-4o');
    expect(model('gpt-4.1').id).toBe('managed_gpt-4_1');
  });

  it('has the common shape of a managed model', () => {
    for (const m of models) {
      expect(m.unit).toBe('TOKENS');
      expect(m.startDate).toBeNull();
      expect(m.pricingTiers.length).toBeGreaterThan(0);
      expect(m.pricingTiers.map((t) => t.priority)).toEqual([...m.pricingTiers.map((t) => t.priority)].sort((a, b) => a - b));
    }
  });

  it('passes the create-model validation for every entry', () => {
    for (const m of models) {
      const result = validateModelDefinitionInput({
        modelName: m.modelName,
        matchPattern: m.matchPattern,
        unit: m.unit!,
        pricingTiers: m.pricingTiers.map(({ id: _id, ...tier }) => tier),
        tokenizerId: m.tokenizerId,
        tokenizerConfig: m.tokenizerConfig,
      });
      expect(result.issues, m.modelName).toEqual([]);
    }
  });

  it('prices without binary noise', () => {
    for (const m of models) {
      for (const t of m.pricingTiers) {
        for (const [key, price] of Object.entries(t.prices)) {
          expect(price, `${m.modelName} ${key}`).toBeGreaterThanOrEqual(0);
          expect(String(price), `${m.modelName} ${key}`).not.toMatch(/\d{9}/);
        }
      }
    }
  });

  it('is memoised and deeply frozen', () => {
    expect(buildManagedModels(DAY)).toBe(models);
    expect(buildManagedModels(new Date('2026-11-22T23:59:59Z'))).toBe(models);
    expect(Object.isFrozen(models[0]!.pricingTiers[0]!.prices)).toBe(true);
  });

  it('is deterministic across rebuilds', () => {
    const snapshot = JSON.stringify(models);
    buildManagedModels(new Date('2025-01-01T00:00:00Z'));
    expect(JSON.stringify(buildManagedModels(DAY))).toBe(snapshot);
  });

  it('applies the prices in force on the given day', () => {
    const o3Before = buildManagedModels(new Date('2025-06-09T00:00:00Z')).find((m) => m.modelName === 'o3')!;
    expect(o3Before.pricingTiers[0]!.prices.input).toBe(0.00001);
    const o3After = buildManagedModels(new Date('2025-06-10T00:00:00Z')).find((m) => m.modelName === 'o3')!;
    expect(o3After.pricingTiers[0]!.prices.input).toBe(0.000002);
  });
});

describe('match patterns', () => {
  it('compile in RE2 and match their own model name', () => {
    for (const { model: m, re } of compiled) {
      expect(re, m.modelName).not.toBeInstanceOf(Error);
      expect(m.matchPattern.startsWith('(?i)^'), m.modelName).toBe(true);
      expect(re.test(m.modelName), m.modelName).toBe(true);
    }
  });

  it('give every known spelling to exactly one entry', () => {
    const probes = managedModelProbes(DAY);
    for (const m of models) {
      for (const probe of probes.get(m.id)!) expect(matching(probe), `${probe} (${m.modelName})`).toEqual([m.modelName]);
    }
  });

  it.each([
    ['gpt-4o', 'gpt-4o'],
    ['gpt-4o-mini', 'gpt-4o-mini'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['openai/gpt-4o', 'gpt-4o'],
    ['GPT-4o-Mini', 'gpt-4o-mini'],
    ['gpt-4.1', 'gpt-4.1'],
    ['gpt-4.1-mini-2025-04-14', 'gpt-4.1-mini'],
    ['gpt-35-turbo', 'gpt-3.5-turbo'],
    ['gpt-3.5-turbo-0301', 'gpt-3.5-turbo-0301'],
    ['gpt-5', 'gpt-5'],
    ['o3-mini', 'o3-mini'],
    ['o1', 'o1'],
    ['text-embedding-3-small', 'text-embedding-3-small'],
    ['ft:gpt-4o-2024-08-06:acme::abc123', 'ft:gpt-4o'],
    ['claude-3-haiku-20240307', 'claude-3-haiku'],
    ['anthropic.claude-3-haiku-20240307-v1:0', 'claude-3-haiku'],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', 'claude-sonnet-4-0'],
    ['eu.anthropic.claude-3-5-sonnet-20240620-v1:0', 'claude-3-5-sonnet'],
    ['global.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['anthropic.claude-opus-4-6-v1', 'claude-opus-4-6'],
    ['anthropic.claude-v2:1', 'claude-2'],
    ['claude-3-haiku@20240307', 'claude-3-haiku'],
    ['claude-3-5-sonnet-v2@20241022', 'claude-3-5-sonnet'],
    ['claude-sonnet-4@20250514', 'claude-sonnet-4-0'],
    ['claude-opus-4-1-20250805', 'claude-opus-4-1'],
    ['claude-3-5-haiku-latest', 'claude-3-5-haiku'],
    ['claude-2.1', 'claude-2'],
    ['anthropic/claude-haiku-4-5', 'claude-haiku-4-5'],
    ['gemini-2.5-pro', 'gemini-2.5-pro'],
    ['gemini-2.5-pro-preview-05-06', 'gemini-2.5-pro'],
    ['gemini-2.5-pro-preview-tts', 'gemini-2.5-pro-tts'],
    ['google/gemini-2.0-flash', 'gemini-2.0-flash'],
    ['googleai/gemini-2.0-flash-001', 'gemini-2.0-flash'],
    ['gemini-2.0-flash-lite-001', 'gemini-2.0-flash-lite'],
    ['gemini-1.5-pro@002', 'gemini-1.5-pro'],
    ['gemini-1.5-flash-8b', 'gemini-flash-1.5-8b'],
    ['gemini-2.5-flash', 'gemini-2.5-flash'],
    ['gemini-2.5-flash-lite-preview-06-17', 'gemini-2.5-flash-lite'],
    ['gemini-3-pro-preview', 'gemini-3-pro-preview'],
    ['us.amazon.nova-pro-v1:0', 'amazon.nova-pro-v1:0'],
    ['global.amazon.nova-2-lite-v1:0', 'global.amazon.nova-2-lite-v1:0'],
    ['us.amazon.nova-2-lite-v1:0', 'amazon.nova-2-lite-v1:0'],
  ])('%s -> %s', (name, expected) => {
    expect(matching(name)).toEqual([expected]);
  });

  it.each(['gpt-4x1', 'gpt-4o-mini-x', 'claude-3-haiku-2024', 'gemini-2x5-pro', 'mistral-large', 'prefix-gpt-4o', 'gpt-4o/x'])(
    'leaves %s unmatched',
    (name) => {
      expect(matching(name)).toEqual([]);
    },
  );
});

describe('prices and usage keys', () => {
  it('converts per-million prices to per-token prices', () => {
    expect(defaultPrices('gpt-4o')).toMatchObject({
      input: 0.0000025,
      output: 0.00001,
      input_cached_tokens: 0.00000125,
      input_cache_read: 0.00000125,
      cache_read_input_tokens: 0.00000125,
    });
    expect(defaultPrices('gpt-4o')).not.toHaveProperty('output_reasoning_tokens');
  });

  it('prices reasoning tokens at the output price for reasoning models', () => {
    for (const name of ['o3', 'o1', 'gpt-5', 'gemini-2.5-pro', 'gemini-2.5-flash']) {
      const p = defaultPrices(name);
      expect(p.output_reasoning_tokens, name).toBe(p.output);
      expect(p.output_reasoning, name).toBe(p.output);
      expect(p.reasoning_tokens, name).toBe(p.output);
    }
    expect(defaultPrices('gemini-2.5-pro').thoughtsTokenCount).toBe(0.00001);
    expect(defaultPrices('gemini-1.5-pro')).not.toHaveProperty('thoughtsTokenCount');
  });

  it('emits the Anthropic cache aliases including the 1h write price', () => {
    expect(defaultPrices('claude-3-5-sonnet')).toEqual({
      input: 0.000003,
      input_tokens: 0.000003,
      output: 0.000015,
      output_tokens: 0.000015,
      input_cache_creation: 0.00000375,
      cache_creation_input_tokens: 0.00000375,
      input_cache_creation_5m: 0.00000375,
      input_cache_creation_1h: 0.000006,
      input_cached_tokens: 3e-7,
      input_cache_read: 3e-7,
      cache_read_input_tokens: 3e-7,
    });
  });

  it('emits the Gemini aliases', () => {
    expect(defaultPrices('gemini-2.5-flash')).toMatchObject({
      input: 3e-7,
      prompt_token_count: 3e-7,
      promptTokenCount: 3e-7,
      output: 0.0000025,
      candidates_token_count: 0.0000025,
      candidatesTokenCount: 0.0000025,
      thoughts_token_count: 0.0000025,
      cached_content_token_count: 3e-8,
      input_audio_tokens: 0.000001,
    });
  });

  it('prices embeddings on total only', () => {
    expect(defaultPrices('text-embedding-3-small')).toEqual({ total: 2e-8 });
    expect(defaultPrices('text-embedding-ada-002')).toEqual({ total: 1e-7 });
    expect(defaultPrices('gemini-embedding-001')).toEqual({ total: 1.5e-7 });
  });
});

describe('large-context tiers', () => {
  it('tiers Gemini 2.5 Pro above 200K prompt tokens', () => {
    const tiers = model('gemini-2.5-pro').pricingTiers;
    expect(tiers).toHaveLength(2);
    const large = tiers[1]!;
    expect(large).toMatchObject({
      id: 'managed_gemini-2_5-pro_tier_large_context_200k',
      name: 'Large Context (>200K)',
      isDefault: false,
      priority: 1,
    });
    expect(large.conditions).toEqual([
      { usageDetailPattern: '(input|prompt|cached)', operator: 'gt', value: 200000, caseSensitive: false },
    ]);
    expect(large.prices).toMatchObject({ input: 0.0000025, input_cached_tokens: 2.5e-7, output: 0.000015, thoughtsTokenCount: 0.000015 });
  });

  it('tiers Claude Sonnet 4.5 above 200K input tokens, including cache writes', () => {
    const large = model('claude-sonnet-4-5').pricingTiers.find((t) => !t.isDefault)!;
    expect(large.prices).toMatchObject({
      input: 0.000006,
      output: 0.0000225,
      input_cache_creation: 0.0000075,
      input_cache_creation_1h: 0.000012,
    });
  });

  it('counts every input-side key and no output-side key toward the threshold', () => {
    const pattern = new RE2(CONTEXT_USAGE_PATTERN, 'i');
    const tiered = models.filter((m) => m.pricingTiers.length > 1);
    expect(tiered.length).toBeGreaterThan(5);
    for (const m of tiered) {
      for (const t of m.pricingTiers.filter((t) => !t.isDefault)) {
        expect((t.conditions[0] as UsageCondition).usageDetailPattern).toBe(CONTEXT_USAGE_PATTERN);
      }
      for (const key of Object.keys(m.pricingTiers[0]!.prices)) {
        const outputSide = /output|candidates|thoughts|reasoning/i.test(key);
        expect(pattern.test(key), `${m.modelName} ${key}`).toBe(!outputSide);
      }
    }
  });
});

describe('tokenizers', () => {
  it.each([
    ['gpt-4o', 'openai', { tokenizerModel: 'gpt-4o', tokensPerMessage: 3, tokensPerName: 1 }],
    // each chat model names itself, so its family picks the vocabulary (tokenizer-vocabulary.test.ts)
    ['gpt-4o-mini', 'openai', { tokenizerModel: 'gpt-4o-mini', tokensPerMessage: 3, tokensPerName: 1 }],
    ['chatgpt-4o-latest', 'openai', { tokenizerModel: 'chatgpt-4o-latest', tokensPerMessage: 3, tokensPerName: 1 }],
    ['gpt-4.1', 'openai', { tokenizerModel: 'gpt-4.1', tokensPerMessage: 3, tokensPerName: 1 }],
    ['gpt-5', 'openai', { tokenizerModel: 'gpt-5', tokensPerMessage: 3, tokensPerName: 1 }],
    ['gpt-3.5-turbo', 'openai', { tokenizerModel: 'gpt-3.5-turbo', tokensPerMessage: 3, tokensPerName: 1 }],
    ['gpt-3.5-turbo-0301', 'openai', { tokenizerModel: 'gpt-3.5-turbo', tokensPerMessage: 4, tokensPerName: -1 }],
    ['text-embedding-3-large', 'openai', { tokenizerModel: 'text-embedding-ada-002' }],
    ['claude-3-haiku', 'claude', null],
    ['o3', null, null],
    ['o4-mini', null, null],
    ['gemini-2.5-pro', null, null],
    ['amazon.nova-pro-v1:0', null, null],
  ])('%s uses %s', (name, tokenizerId, tokenizerConfig) => {
    expect(model(name).tokenizerId).toBe(tokenizerId);
    expect(model(name).tokenizerConfig).toEqual(tokenizerConfig);
  });
});
