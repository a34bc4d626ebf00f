// Provider usage objects → Tally's mutually exclusive usage buckets.
//
// Every token lands in exactly one bucket: `input` excludes whatever an `input_*` bucket counts,
// `output` excludes whatever an `output_*` bucket counts, and `total` spans all of them. The keys
// are the ones the server and the managed model prices use, so each bucket is priced:
//   input, output, total, input_cached_tokens, input_cache_read, input_cache_creation,
//   input_cache_creation_5m, input_cache_creation_1h, output_reasoning_tokens,
//   input_audio_tokens, input_cached_audio_tokens, output_audio_tokens, ...
//
// Plain functions, no dependencies, no Node-only APIs: they run in Node 20+ and browsers.
import { openAIBuckets } from '../../shared/usage/inclusive.ts';

/** Tally usage buckets: pass as `usageDetails` of a generation. */
export type UsageBuckets = Record<string, number>;

type Count = number | null | undefined;

/** A usage count as sent by providers: a non-negative integer, anything else counts as absent. */
function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const sum = (values: Iterable<number>) => {
  let s = 0;
  for (const v of values) s += v;
  return s;
};

/** Buckets plus `total` = their sum (every token is in exactly one bucket). */
function withTotal(buckets: [string, number][]): UsageBuckets {
  const out: UsageBuckets = Object.fromEntries(buckets);
  out.total = sum(buckets.map(([, v]) => v));
  return out;
}

// ---------------------------------------------------------------------------------------------
// OpenAI

/** The details of an OpenAI usage object that carry a count. */
function detailCounts(details: unknown): [string, number][] {
  if (!isObject(details)) return [];
  const out: [string, number][] = [];
  for (const [k, v] of Object.entries(details)) {
    const n = count(v);
    if (n !== undefined) out.push([k, n]);
  }
  return out;
}

/** OpenAI Chat Completions `usage`. */
export interface OpenAIChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number | null;
  prompt_tokens_details?: Record<string, Count> | null;
  completion_tokens_details?: Record<string, Count> | null;
  [extra: string]: unknown;
}

/** OpenAI Responses API `usage`. */
export interface OpenAIResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens?: number | null;
  input_tokens_details?: Record<string, Count> | null;
  output_tokens_details?: Record<string, Count> | null;
  [extra: string]: unknown;
}

/**
 * OpenAI usage (Chat Completions or Responses) as exclusive buckets.
 *
 * OpenAI's counts are inclusive: `prompt_tokens` / `input_tokens` include cached and audio
 * tokens, `completion_tokens` / `output_tokens` include reasoning, audio and prediction tokens.
 * Each detail `k` becomes `input_<k>` / `output_<k>` and is subtracted from `input` / `output`
 * exactly once (clamped at 0): the rule the server applies to a raw OpenAI usage object, from the
 * same module (shared/usage/inclusive.ts), so sending the helper's output or the untouched
 * object stores the same buckets. `total` is
 * OpenAI's `total_tokens` (the sum of the buckets when absent). Keys other than the usage fields
 * (a gateway's `cost`, ...) are ignored.
 */
export function usageFromOpenAI(usage: OpenAIChatUsage | OpenAIResponsesUsage): UsageBuckets {
  const u = usage as Record<string, unknown>;
  const chat = 'prompt_tokens' in u || 'completion_tokens' in u;
  const inputKey = chat ? 'prompt_tokens' : 'input_tokens';
  const outputKey = chat ? 'completion_tokens' : 'output_tokens';
  const inputDetails = u[chat ? 'prompt_tokens_details' : 'input_tokens_details'];
  const outputDetails = u[chat ? 'completion_tokens_details' : 'output_tokens_details'];

  const { input, output, details } = openAIBuckets(
    count(u[inputKey]) ?? 0,
    count(u[outputKey]) ?? 0,
    detailCounts(inputDetails),
    detailCounts(outputDetails),
  );
  const buckets: [string, number][] = [['input', input], ['output', output], ...details];
  const total = count(u.total_tokens);
  if (total === undefined) return withTotal(buckets);
  return Object.fromEntries([['input', input], ['output', output], ['total', total], ...details]);
}

// ---------------------------------------------------------------------------------------------
// Anthropic

/** Anthropic Messages API `usage`. */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: Count; ephemeral_1h_input_tokens?: Count } | null;
  [extra: string]: unknown;
}

/**
 * Anthropic Messages usage as exclusive buckets. `input_tokens` already excludes cache reads
 * and writes, so nothing is subtracted from it:
 *   input ← input_tokens, output ← output_tokens, input_cache_read ← cache_read_input_tokens,
 *   input_cache_creation_5m / input_cache_creation_1h ← cache_creation.ephemeral_5m/1h_input_tokens
 *   when the split is reported (any write not covered by the split stays in input_cache_creation),
 *   else input_cache_creation ← cache_creation_input_tokens; total = sum of the buckets.
 * Zero cache buckets are left out. Server-tool counts (web searches) are not tokens and are
 * not mapped.
 */
export function usageFromAnthropic(usage: AnthropicUsage): UsageBuckets {
  const u = usage as Record<string, unknown>;
  const buckets: [string, number][] = [
    ['input', count(u.input_tokens) ?? 0],
    ['output', count(u.output_tokens) ?? 0],
  ];
  const read = count(u.cache_read_input_tokens) ?? 0;
  if (read > 0) buckets.push(['input_cache_read', read]);
  const creation = count(u.cache_creation_input_tokens) ?? 0;
  const split = isObject(u.cache_creation) ? u.cache_creation : undefined;
  const fiveMin = count(split?.ephemeral_5m_input_tokens);
  const oneHour = count(split?.ephemeral_1h_input_tokens);
  if (fiveMin === undefined && oneHour === undefined) {
    if (creation > 0) buckets.push(['input_cache_creation', creation]);
  } else {
    if (fiveMin) buckets.push(['input_cache_creation_5m', fiveMin]);
    if (oneHour) buckets.push(['input_cache_creation_1h', oneHour]);
    const rest = Math.max(creation - (fiveMin ?? 0) - (oneHour ?? 0), 0);
    if (rest > 0) buckets.push(['input_cache_creation', rest]);
  }
  return withTotal(buckets);
}

// ---------------------------------------------------------------------------------------------
// Gemini

export interface GeminiModalityTokenCount {
  modality?: string;
  tokenCount?: number;
}

/** Gemini / Vertex AI `usageMetadata`. */
export interface GeminiUsageMetadata {
  promptTokenCount?: number | null;
  cachedContentTokenCount?: number | null;
  candidatesTokenCount?: number | null;
  thoughtsTokenCount?: number | null;
  toolUsePromptTokenCount?: number | null;
  totalTokenCount?: number | null;
  promptTokensDetails?: GeminiModalityTokenCount[] | null;
  cacheTokensDetails?: GeminiModalityTokenCount[] | null;
  candidatesTokensDetails?: GeminiModalityTokenCount[] | null;
  toolUsePromptTokensDetails?: GeminiModalityTokenCount[] | null;
  [extra: string]: unknown;
}

function modalityCount(details: unknown, modality: string): number {
  if (!Array.isArray(details)) return 0;
  return sum(
    details.filter((d) => isObject(d) && d.modality === modality).map((d) => count((d as GeminiModalityTokenCount).tokenCount) ?? 0),
  );
}

/**
 * Gemini `usageMetadata` (or a whole `GenerateContentResponse`, whose `usageMetadata` is read)
 * as exclusive buckets. `promptTokenCount` includes `cachedContentTokenCount`; candidates and
 * thoughts are reported apart; tool-use prompt tokens are apart from the prompt and billed as
 * input:
 *   input_cached_tokens ← cachedContentTokenCount (its AUDIO part → input_cached_audio_tokens)
 *   input_audio_tokens  ← AUDIO part of promptTokensDetails minus the cached AUDIO part
 *   input  ← promptTokenCount − cached − input audio + toolUsePromptTokenCount
 *   output ← candidatesTokenCount, output_reasoning_tokens ← thoughtsTokenCount
 *   total  ← sum of the buckets (Gemini's totalTokenCount for a consistent response)
 * Audio is split out because Gemini prices it apart (the managed flash prices have
 * input_audio_tokens / input_cached_audio_tokens); other modalities are billed as text input.
 */
export function usageFromGemini(usage: GeminiUsageMetadata | { usageMetadata: GeminiUsageMetadata }): UsageBuckets {
  const u = (
    isObject((usage as { usageMetadata?: unknown }).usageMetadata) ? (usage as { usageMetadata: GeminiUsageMetadata }).usageMetadata : usage
  ) as Record<string, unknown>;
  const prompt = count(u.promptTokenCount) ?? 0;
  const cached = Math.min(count(u.cachedContentTokenCount) ?? 0, prompt);
  const cachedAudio = Math.min(modalityCount(u.cacheTokensDetails, 'AUDIO'), cached);
  const promptAudio = modalityCount(u.promptTokensDetails, 'AUDIO');
  const audio = Math.min(Math.max(promptAudio - cachedAudio, 0), prompt - cached);
  const toolUse = count(u.toolUsePromptTokenCount) ?? 0;
  const buckets: [string, number][] = [
    ['input', prompt - cached - audio + toolUse],
    ['output', count(u.candidatesTokenCount) ?? 0],
  ];
  if (cached - cachedAudio > 0) buckets.push(['input_cached_tokens', cached - cachedAudio]);
  if (cachedAudio > 0) buckets.push(['input_cached_audio_tokens', cachedAudio]);
  if (audio > 0) buckets.push(['input_audio_tokens', audio]);
  const thoughts = count(u.thoughtsTokenCount) ?? 0;
  if (thoughts > 0) buckets.push(['output_reasoning_tokens', thoughts]);
  return withTotal(buckets);
}

// ---------------------------------------------------------------------------------------------
// Bedrock

/** Amazon Bedrock Converse / ConverseStream `usage`. */
export interface BedrockUsage {
  inputTokens?: number | null;
  outputTokens?: number | null;
  totalTokens?: number | null;
  cacheReadInputTokens?: number | null;
  cacheWriteInputTokens?: number | null;
  [extra: string]: unknown;
}

/**
 * Bedrock Converse usage (or a whole Converse response, whose `usage` is read) as exclusive
 * buckets. `inputTokens` excludes cache reads and writes (`totalTokens` = input + output + cache
 * read + cache write), so nothing is subtracted:
 *   input ← inputTokens, output ← outputTokens, input_cache_read ← cacheReadInputTokens,
 *   input_cache_creation ← cacheWriteInputTokens, total ← sum of the buckets.
 */
export function usageFromBedrock(usage: BedrockUsage | { usage: BedrockUsage }): UsageBuckets {
  const u = (isObject((usage as { usage?: unknown }).usage) ? (usage as { usage: BedrockUsage }).usage : usage) as Record<string, unknown>;
  const buckets: [string, number][] = [
    ['input', count(u.inputTokens) ?? 0],
    ['output', count(u.outputTokens) ?? 0],
  ];
  const read = count(u.cacheReadInputTokens) ?? 0;
  if (read > 0) buckets.push(['input_cache_read', read]);
  const write = count(u.cacheWriteInputTokens) ?? 0;
  if (write > 0) buckets.push(['input_cache_creation', write]);
  return withTotal(buckets);
}
