// One table of usage-key spellings, producer by producer, and the bucket each one names. The
// OTel mapping (ingestion/otel/usage.ts) reads span attributes through it; pricing
// (cost/calculate.ts) finds a price under another spelling of the same bucket through it; the
// usage warnings name two spellings of one bucket sent together from it. Rows say why they exist:
// each was seen from a real instrumentation or documented by the producer.

/** the buckets Tally stores (Langfuse's own key names) */
export type Bucket =
  | 'input'
  | 'output'
  | 'total'
  | 'input_cached_tokens'
  | 'input_cache_creation'
  | 'input_cache_creation_5m'
  | 'input_cache_creation_1h'
  | 'input_audio_tokens'
  | 'input_image_tokens'
  | 'input_text_tokens'
  | 'output_reasoning_tokens'
  | 'output_audio_tokens'
  | 'output_image_tokens'
  | 'output_text_tokens'
  | 'output_accepted_prediction_tokens'
  | 'output_rejected_prediction_tokens';

export interface AliasRow {
  /** who sends it */
  producer: string;
  /** the key as sent: an attribute name without its `gen_ai.usage.` / `llm.token_count.` / `ai.usage.` prefix, or a usageDetails key */
  key: string;
  bucket: Bucket;
  why: string;
}

export const ALIAS_TABLE: readonly AliasRow[] = [
  // Langfuse's own keys (usageDetails, langfuse.observation.usage_details)
  { producer: 'Langfuse', key: 'input', bucket: 'input', why: 'the canonical input bucket' },
  { producer: 'Langfuse', key: 'output', bucket: 'output', why: 'the canonical output bucket' },
  { producer: 'Langfuse', key: 'total', bucket: 'total', why: 'the sum of all buckets' },
  {
    producer: 'Langfuse',
    key: 'input_cached_tokens',
    bucket: 'input_cached_tokens',
    why: 'what Langfuse maps prompt_tokens_details.cached_tokens to',
  },
  {
    producer: 'Langfuse',
    key: 'input_cache_read',
    bucket: 'input_cached_tokens',
    why: "Langfuse's managed Anthropic and Bedrock prices use this spelling",
  },
  {
    producer: 'Langfuse',
    key: 'input_cache_creation',
    bucket: 'input_cache_creation',
    why: 'what Langfuse maps Anthropic cache writes to',
  },
  {
    producer: 'Langfuse',
    key: 'input_cache_write',
    bucket: 'input_cache_creation',
    why: "Langfuse's Bedrock mapping (cacheWriteInputTokens)",
  },
  { producer: 'Langfuse', key: 'input_cache_creation_5m', bucket: 'input_cache_creation_5m', why: 'Anthropic 5-minute cache writes' },
  { producer: 'Langfuse', key: 'input_cache_creation_1h', bucket: 'input_cache_creation_1h', why: 'Anthropic 1-hour cache writes' },
  {
    producer: 'Langfuse',
    key: 'output_reasoning_tokens',
    bucket: 'output_reasoning_tokens',
    why: 'what Langfuse maps completion_tokens_details.reasoning_tokens to',
  },
  { producer: 'Langfuse', key: 'output_reasoning', bucket: 'output_reasoning_tokens', why: "Langfuse's Genkit mapping (thoughtsTokens)" },
  { producer: 'Langfuse', key: 'input_audio_tokens', bucket: 'input_audio_tokens', why: 'prompt_tokens_details.audio_tokens, mapped' },
  {
    producer: 'Langfuse',
    key: 'output_audio_tokens',
    bucket: 'output_audio_tokens',
    why: 'completion_tokens_details.audio_tokens, mapped',
  },
  {
    producer: 'Langfuse',
    key: 'output_accepted_prediction_tokens',
    bucket: 'output_accepted_prediction_tokens',
    why: 'completion_tokens_details, mapped',
  },
  {
    producer: 'Langfuse',
    key: 'output_rejected_prediction_tokens',
    bucket: 'output_rejected_prediction_tokens',
    why: 'completion_tokens_details, mapped',
  },
  {
    producer: 'Langfuse',
    key: 'accepted_prediction_tokens',
    bucket: 'output_accepted_prediction_tokens',
    why: "Langfuse's AI SDK mapping (openai.acceptedPredictionTokens)",
  },
  {
    producer: 'Langfuse',
    key: 'rejected_prediction_tokens',
    bucket: 'output_rejected_prediction_tokens',
    why: "Langfuse's AI SDK mapping (openai.rejectedPredictionTokens)",
  },
  {
    producer: 'Anthropic API',
    key: 'cache_read_input_tokens',
    bucket: 'input_cached_tokens',
    why: "the Messages API's usage field, sent flat by hand-written instrumentation",
  },
  { producer: 'Anthropic API', key: 'cache_creation_input_tokens', bucket: 'input_cache_creation', why: "the Messages API's usage field" },
  {
    producer: 'hand-set',
    key: 'reasoning_tokens',
    bucket: 'output_reasoning_tokens',
    why: 'completion_tokens_details.reasoning_tokens sent flat',
  },
  { producer: 'hand-set', key: 'cached_tokens', bucket: 'input_cached_tokens', why: 'prompt_tokens_details.cached_tokens sent flat' },

  // OpenTelemetry GenAI semantic conventions (gen_ai.usage.*)
  {
    producer: 'OTel GenAI',
    key: 'input_tokens',
    bucket: 'input',
    why: 'gen_ai.usage.input_tokens (includes cached tokens, as OpenAI reports)',
  },
  { producer: 'OTel GenAI', key: 'output_tokens', bucket: 'output', why: 'gen_ai.usage.output_tokens (includes reasoning tokens)' },
  { producer: 'OTel GenAI', key: 'cache_read.input_tokens', bucket: 'input_cached_tokens', why: 'gen_ai.usage.cache_read.input_tokens' },
  {
    producer: 'OTel GenAI',
    key: 'cache_creation.input_tokens',
    bucket: 'input_cache_creation',
    why: 'gen_ai.usage.cache_creation.input_tokens',
  },
  {
    producer: 'OTel GenAI',
    key: 'reasoning.output_tokens',
    bucket: 'output_reasoning_tokens',
    why: 'gen_ai.usage.reasoning.output_tokens',
  },
  // the Anthropic SDK's own spans spell the write as cache_write
  {
    producer: 'Anthropic SDK spans',
    key: 'cache_write.input_tokens',
    bucket: 'input_cache_creation',
    why: 'gen_ai.usage.cache_write.input_tokens',
  },
  { producer: 'Anthropic SDK spans', key: 'cache_read_tokens', bucket: 'input_cached_tokens', why: 'gen_ai.usage.cache_read_tokens' },
  { producer: 'Anthropic SDK spans', key: 'cache_write_tokens', bucket: 'input_cache_creation', why: 'gen_ai.usage.cache_write_tokens' },

  // OpenLLMetry (Traceloop): older GenAI names plus its own cache keys
  { producer: 'OpenLLMetry', key: 'prompt_tokens', bucket: 'input', why: 'gen_ai.usage.prompt_tokens' },
  { producer: 'OpenLLMetry', key: 'completion_tokens', bucket: 'output', why: 'gen_ai.usage.completion_tokens' },
  { producer: 'OpenLLMetry', key: 'total_tokens', bucket: 'total', why: 'llm.usage.total_tokens / gen_ai.usage.total_tokens' },
  { producer: 'OpenLLMetry', key: 'cache_read_input_tokens', bucket: 'input_cached_tokens', why: 'gen_ai.usage.cache_read_input_tokens' },
  {
    producer: 'OpenLLMetry',
    key: 'cache_creation_input_tokens',
    bucket: 'input_cache_creation',
    why: 'gen_ai.usage.cache_creation_input_tokens',
  },
  { producer: 'OpenLLMetry', key: 'reasoning_tokens', bucket: 'output_reasoning_tokens', why: 'gen_ai.usage.reasoning_tokens' },

  // OpenInference (llm.token_count.*)
  { producer: 'OpenInference', key: 'prompt', bucket: 'input', why: 'llm.token_count.prompt (includes its details)' },
  { producer: 'OpenInference', key: 'completion', bucket: 'output', why: 'llm.token_count.completion (includes its details)' },
  { producer: 'OpenInference', key: 'total', bucket: 'total', why: 'llm.token_count.total' },
  {
    producer: 'OpenInference',
    key: 'prompt_details.cache_read',
    bucket: 'input_cached_tokens',
    why: 'llm.token_count.prompt_details.cache_read',
  },
  {
    producer: 'OpenInference',
    key: 'prompt_details.cache_write',
    bucket: 'input_cache_creation',
    why: 'llm.token_count.prompt_details.cache_write',
  },
  {
    producer: 'OpenInference',
    key: 'prompt_details.cache_input',
    bucket: 'input_cached_tokens',
    why: 'llm.token_count.prompt_details.cache_input (older spelling)',
  },
  { producer: 'OpenInference', key: 'prompt_details.audio', bucket: 'input_audio_tokens', why: 'llm.token_count.prompt_details.audio' },
  {
    producer: 'OpenInference',
    key: 'completion_details.reasoning',
    bucket: 'output_reasoning_tokens',
    why: 'llm.token_count.completion_details.reasoning',
  },
  {
    producer: 'OpenInference',
    key: 'completion_details.audio',
    bucket: 'output_audio_tokens',
    why: 'llm.token_count.completion_details.audio',
  },

  // Pydantic AI and others that nest under details.
  {
    producer: 'Pydantic AI',
    key: 'details.cache_read_tokens',
    bucket: 'input_cached_tokens',
    why: 'gen_ai.usage.details.cache_read_tokens',
  },
  {
    producer: 'Pydantic AI',
    key: 'details.cache_read_input_tokens',
    bucket: 'input_cached_tokens',
    why: 'gen_ai.usage.details.cache_read_input_tokens',
  },
  {
    producer: 'Pydantic AI',
    key: 'details.cache_write_tokens',
    bucket: 'input_cache_creation',
    why: 'gen_ai.usage.details.cache_write_tokens',
  },
  {
    producer: 'Pydantic AI',
    key: 'details.cache_creation_input_tokens',
    bucket: 'input_cache_creation',
    why: 'gen_ai.usage.details.cache_creation_input_tokens',
  },
];

/** key → bucket, over every producer (a key means the same bucket whoever sends it) */
const BY_KEY = new Map<string, Bucket>(ALIAS_TABLE.map((r) => [r.key, r.bucket]));

export const bucketOf = (key: string): Bucket | undefined => BY_KEY.get(key);

/**
 * usageDetails-style keys (no dots) that name the same detail bucket: what a price may be stored
 * under. Not input/output/total: `prompt_tokens` beside `input` is an unmapped OpenAI object,
 * whose counts include their details, and is left as it came (stored flat, unpriced).
 */
const SPELLINGS = new Map<Bucket, string[]>();
for (const r of ALIAS_TABLE) {
  if (r.key.includes('.') || r.bucket === 'input' || r.bucket === 'output' || r.bucket === 'total') continue;
  const list = SPELLINGS.get(r.bucket) ?? [];
  if (!list.includes(r.key)) SPELLINGS.set(r.bucket, [...list, r.key]);
}

/** the other flat spellings of `key`'s bucket (not `key` itself) */
export function otherSpellings(key: string): string[] {
  const b = BY_KEY.get(key);
  return b ? (SPELLINGS.get(b) ?? []).filter((k) => k !== key) : [];
}

/** groups of two or more flat spellings of one bucket, for the "sent twice" warning */
export const SPELLING_GROUPS: readonly (readonly string[])[] = [...SPELLINGS.values()].filter((g) => g.length > 1);

/**
 * The bucket a detail is part of, for pricing it when its own price is missing: providers bill
 * cached, audio, reasoning and prediction tokens as input or output unless they price them
 * apart. The rule of the input/output roll-ups (aggregate.ts): a key containing "input" counts as input, one
 * containing "output" as output. `total`, `input` and `output` have no parent.
 */
export function parentBucket(key: string): 'input' | 'output' | null {
  if (key === 'input' || key === 'output' || key === 'total') return null;
  // a detail spelled otherwise (cached_tokens) goes by its bucket; an input/output count spelled
  // otherwise by its own name (input_tokens is input; prompt_tokens, an unmapped OpenAI count
  // that includes its details, has none)
  const b = BY_KEY.get(key);
  const k = b && b !== 'input' && b !== 'output' && b !== 'total' ? b : key;
  if (k.startsWith('input')) return 'input';
  if (k.startsWith('output')) return 'output';
  if (k.includes('input')) return 'input';
  if (k.includes('output')) return 'output';
  return null;
}
