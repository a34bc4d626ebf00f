// Usage, cost and model extraction from a span's attributes: pure.
import { bucketOf, parentBucket } from '../../domain/usage/aliases.ts';
import { exclusiveOf } from '../../domain/usage/normalise.ts';
import { inputExcludesCache } from '../../domain/usage/semantics.ts';

export type Attributes = Record<string, unknown>;

/** parsed JSON read loosely (a type only): any property of it, undefined when absent */
type LooseObject = { readonly [key: string]: LooseObject | undefined };

/** a JSON-encoded object attribute; anything else (not a string, bad JSON, not an object) is {} */
export function jsonObject(v: unknown): Record<string, unknown> {
  if (typeof v !== 'string') return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  try {
    const parsed = JSON.parse(v);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

const num = (v: unknown): number | undefined => {
  if (v === undefined || v === null || v === '' || typeof v === 'boolean' || typeof v === 'object') return undefined;
  const n = Number(v);
  return Number.isNaN(n) ? undefined : n;
};
const floor0 = (n: number) => Math.max(0, n);

const AGENT_OPERATIONS = new Set(['invoke_agent', 'agent_step']);
/** AI SDK / GenAI agent spans carry their children's totals: no usage, cost or model (no double counting) */
export const isAgentAggregate = (a: Attributes) => AGENT_OPERATIONS.has(String(a['gen_ai.operation.name'] ?? ''));

/**
 * Every other scope: gen_ai.usage.* / llm.token_count.* read through the alias table
 * (domain/usage/aliases.ts), then made exclusive (exclusiveOf): every input_* / output_* detail is
 * taken off its parent once, unless the producer's input already excludes its cache (domain/usage/semantics.ts).
 */
function genericUsage(a: Attributes, scopeName: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  const other: Record<string, number> = {};
  for (const k in a) {
    let key: string | undefined;
    if (k.startsWith('gen_ai.usage.') && k !== 'gen_ai.usage.cost') key = k.slice('gen_ai.usage.'.length);
    else if (k.startsWith('llm.token_count.')) key = k.slice('llm.token_count.'.length);
    else if (k === 'llm.usage.total_tokens') key = 'total_tokens';
    if (key === undefined) continue;
    const n = num(a[k]);
    if (n === undefined) continue;
    const bucket = bucketOf(key);
    // two spellings of one bucket (OpenLLMetry sends both cache forms) are one count, not two
    if (bucket) out[bucket] ??= n;
    else other[key.startsWith('details.') ? key.slice('details.'.length) : key] = n;
  }
  const keepCache = inputExcludesCache(scopeName);
  const inputDetails: number[] = [];
  const outputDetails: number[] = [];
  for (const k in out) {
    if (k === 'input' || k === 'output' || k === 'total') continue;
    const parent = parentBucket(k);
    if (parent === 'input' && !(keepCache && (k === 'input_cached_tokens' || k.startsWith('input_cache_')))) inputDetails.push(out[k]!);
    else if (parent === 'output') outputDetails.push(out[k]!);
  }
  if (out.input !== undefined) out.input = exclusiveOf(out.input, inputDetails);
  if (out.output !== undefined) out.output = exclusiveOf(out.output, outputDetails);
  // such a producer's total leaves the cache out too (1,300 = input + output): the stored total
  // spans every bucket, and a short one would read as overlapping buckets to the overlap repair
  if (keepCache && out.total !== undefined) {
    let sum = 0;
    for (const k in out) if (k !== 'total') sum += out[k]!;
    out.total = Math.max(out.total, sum);
  }
  for (const k in other) if (!Object.hasOwn(out, k)) out[k] = other[k]!;
  return out;
}

/** the Vercel AI SDK (scope `ai`) */
function vercelUsage(a: Attributes): Record<string, number> {
  const out: Record<string, number> = {};
  const set = (k: string, v: unknown) => {
    const n = num(v);
    if (n !== undefined) out[k] = n;
  };
  set(
    'input',
    a['gen_ai.usage.prompt_tokens'] ?? a['gen_ai.usage.input_tokens'] ?? a['ai.usage.inputTokens'] ?? a['ai.usage.promptTokens'],
  );
  set(
    'output',
    a['gen_ai.usage.completion_tokens'] ?? a['gen_ai.usage.output_tokens'] ?? a['ai.usage.outputTokens'] ?? a['ai.usage.completionTokens'],
  );
  set('total', a['ai.usage.tokens'] ?? a['ai.usage.totalTokens']);
  set('input_cached_tokens', a['ai.usage.inputTokenDetails.cacheReadTokens'] ?? a['ai.usage.cachedInputTokens']);
  set('output_reasoning_tokens', a['ai.usage.outputTokenDetails.reasoningTokens'] ?? a['ai.usage.reasoningTokens']);
  set('input_cache_creation', a['ai.usage.inputTokenDetails.cacheWriteTokens']);
  const meta = jsonObject(a['ai.response.providerMetadata']) as LooseObject;
  const openai = meta.openai ?? {};
  set('input_cached_tokens', openai.cachedPromptTokens ?? out.input_cached_tokens);
  set('accepted_prediction_tokens', openai.acceptedPredictionTokens);
  set('rejected_prediction_tokens', openai.rejectedPredictionTokens);
  set('output_reasoning_tokens', openai.reasoningTokens ?? out.output_reasoning_tokens);
  const anthropic = meta.anthropic?.usage ?? meta.anthropic ?? {};
  set('input_cache_creation', anthropic.cache_creation_input_tokens ?? meta.anthropic?.cacheCreationInputTokens);
  set('input_cached_tokens', anthropic.cache_read_input_tokens ?? out.input_cached_tokens);
  set('input_cache_creation_5m', anthropic.cache_creation?.ephemeral_5m_input_tokens);
  set('input_cache_creation_1h', anthropic.cache_creation?.ephemeral_1h_input_tokens);
  if (out.input_cache_creation !== undefined)
    out.input_cache_creation = floor0(out.input_cache_creation - (out.input_cache_creation_5m ?? 0) - (out.input_cache_creation_1h ?? 0));
  const bedrock = meta.bedrock?.usage ?? {};
  set('input_cache_read', bedrock.cacheReadInputTokens);
  set('input_cache_write', bedrock.cacheWriteInputTokens);
  set('input_cache_creation', bedrock.cacheCreationInputTokens ?? out.input_cache_creation);
  // AI SDK 6+ splits the input itself, whatever the provider: its noCacheTokens is the exclusive
  // input, where subtracting provider metadata would depend on each provider's reporting
  const noCache = num(a['ai.usage.inputTokenDetails.noCacheTokens']);
  if (noCache !== undefined) out.input = noCache;
  else if (out.input !== undefined) {
    out.input = exclusiveOf(out.input, [
      out.input_cached_tokens ?? 0,
      out.input_cache_creation ?? 0,
      out.input_cache_creation_5m ?? 0,
      out.input_cache_creation_1h ?? 0,
      out.input_cache_read ?? 0,
      out.input_cache_write ?? 0,
    ]);
  }
  if (out.output !== undefined) out.output = exclusiveOf(out.output, [out.output_reasoning_tokens ?? 0]);
  return out;
}

/** Genkit model spans carry their usage in the `genkit:output` JSON */
function genkitUsage(a: Attributes): Record<string, number> | undefined {
  const usage = (jsonObject(a['genkit:output']) as LooseObject).usage;
  if (!usage || typeof usage !== 'object') return undefined;
  const out: Record<string, number> = {};
  const thoughts = num(usage.thoughtsTokens);
  const input = num(usage.inputTokens);
  const output = num(usage.outputTokens);
  const total = num(usage.totalTokens);
  if (input !== undefined) out.input = input;
  if (output !== undefined) out.output = exclusiveOf(output, [thoughts ?? 0]);
  if (total !== undefined) out.total = total;
  if (thoughts !== undefined) out.output_reasoning = thoughts;
  return out;
}

/** usage details of a span, or undefined when it carries none */
export function extractUsage(a: Attributes, scopeName: string | undefined): Record<string, unknown> | undefined {
  if (isAgentAggregate(a)) return undefined;
  if ('langfuse.observation.usage_details' in a) {
    const given = jsonObject(a['langfuse.observation.usage_details']);
    return Object.keys(given).length ? given : undefined;
  }
  let out: Record<string, number> | undefined;
  if (scopeName === 'genkit-tracer') out = genkitUsage(a);
  if (!out && scopeName === 'ai') out = vercelUsage(a);
  if (!out) {
    out = genericUsage(a, scopeName);
    if (scopeName === 'gcp.vertex.agent' && out.input_cached_tokens === undefined) {
      const cached = num((jsonObject(a['gcp.vertex.agent.llm_response']) as LooseObject).usage_metadata?.cached_content_token_count);
      if (cached !== undefined) {
        out.input_cached_tokens = cached;
        if (out.input !== undefined) out.input = exclusiveOf(out.input, [cached]);
      }
    }
  }
  return Object.keys(out).length ? out : undefined;
}

/** cost details of a span, or undefined */
export function extractCost(a: Attributes): Record<string, unknown> | undefined {
  if (isAgentAggregate(a)) return undefined;
  if ('langfuse.observation.cost_details' in a) {
    const given = jsonObject(a['langfuse.observation.cost_details']);
    return Object.keys(given).length ? given : undefined;
  }
  const cost = num(a['gen_ai.usage.cost']) ?? num(a['llm.cost.total']);
  return cost === undefined ? undefined : { total: cost };
}

export const MODEL_KEYS = [
  'langfuse.observation.model.name',
  'gen_ai.response.model',
  'ai.model.id',
  'gen_ai.request.model',
  'llm.response.model',
  'llm.model_name',
  'model',
];

/** the model name, first present key of MODEL_KEYS wins */
export function extractModel(a: Attributes): string | undefined {
  if (isAgentAggregate(a)) return undefined;
  for (const k of MODEL_KEYS) {
    const v = a[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}
