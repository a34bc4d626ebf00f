// Advisory messages about usage maps that are probably wrong. Langfuse prices each key as an
// independent bucket, so overlapping buckets silently double the cost (the most
// common complaint in Langfuse's GitHub issues). Warnings never change any value.
import { SPELLING_GROUPS } from './aliases.ts';
import {
  chatCompletionsMismatch,
  CHAT_COMPLETIONS_KEYS,
  isPlainObject,
  RESPONSES_KEYS,
  responsesMismatch,
  type ParsedUsageDetails,
} from './normalise.ts';

/** Buckets that an inclusive `input`/`output` would already contain. */
const INPUT_PARTS = [
  'input_cached_tokens',
  'input_cache_read',
  'cache_read_input_tokens',
  'input_cache_creation',
  'cache_creation_input_tokens',
  'input_cache_creation_5m',
  'input_cache_creation_1h',
];
const OUTPUT_PARTS = ['output_reasoning_tokens', 'output_reasoning', 'reasoning_tokens'];

/** Spellings of one quantity (domain/usage/aliases.ts); sending two of them counts it twice. */
const ALIASES = SPELLING_GROUPS;

const BASES = [
  ['input', INPUT_PARTS],
  ['output', OUTPUT_PARTS],
] as const;

const q = (k: string) => `\`${k}\``;

/** Slack before a total counts as too small, as in Langfuse's consistency guard. */
export const totalTolerance = (total: number) => Math.max(1, total * 0.01);

/**
 * @param raw the usageDetails exactly as received
 * @param parsed its parse result
 * @param final the final usage map (provided values plus derived total)
 * @param provided the provided map; tells a sent `total` from a derived one (default: usageDetails)
 */
export function usageWarnings(
  raw: unknown,
  parsed: ParsedUsageDetails,
  final: Record<string, number>,
  provided: Record<string, number> = parsed.usage ?? {},
): string[] {
  // runs for every ingested event that carries usageDetails: plain loops, and arrays only once
  // something is to be said
  const out: string[] = [];
  if (isPlainObject(raw) && parsed.shape === 'map') {
    const unmapped = unmappedOpenAiWarnings(raw);
    if (unmapped.length) out.push(...unmapped);
  }

  const has = (k: string) => Object.hasOwn(final, k);
  let sum = 0;
  for (const k in final) if (k !== 'total') sum += final[k]!;
  const totalSent = Object.hasOwn(provided, 'total') && has('total');
  const mismatch = totalSent && sum > final.total! + totalTolerance(final.total!);
  if (mismatch) {
    out.push(
      `\`total\` (${final.total}) is smaller than the sum of the other usage buckets (${sum}): buckets probably overlap ` +
        `(e.g. \`input\` including cached tokens), so inferred cost is overcounted`,
    );
  }

  // The mapped OpenAI shapes are disjoint by construction; a total the sender computed that
  // agrees with the buckets is trusted. Otherwise an inclusive count shows as a base at least
  // as large as a part that makes up most of it (17903 input vs 17817 cached in #10592). A
  // base smaller than its part proves the buckets exclusive, and a small part next to a
  // large base is ordinary exclusive data: warning there would drown the real cases.
  const mapped = parsed.shape === 'openai-chat' || parsed.shape === 'openai-responses';
  if (!mapped && (!totalSent || mismatch)) {
    for (const [base, parts] of BASES) {
      if (!has(base)) continue;
      const b = final[base]!;
      const inclusive = (p: string) => has(p) && final[p]! > 0 && b >= final[p]! && final[p]! * 2 >= b;
      if (!parts.some(inclusive)) continue;
      const hit = parts.filter(inclusive);
      out.push(
        `${q(base)} (${final[base]}) is not smaller than ${hit.map((p) => `${q(p)} (${final[p]})`).join(', ')}: ` +
          `if ${q(base)} includes those tokens they are counted twice; ${q(base)} must exclude tokens reported in other ${base}_* buckets`,
      );
    }
  }

  for (const group of ALIASES) {
    let count = 0;
    for (const k of group) if (has(k) && final[k]! > 0) count++;
    if (count < 2) continue;
    const present = group.filter((k) => has(k) && final[k]! > 0);
    out.push(`${present.map(q).join(' and ')} name the same tokens; sending both counts them twice`);
  }
  return out;
}

const shown = (v: unknown) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
};

/**
 * Values Langfuse drops without a word (and Tally with it, for compatibility): a usage count
 * that is not a whole non-negative number, a cost that is not a non-negative number. The event
 * is stored; the warning says which value was not.
 * @param rawUsage usageDetails as received, `parsed` its parse; @param rawCost costDetails as received
 */
export function droppedValueWarnings(rawUsage: unknown, parsed: ParsedUsageDetails, rawCost: unknown): string[] {
  const out: string[] = [];
  if (isPlainObject(rawUsage) && parsed.shape === 'map') {
    // nested *_details of an unmapped OpenAI object have their own warning (asked only then: this runs per event)
    let unmapped: boolean | undefined;
    const kept = parsed.usage ?? {};
    for (const k in rawUsage) {
      const v = rawUsage[k];
      if (v == null || Object.hasOwn(kept, k)) continue;
      if (isPlainObject(v)) {
        unmapped ??= unmappedOpenAiWarnings(rawUsage).length > 0;
        if (unmapped) continue;
      }
      out.push(
        `usageDetails.${k} (${shown(v)}) was not stored: a usage count must be a whole number >= 0${/cost/i.test(k) ? '; costs belong in costDetails' : ''}`,
      );
    }
  }
  if (isPlainObject(rawCost)) {
    for (const [k, v] of Object.entries(rawCost)) {
      if (v == null || (typeof v === 'number' && Number.isFinite(v) && v >= 0)) continue;
      out.push(`costDetails.${k} (${shown(v)}) was not stored: a cost must be a number >= 0`);
    }
  }
  return out;
}

/** the legacy `usage` counts parseLegacyUsage dropped */
export const legacyDroppedWarnings = (dropped: [string, unknown][] | undefined): string[] =>
  (dropped ?? []).map(([k, v]) => `usage.${k} (${shown(v)}) was not stored: a usage count must be a whole number >= 0`);

const CHAT_ONLY_KEYS = CHAT_COMPLETIONS_KEYS.filter((k) => k !== 'total_tokens');
const RESPONSES_DETAILS = ['input_tokens_details', 'output_tokens_details'];
const RESPONSES_COUNTS = ['input_tokens', 'output_tokens'];

function unmappedOpenAiWarnings(raw: Record<string, unknown>): string[] {
  const any = (ks: readonly string[]) => ks.some((k) => Object.hasOwn(raw, k));
  // total_tokens is shared by both shapes; input_tokens/output_tokens alone is the Anthropic
  // shape, which is fine stored flat, so Responses needs a details object or total_tokens too.
  const shape = any(CHAT_ONLY_KEYS)
    ? { name: 'OpenAI Chat Completions', allowed: CHAT_COMPLETIONS_KEYS, why: chatCompletionsMismatch(raw) }
    : any(RESPONSES_DETAILS) || (Object.hasOwn(raw, 'total_tokens') && any(RESPONSES_COUNTS))
      ? { name: 'OpenAI Responses', allowed: RESPONSES_KEYS, why: responsesMismatch(raw) }
      : null;
  if (!shape) return [];
  const keys = Object.keys(raw);
  const extra = keys.filter((k) => !shape.allowed.includes(k));
  const fix = extra.length ? `remove ${extra.map(q).join(', ')} to get it mapped` : `fix it (${shape.why}) to get it mapped`;
  return [
    `usageDetails looks like an ${shape.name} usage object but was stored unmapped as flat keys ` +
      `(no input/output mapping, nested *_details dropped, no detail subtraction, and the raw keys match no input/output price); ${fix}`,
  ];
}
