// Turns the usage/cost inputs of an observation event into the provided maps Langfuse stores.
// Pure functions: validation failures come back as values.
//
// Maps keyed by client-supplied names are built with Object.fromEntries or setEntry() (never a bare
// `obj[k] = v`) so a `__proto__` key stays an ordinary entry instead of replacing the prototype.
import { openAIBuckets } from '../../../../shared/usage/inclusive.ts';
import { USAGE_UNITS, type UsageUnit } from '../models/types.ts';
import { hasEntries, setEntry } from '../plain-map.ts';

/** the inclusive → exclusive rule (shared/usage/inclusive.ts, which the SDK applies too): server code takes it from here */
export { exclusiveOf, openAIBuckets } from '../../../../shared/usage/inclusive.ts';

export type UsageShape = 'openai-chat' | 'openai-responses' | 'map' | 'absent';

export interface ParsedUsageDetails {
  usage?: Record<string, number>;
  shape: UsageShape;
  /** set only when the value is not an object at all (Langfuse fails the event then) */
  error?: string;
}

export interface LegacyUsage {
  input?: number;
  output?: number;
  total?: number;
  unit?: UsageUnit;
  inputCost?: number;
  outputCost?: number;
  totalCost?: number;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export interface StrictShape {
  input: string;
  output: string;
  total: string;
  inputDetails: string;
  outputDetails: string;
}

const CHAT: StrictShape = {
  input: 'prompt_tokens',
  output: 'completion_tokens',
  total: 'total_tokens',
  inputDetails: 'prompt_tokens_details',
  outputDetails: 'completion_tokens_details',
};
const RESPONSES: StrictShape = {
  input: 'input_tokens',
  output: 'output_tokens',
  total: 'total_tokens',
  inputDetails: 'input_tokens_details',
  outputDetails: 'output_tokens_details',
};

export const CHAT_COMPLETIONS_KEYS: readonly string[] = Object.values(CHAT);
export const RESPONSES_KEYS: readonly string[] = Object.values(RESPONSES);

/**
 * Why `raw` is not the strict shape, or null when it is. Strictness matters: a gateway that
 * appends e.g. `cost` must NOT be mapped (README.md, "Sending data"), so the caller can warn about it.
 */
export function strictShapeMismatch(raw: Record<string, unknown>, s: StrictShape): string | null {
  const allowed = Object.values(s);
  const extra = Object.keys(raw).filter((k) => !allowed.includes(k));
  if (extra.length) return `extra keys ${extra.map((k) => `\`${k}\``).join(', ')}`;
  for (const k of [s.input, s.output, s.total]) {
    if (!(k in raw)) return `missing \`${k}\``;
    if (!isCount(raw[k])) return `\`${k}\` is not a non-negative integer`;
  }
  for (const k of [s.inputDetails, s.outputDetails]) {
    const d = raw[k];
    if (d == null) continue;
    if (!isPlainObject(d)) return `\`${k}\` is not an object`;
    const bad = Object.entries(d).find(([, v]) => v != null && !isCount(v));
    if (bad) return `\`${k}.${bad[0]}\` is not a non-negative integer`;
  }
  return null;
}

/**
 * strictShapeMismatch(raw, s) === null, without building the message: parseUsageDetails asks this
 * of every usage map an event carries, and most are flat maps that fail it on their first key.
 */
export function matchesStrictShape(raw: Record<string, unknown>, s: StrictShape): boolean {
  for (const k in raw) if (k !== s.input && k !== s.output && k !== s.total && k !== s.inputDetails && k !== s.outputDetails) return false;
  if (
    !(s.input in raw) ||
    !isCount(raw[s.input]) ||
    !(s.output in raw) ||
    !isCount(raw[s.output]) ||
    !(s.total in raw) ||
    !isCount(raw[s.total])
  )
    return false;
  for (const k of [s.inputDetails, s.outputDetails]) {
    const d = raw[k];
    if (d == null) continue;
    if (!isPlainObject(d)) return false;
    for (const dk in d) if (d[dk] != null && !isCount(d[dk])) return false;
  }
  return true;
}

export const CHAT_SHAPE: StrictShape = CHAT;
export const RESPONSES_SHAPE: StrictShape = RESPONSES;

export const chatCompletionsMismatch = (raw: Record<string, unknown>) => strictShapeMismatch(raw, CHAT);
export const responsesMismatch = (raw: Record<string, unknown>) => strictShapeMismatch(raw, RESPONSES);

/** the details of a strict shape that carry a count (null ones are left out) */
const detailsOf = (d: unknown): [string, number][] =>
  Object.entries((d ?? {}) as Record<string, number | null>).filter((e): e is [string, number] => e[1] != null);

function mapStrict(raw: Record<string, unknown>, s: StrictShape): Record<string, number> {
  // OpenAI reports inclusive counts: every detail (text, audio, cached, reasoning) becomes a
  // bucket of its own, taken off its parent once (the rule's one home, shared/usage/inclusive.ts)
  const { input, output, details } = openAIBuckets(
    raw[s.input] as number,
    raw[s.output] as number,
    detailsOf(raw[s.inputDetails]),
    detailsOf(raw[s.outputDetails]),
  );
  return Object.fromEntries([['input', input], ['output', output], ['total', raw[s.total] as number], ...details]);
}

/** A free-map value as a count, or undefined when Langfuse silently drops it. */
function freeMapCount(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? v + 0 : undefined; // `+ 0` turns -0 into 0
  if (typeof v === 'string') {
    // radix 10 so "0x1A" is 0, not 26: usage counts are decimal
    const n = Number.parseInt(v, 10);
    return Number.isFinite(n) && n >= 0 ? n + 0 : undefined;
  }
  return undefined;
}

export function parseUsageDetails(raw: unknown): ParsedUsageDetails {
  if (raw == null) return { shape: 'absent' };
  if (!isPlainObject(raw)) return { shape: 'absent', error: 'usageDetails must be an object' };
  if (matchesStrictShape(raw, CHAT)) return { usage: mapStrict(raw, CHAT), shape: 'openai-chat' };
  if (matchesStrictShape(raw, RESPONSES)) return { usage: mapStrict(raw, RESPONSES), shape: 'openai-responses' };
  const kept: [string, number][] = [];
  for (const [k, v] of Object.entries(raw)) {
    const n = freeMapCount(v);
    if (n !== undefined) kept.push([k, n]);
  }
  return kept.length ? { usage: Object.fromEntries(kept), shape: 'map' } : { shape: 'map' };
}

export function parseCostDetails(raw: unknown): Record<string, number> | undefined {
  if (!isPlainObject(raw)) return undefined;
  const kept = Object.entries(raw)
    .filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]) && e[1] >= 0)
    .map(([k, v]) => [k, v + 0] as const);
  return kept.length ? Object.fromEntries(kept) : undefined;
}

const LEGACY_COUNTS = ['input', 'output', 'total', 'promptTokens', 'completionTokens', 'totalTokens'] as const;
const LEGACY_COSTS = ['inputCost', 'outputCost', 'totalCost'] as const;

/**
 * The legacy `usage` object. A token count that is not a whole number >= 0 is dropped and named
 * in `dropped` (the event is kept, with a warning: Langfuse stores such an event, and failing it
 * would lose the generation, since the SDKs treat a 400 as final). An unknown unit or a cost
 * that is not a number fails the event. Null fields count as absent; unknown keys are ignored.
 */
export function parseLegacyUsage(raw: unknown): { value?: LegacyUsage; error?: string; dropped?: [string, unknown][] } {
  if (raw == null) return {};
  if (!isPlainObject(raw)) return { error: 'usage must be an object' };
  const dropped: [string, unknown][] = [];
  const counts: Record<string, number | undefined> = {};
  for (const k of LEGACY_COUNTS) {
    const v = raw[k];
    if (v == null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) return { error: `usage.${k} must be a number` };
    if (!Number.isSafeInteger(v) || v < 0) dropped.push([k, v]);
    // a negative whole number stays until finaliseUsage drops it: Langfuse reads a truthy total
    // (-3 in {input: 4, output: -7, total: -3}) before dropping it, so input/output are not summed
    if (Number.isSafeInteger(v)) counts[k] = v;
  }
  for (const k of LEGACY_COSTS) {
    const v = raw[k];
    if (v != null && !(typeof v === 'number' && Number.isFinite(v))) return { error: `usage.${k} must be a number` };
  }
  if (raw.unit != null && !USAGE_UNITS.includes(raw.unit as UsageUnit)) {
    return { error: `usage.unit must be one of ${USAGE_UNITS.join(', ')}` };
  }
  const pick = (o: Record<string, unknown>) => {
    const e = Object.entries(o).filter(([, v]) => v != null);
    return e.length ? (Object.fromEntries(e) as LegacyUsage) : undefined;
  };
  const out = (value: LegacyUsage | undefined) => (dropped.length ? { value, dropped } : { value });
  // Key presence (even with null) selects the OpenAI camelCase form, whose costs Langfuse drops.
  if ('promptTokens' in raw || 'completionTokens' in raw || 'totalTokens' in raw) {
    return out(pick({ input: counts.promptTokens, output: counts.completionTokens, total: counts.totalTokens, unit: 'TOKENS' }));
  }
  return out(
    pick({
      input: counts.input,
      output: counts.output,
      total: counts.total,
      unit: raw.unit,
      inputCost: raw.inputCost,
      outputCost: raw.outputCost,
      totalCost: raw.totalCost,
    }),
  );
}

/**
 * provided_usage_details of one event, as Langfuse builds it. The legacy total falls back to input/output only
 * when usageDetails is empty, with Langfuse's truthiness quirk ({input:0, output:5} → total 0).
 */
export function providedUsage(legacy: LegacyUsage | undefined, details: Record<string, number> | undefined): Record<string, number> {
  const u = legacy ?? {};
  const detailsEmpty = !details || !hasEntries(details);
  const total = u.total ? u.total : detailsEmpty ? (u.input && u.output ? u.input + u.output : (u.input ?? u.output)) : undefined;
  const out: Record<string, number> = {};
  if (u.input != null) out.input = u.input;
  if (u.output != null) out.output = u.output;
  if (total != null) out.total = total;
  for (const k in details) if (details[k] != null) setEntry(out, k, details[k]);
  return out;
}

/** provided_cost_details of one event: legacy *Cost fields under input/output/total, costDetails win. */
export function providedCost(legacy: LegacyUsage | undefined, costDetails: Record<string, number> | undefined): Record<string, number> {
  const u = legacy ?? {};
  const out: Record<string, number> = {};
  if (u.inputCost != null) out.input = u.inputCost;
  if (u.outputCost != null) out.output = u.outputCost;
  if (u.totalCost != null) out.total = u.totalCost;
  for (const k in costDetails) if (costDetails[k] != null) setEntry(out, k, costDetails[k]);
  return out;
}

/**
 * `provided` is what Langfuse writes back as provided_usage_details (null, NaN and negative
 * values dropped); `usage` adds `total` = sum of every value (arbitrary keys included) when absent.
 * Values are integers here, so a plain sum is exact.
 */
export function finaliseUsage(provided: Record<string, unknown>): { provided: Record<string, number>; usage: Record<string, number> } {
  // loops, not entries/fromEntries: this runs several times per ingested generation
  const clean: Record<string, number> = {};
  let count = 0,
    sum = 0;
  for (const k in provided) {
    const v = provided[k];
    if (v == null) continue;
    const n = Number(v);
    if (Number.isNaN(n) || n < 0) continue;
    setEntry(clean, k, n + 0);
    count++;
    sum += n;
  }
  const usage = { ...clean };
  if (count && !Object.hasOwn(clean, 'total')) usage.total = sum + 0;
  return { provided: clean, usage };
}
