import { describe, expect, it } from 'vitest';
import { validateModelDefinitionInput, type CreateModelInput, type PricingTierInput } from '../../src/domain/models/validate.ts';
import { compileRe2 } from '../../src/domain/regex.ts';

const base: CreateModelInput = { modelName: 'my-model', matchPattern: '(?i)^(my-model)$', unit: 'TOKENS' };

const standard = (prices: Record<string, number> = { input: 1, output: 2 }): PricingTierInput => ({
  name: 'Standard',
  isDefault: true,
  priority: 0,
  conditions: [],
  prices,
});

const large = (over: Partial<PricingTierInput> = {}): PricingTierInput => ({
  name: 'Large',
  isDefault: false,
  priority: 1,
  conditions: [{ usageDetailPattern: 'input', operator: 'gt', value: 1000 }],
  prices: { input: 2, output: 4 },
  ...over,
});

function issuesOf(input: Partial<CreateModelInput>) {
  return validateModelDefinitionInput({ ...base, ...input }).issues;
}

function onlyIssue(input: Partial<CreateModelInput>) {
  const issues = issuesOf(input);
  expect(issues).toHaveLength(1);
  expect(issues[0]!.code).toBe('custom');
  return issues[0]!;
}

describe('validateModelDefinitionInput: pricing method (rule 1)', () => {
  it('rejects flat prices together with tiers, without a path', () => {
    const issue = onlyIssue({ inputPrice: 1, pricingTiers: [standard()] });
    expect(issue).toEqual({
      code: 'custom',
      path: [],
      message: 'Must provide either flat prices (inputPrice/outputPrice/totalPrice) OR pricingTiers, not both',
    });
  });

  it('rejects neither flat prices nor tiers', () => {
    expect(onlyIssue({}).message).toBe('Must provide either flat prices (inputPrice/outputPrice/totalPrice) OR pricingTiers');
    expect(onlyIssue({ inputPrice: null, pricingTiers: [] }).message).toBe(
      'Must provide either flat prices (inputPrice/outputPrice/totalPrice) OR pricingTiers',
    );
  });

  it('counts a zero price as a flat price', () => {
    const r = validateModelDefinitionInput({ ...base, totalPrice: 0 });
    expect(r.issues).toEqual([]);
    expect(r.tiers).toEqual([{ name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { total: 0 } }]);
  });

  it('stops at rule 1 even when the match pattern is broken too', () => {
    expect(issuesOf({ matchPattern: '(', inputPrice: 1, pricingTiers: [standard()] })).toHaveLength(1);
  });
});

describe('validateModelDefinitionInput: flat prices (rule 2)', () => {
  it('rejects a total price next to input/output prices', () => {
    expect(onlyIssue({ inputPrice: 1, totalPrice: 3 })).toEqual({
      code: 'custom',
      path: ['totalPrice'],
      message: 'If input and/or output price is set, total price must be null',
    });
    expect(onlyIssue({ outputPrice: 2, totalPrice: 3 }).path).toEqual(['totalPrice']);
  });

  it('follows Langfuse truthiness: zero prices do not conflict', () => {
    expect(issuesOf({ inputPrice: 0, totalPrice: 3 })).toEqual([]);
    expect(issuesOf({ inputPrice: 1, totalPrice: 0 })).toEqual([]);
  });

  it('turns flat prices into one default tier with only the non-null prices', () => {
    const r = validateModelDefinitionInput({ ...base, inputPrice: 0.000001, outputPrice: 0.000002, totalPrice: null });
    expect(r.issues).toEqual([]);
    expect(r.tiers).toEqual([
      { name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { input: 0.000001, output: 0.000002 } },
    ]);
  });
});

describe('validateModelDefinitionInput: pricing tiers (rule 3)', () => {
  const tierError = (pricingTiers: PricingTierInput[]) => {
    const issue = onlyIssue({ pricingTiers });
    expect(issue.path).toEqual(['pricingTiers']);
    return issue.message;
  };

  it('requires exactly one default tier', () => {
    expect(tierError([{ ...standard(), isDefault: false, conditions: [{ usageDetailPattern: 'x', operator: 'gt', value: 1 }] }])).toBe(
      'Exactly one pricing tier must have isDefault: true',
    );
    const { isDefault: _omitted, ...noFlag } = large();
    expect(tierError([noFlag as PricingTierInput])).toBe('Exactly one pricing tier must have isDefault: true');
    expect(tierError([standard(), { ...standard(), name: 'Other', priority: 1 }])).toBe(
      'Only one pricing tier can have isDefault: true, found 2',
    );
  });

  it('requires the default tier at priority 0 without conditions', () => {
    expect(tierError([{ ...standard(), priority: 1 }])).toBe('Default pricing tier must have priority: 0');
    expect(tierError([{ ...standard(), conditions: [{ usageDetailPattern: 'x', operator: 'gt', value: 1 }] }])).toBe(
      'Default pricing tier must have empty conditions array',
    );
  });

  it('requires conditions on non-default tiers', () => {
    expect(tierError([standard(), large({ name: '  Big  ', conditions: [] })])).toBe(
      'Non-default pricing tier "Big" must have at least one condition',
    );
  });

  it('requires unique priorities, then unique trimmed names', () => {
    expect(tierError([standard(), large(), large({ name: 'Other' })])).toBe('Pricing tier priorities must be unique within a model');
    expect(tierError([standard(), large(), large({ name: ' Large ', priority: 2 })])).toBe('Pricing tier names must be unique');
  });

  it('checks usage patterns with RE2', () => {
    const message = tierError([standard(), large({ conditions: [{ usageDetailPattern: '(input', operator: 'gt', value: 1 }] })]);
    expect(message).toMatch(/^Invalid regex pattern in tier "Large": Invalid regex syntax: .+/);
    // lookarounds are valid JS but not RE2, which the matcher uses
    expect(tierError([standard(), large({ conditions: [{ usageDetailPattern: '(?!output)', operator: 'gt', value: 1 }] })])).toMatch(
      /^Invalid regex pattern in tier "Large": /,
    );
    expect(tierError([standard(), large({ conditions: [{ usageDetailPattern: 'a'.repeat(201), operator: 'gt', value: 1 }] })])).toBe(
      'Invalid regex pattern in tier "Large": Pattern exceeds maximum length of 200 characters',
    );
  });

  it('requires at least one price per tier', () => {
    expect(tierError([standard({})])).toBe('Pricing tier "Standard" must have at least one price defined');
  });

  it('restricts usage-type names to letters, digits, "_" and "-"', () => {
    expect(tierError([standard({ 'input.cached': 1 })])).toBe(
      'Invalid usage type "input.cached" in tier "Standard": only letters, digits, "_" and "-" are allowed',
    );
    expect(issuesOf({ pricingTiers: [standard({ 'input_cache-read_5m': 1 })] })).toEqual([]);
  });

  it('requires every tier to price the same usage keys as the default', () => {
    expect(tierError([standard({ input: 1, output: 2 }), large({ prices: { output: 4, cached: 1 } })])).toBe(
      'Pricing tier "Large" must have the same usage keys as the default tier. Expected: [input, output], Got: [cached, output]',
    );
  });

  it('reports only the first broken rule, in contract order', () => {
    // duplicate priorities and an empty price set: priorities come first
    expect(tierError([standard({}), large({ priority: 0, isDefault: false })])).toBe(
      'Pricing tier priorities must be unique within a model',
    );
  });

  it('returns normalised tiers: trimmed names, caseSensitive defaulted, attribute conditions kept', () => {
    const r = validateModelDefinitionInput({
      ...base,
      pricingTiers: [
        { ...standard(), name: ' Standard ' },
        large({
          conditions: [
            { usageDetailPattern: 'input', operator: 'gt', value: 1000 },
            { usageDetailPattern: 'Input', operator: 'lte', value: 5, caseSensitive: true },
            { source: 'model_parameters', key: 'service_tier', operator: 'in', values: ['priority'] },
          ],
        }),
      ],
    });
    expect(r.issues).toEqual([]);
    expect(r.tiers).toEqual([
      { name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { input: 1, output: 2 } },
      {
        name: 'Large',
        isDefault: false,
        priority: 1,
        conditions: [
          { usageDetailPattern: 'input', operator: 'gt', value: 1000, caseSensitive: false },
          { usageDetailPattern: 'Input', operator: 'lte', value: 5, caseSensitive: true },
          { source: 'model_parameters', key: 'service_tier', operator: 'in', values: ['priority'] },
        ],
        prices: { input: 2, output: 4 },
      },
    ]);
  });

  it('defaults a missing isDefault to false', () => {
    const { isDefault: _omitted, ...rest } = large();
    const r = validateModelDefinitionInput({ ...base, pricingTiers: [standard(), rest as PricingTierInput] });
    expect(r.issues).toEqual([]);
    expect(r.tiers![1]!.isDefault).toBe(false);
  });
});

describe('validateModelDefinitionInput: match pattern', () => {
  it('accepts Langfuse-style patterns with a leading (?i)', () => {
    expect(issuesOf({ inputPrice: 1, matchPattern: '(?i)^(openai/)?(gpt-4o)$' })).toEqual([]);
    expect(issuesOf({ inputPrice: 1, matchPattern: '(?i)^(anthropic\\/)?(claude-3.*)$$' })).toEqual([]);
  });

  it('rejects a pattern RE2 cannot compile', () => {
    expect(onlyIssue({ inputPrice: 1, matchPattern: '(gpt-4o' })).toEqual({
      code: 'custom',
      path: ['matchPattern'],
      message: 'matchPattern is not a valid regex pattern: missing ): (gpt-4o',
    });
    expect(onlyIssue({ pricingTiers: [standard()], matchPattern: 'a(?=b)' }).path).toEqual(['matchPattern']);
  });

  it('is checked only once the prices are valid (as Langfuse checks it in the handler)', () => {
    expect(onlyIssue({ inputPrice: 1, totalPrice: 1, matchPattern: '(' }).path).toEqual(['totalPrice']);
  });
});

describe('compileRe2', () => {
  it('returns an RE2 or the error', () => {
    const re = compileRe2('(?i)^gpt-4\\.1$');
    expect(re).not.toBeInstanceOf(Error);
    expect((re as RegExp).test('GPT-4.1')).toBe(true);
    expect((re as RegExp).test('gpt-4x1')).toBe(false);
    expect(compileRe2('[')).toBeInstanceOf(Error);
    expect((compileRe2('input', 'i') as RegExp).test('INPUT_tokens')).toBe(true);
  });
});
