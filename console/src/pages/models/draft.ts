// The create-model form's state and how it becomes a models_create body. Local problems
// (a price that is not a number, JSON that does not parse) are keyed by the same dotted paths
// the server uses for its issues, so one lookup shows either next to its control. The rules
// about tiers (one default, priority 0, unique priorities…) are left to the server's messages.
import type { FieldErrors } from '../../api.ts';
import type { CreateModelRequest, ModelUsageUnit, PricingTierInput, PricingTierOperator } from '../../../../sdk/index.ts';

export const UNITS: ModelUsageUnit[] = ['TOKENS', 'CHARACTERS', 'MILLISECONDS', 'SECONDS', 'REQUESTS', 'IMAGES'];
export const OPERATORS: Array<{ value: PricingTierOperator; text: string }> = [
  { value: 'gt', text: 'gt (greater than)' },
  { value: 'gte', text: 'gte (at least)' },
  { value: 'lt', text: 'lt (less than)' },
  { value: 'lte', text: 'lte (at most)' },
  { value: 'eq', text: 'eq (equal to)' },
  { value: 'neq', text: 'neq (not equal to)' },
];

export interface UsageTypeDraft {
  key: number;
  name: string;
}
export interface ConditionDraft {
  key: number;
  pattern: string;
  operator: PricingTierOperator;
  value: string;
  caseSensitive: boolean;
}
export interface TierDraft {
  key: number;
  name: string;
  priority: string;
  conditions: ConditionDraft[];
  /** price text by usage-type key: renaming a usage type keeps its prices */
  prices: Record<number, string>;
}

export interface ModelDraft {
  modelName: string;
  matchPattern: string;
  unit: ModelUsageUnit;
  startDate: string;
  tokenizerId: '' | 'openai' | 'claude';
  tokenizerConfig: string;
  mode: 'flat' | 'tiers';
  inputPrice: string;
  outputPrice: string;
  totalPrice: string;
  /** every tier prices the same usage types (the server requires the default tier's keys everywhere) */
  usageTypes: UsageTypeDraft[];
  tiers: TierDraft[];
  /** key of the one default tier: a radio group, so there is always exactly one */
  defaultTier: number;
}

let nextKey = 1;
export const newKey = () => nextKey++;

export function newCondition(): ConditionDraft {
  return { key: newKey(), pattern: '', operator: 'gt', value: '', caseSensitive: false };
}

export function newTier(priority: number, name = '', withCondition = true): TierDraft {
  return { key: newKey(), name, priority: String(priority), conditions: withCondition ? [newCondition()] : [], prices: {} };
}

export function emptyDraft(): ModelDraft {
  const standard = newTier(0, 'Standard', false);
  return {
    modelName: '',
    matchPattern: '',
    unit: 'TOKENS',
    startDate: '',
    tokenizerId: '',
    tokenizerConfig: '',
    mode: 'flat',
    inputPrice: '',
    outputPrice: '',
    totalPrice: '',
    usageTypes: [
      { key: newKey(), name: 'input' },
      { key: newKey(), name: 'output' },
    ],
    tiers: [standard],
    defaultTier: standard.key,
  };
}

function parseNumber(text: string, path: string, errors: FieldErrors): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const n = Number(t);
  if (!Number.isFinite(n)) {
    errors[path] = `"${t}" is not a number`;
    return undefined;
  }
  return n;
}

/** The request body, or the local problems that keep it from being sent. */
export function toRequest(d: ModelDraft): { body?: CreateModelRequest; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const body: CreateModelRequest = { modelName: d.modelName.trim(), matchPattern: d.matchPattern, unit: d.unit };
  if (!body.modelName) errors.modelName = 'Required: the name generations are reported under, e.g. gpt-4o-mini.';
  if (!d.matchPattern.trim()) errors.matchPattern = "Required: a regex on the generation's model, e.g. (?i)^(gpt-4o-mini)$.";
  if (d.startDate) body.startDate = d.startDate;
  if (d.tokenizerId) body.tokenizerId = d.tokenizerId;
  if (d.tokenizerConfig.trim()) {
    try {
      const config: unknown = JSON.parse(d.tokenizerConfig);
      if (config && typeof config === 'object' && !Array.isArray(config)) body.tokenizerConfig = config as Record<string, unknown>;
      else errors.tokenizerConfig = 'Give a JSON object, e.g. {"tokensPerMessage": 3, "tokensPerName": 1}';
    } catch (e) {
      errors.tokenizerConfig = `Not valid JSON: ${(e as Error).message}`;
    }
  }

  if (d.mode === 'flat') {
    for (const key of ['inputPrice', 'outputPrice', 'totalPrice'] as const) {
      const n = parseNumber(d[key], key, errors);
      if (n !== undefined) body[key] = n;
    }
  } else {
    d.usageTypes.forEach((u, j) => {
      if (!u.name.trim()) errors[`usageTypes.${j}`] = 'Name the usage type (e.g. input, output, cached_input) or remove it';
      else if (d.usageTypes.findIndex((o) => o.name.trim() === u.name.trim()) !== j)
        errors[`usageTypes.${j}`] = `"${u.name.trim()}" is listed twice`;
    });
    body.pricingTiers = d.tiers.map((t, i): PricingTierInput => {
      const prices: Record<string, number> = {};
      for (const u of d.usageTypes) {
        const n = parseNumber(t.prices[u.key] ?? '', `pricingTiers.${i}.prices.${u.name.trim()}`, errors);
        if (n !== undefined && u.name.trim()) prices[u.name.trim()] = n;
      }
      const priority = parseNumber(t.priority, `pricingTiers.${i}.priority`, errors);
      if (t.priority.trim() === '') errors[`pricingTiers.${i}.priority`] = 'Give a priority (0 for the default tier, 1–999 for the others)';
      return {
        name: t.name,
        isDefault: t.key === d.defaultTier,
        priority: priority ?? 0,
        conditions: t.conditions.map((c, j) => {
          const value = parseNumber(c.value, `pricingTiers.${i}.conditions.${j}.value`, errors);
          if (c.value.trim() === '') errors[`pricingTiers.${i}.conditions.${j}.value`] = 'Give the threshold (units, e.g. 200000 tokens)';
          return { usageDetailPattern: c.pattern, operator: c.operator, value: value ?? 0, caseSensitive: c.caseSensitive };
        }),
        prices,
      };
    });
  }
  return Object.keys(errors).length ? { errors } : { body, errors };
}

/** Every issue path the form can show next to a control; the others go under the banner. */
export function shownPaths(d: ModelDraft): Set<string> {
  const paths = ['', 'modelName', 'matchPattern', 'unit', 'startDate', 'tokenizerId', 'tokenizerConfig'];
  if (d.mode === 'flat') paths.push('inputPrice', 'outputPrice', 'totalPrice');
  else {
    paths.push('pricingTiers');
    for (let j = 0; j < d.usageTypes.length; j++) paths.push(`usageTypes.${j}`);
    d.tiers.forEach((t, i) => {
      const p = `pricingTiers.${i}`;
      paths.push(p, `${p}.name`, `${p}.priority`, `${p}.isDefault`, `${p}.prices`, `${p}.conditions`);
      for (const u of d.usageTypes) paths.push(`${p}.prices.${u.name.trim()}`);
      t.conditions.forEach((_, j) => {
        const c = `${p}.conditions.${j}`;
        paths.push(c, `${c}.usageDetailPattern`, `${c}.operator`, `${c}.value`, `${c}.caseSensitive`);
      });
    });
  }
  return new Set(paths);
}

const FLAT = [
  ['inputPrice', 'input'],
  ['outputPrice', 'output'],
  ['totalPrice', 'total'],
] as const;

/**
 * The draft in another price mode, prices carried across: flat input/output/total become the
 * default tier's prices of those usage types (added when missing), and back; a price already typed
 * on the other side is not overwritten.
 */
export function withMode(d: ModelDraft, mode: ModelDraft['mode']): ModelDraft {
  if (mode === d.mode) return d;
  if (mode === 'tiers') {
    const usageTypes = [...d.usageTypes];
    const keyOf = (name: string) => {
      const found = usageTypes.find((x) => x.name.trim() === name);
      if (found) return found.key;
      const added = { key: newKey(), name };
      usageTypes.push(added);
      return added.key;
    };
    const prices: Record<number, string> = {};
    for (const [field, name] of FLAT) if (d[field].trim()) prices[keyOf(name)] = d[field];
    const tiers = d.tiers.map((t) => (t.key === d.defaultTier ? { ...t, prices: { ...prices, ...nonEmpty(t.prices) } } : t));
    return { ...d, mode, usageTypes, tiers };
  }
  const standard = d.tiers.find((t) => t.key === d.defaultTier);
  const next = { ...d, mode };
  for (const [field, name] of FLAT) {
    const u = d.usageTypes.find((x) => x.name.trim() === name);
    const price = u && standard ? (standard.prices[u.key] ?? '') : '';
    if (!next[field].trim() && price.trim()) next[field] = price;
  }
  return next;
}

const nonEmpty = (prices: Record<number, string>) => Object.fromEntries(Object.entries(prices).filter(([, v]) => v.trim() !== ''));

/**
 * What an issue at `path` is about, as text: the issue is shown while this is unchanged, so a
 * message goes away once its field is edited (a tier's messages once that tier is).
 */
export function pieceOf(d: ModelDraft, path: string): string {
  const [head, index] = path.split('.');
  if (head === 'pricingTiers')
    return index === undefined ? JSON.stringify([d.tiers, d.usageTypes]) : JSON.stringify([d.tiers[Number(index)], d.usageTypes]);
  if (head === 'usageTypes') return JSON.stringify(d.usageTypes[Number(index)] ?? null);
  if (head === '') return JSON.stringify([d.mode, d.inputPrice, d.outputPrice, d.totalPrice, d.tiers]);
  return JSON.stringify((d as unknown as Record<string, unknown>)[head!] ?? null);
}
