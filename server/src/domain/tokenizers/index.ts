// Usage inference by tokenizing observation input/output, as Langfuse does.
// Pure and synchronous: the worker pool (server/src/threads/tokenizer-pool.ts) runs this same code
// off the main thread for large values.
import { encoder, isEncoderLoaded, type Encoding } from './encoders.ts';
import { parseJsonPrioritised } from './json.ts';

export interface TokenizerRef {
  tokenizerId: string | null;
  tokenizerConfig: unknown;
}

export type InferredUsage = Record<string, number>;

const CHAT_KEYS = new Set(['content', 'role', 'name', 'tool_calls', 'function_call', 'toolCalls', 'functionCall']);

/** The vocabulary a tokenizer would use, or undefined when it cannot count at all. */
export function encodingOf(tokenizer: TokenizerRef): Encoding | undefined {
  if (tokenizer.tokenizerId === 'claude') return 'claude';
  if (tokenizer.tokenizerId !== 'openai') return undefined;
  const model = configOf(tokenizer).tokenizerModel;
  // Langfuse refuses a config without a (known) tokenizerModel; Tally keeps the refusal for a missing
  // one but maps every name to one of two vocabularies instead of tiktoken's model table.
  if (typeof model !== 'string' || model === '') return undefined;
  return openaiVocabulary(model);
}

/**
 * The vocabulary of an OpenAI model by family: o200k_base for gpt-4o, gpt-4.1, gpt-4.5, gpt-5 and
 * later (gpt-5.x, gpt-6…, with their -mini/-nano/-pro/-audio… variants), the o-series (o1, o3, o4…),
 * chatgpt-4o and the other gpt-N-less products of that generation (gpt-image, gpt-realtime, gpt-audio,
 * gpt-oss, codex-mini, computer-use…); cl100k_base for gpt-4 / gpt-4-turbo / gpt-4-32k, gpt-3.5 and
 * text-embedding-*, and for any name not recognised (tiktoken's fallback in Langfuse).
 * `openai/` and `ft:<base>:…` (a fine-tune counts as its base) are looked through.
 */
export function openaiVocabulary(model: string): 'o200k_base' | 'cl100k_base' {
  let name = model.trim().toLowerCase();
  if (name.startsWith('openai/')) name = name.slice('openai/'.length);
  if (name.startsWith('ft:')) name = name.slice(3).split(':')[0]!;
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.[1-9]|o[1-9]\d*(?![\w.])|codex-|computer-use)/.test(name)) return 'o200k_base';
  if (/^gpt-35(?!\d)/.test(name)) return 'cl100k_base'; // Azure's name for gpt-3.5
  // gpt-<major> with major >= 5 (gpt-5, gpt-5.4-mini, gpt-6-luna, gpt-10…)
  const major = /^gpt-(\d+)(?![\d])/.exec(name);
  if (major) return Number(major[1]) >= 5 ? 'o200k_base' : 'cl100k_base';
  // gpt-<word> products post-date gpt-4o (gpt-image-1, gpt-realtime, gpt-audio, gpt-oss-20b, gpt-chat-latest…)
  if (/^gpt-[a-z]/.test(name)) return 'o200k_base';
  return 'cl100k_base';
}

/** Whether counting with this tokenizer would run without first building an encoder in this thread. */
export function isTokenizerReady(tokenizer: TokenizerRef): boolean {
  const encoding = encodingOf(tokenizer);
  return encoding === undefined || isEncoderLoaded(encoding);
}

export function countTokens(tokenizer: TokenizerRef, value: unknown): number | undefined {
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
  const encoding = encodingOf(tokenizer);
  if (encoding === undefined) return undefined;
  const enc = encoder(encoding);

  if (encoding === 'claude') return encodeValue(enc.count, value);

  // Langfuse stores input/output as JSON text and parses it back before counting, so a string
  // holding a chat array is counted as messages and any other JSON is re-stringified compactly.
  const parsed = typeof value === 'string' ? parseJsonPrioritised(value) : value;
  if (isChatMessageArray(parsed)) {
    const { tokensPerMessage, tokensPerName } = configOf(tokenizer);
    if (typeof tokensPerMessage !== 'number' || typeof tokensPerName !== 'number') return undefined;
    let total = 0;
    for (const message of parsed) {
      total += tokensPerMessage;
      for (const [key, v] of Object.entries(message)) {
        if (v && CHAT_KEYS.has(key)) total += encodeValue(enc.count, v) ?? 0;
        if (key === 'name') total += tokensPerName;
      }
    }
    return total + 3; // every reply is primed with <|start|>assistant<|message|>
  }
  return encodeValue(enc.count, parsed);
}

/** {input, output, total} as Langfuse infers it; undefined when neither side could be counted. */
export function inferUsage(tokenizer: TokenizerRef, input: unknown, output: unknown): InferredUsage | undefined {
  const nIn = countTokens(tokenizer, input);
  const nOut = countTokens(tokenizer, output);
  if (nIn === undefined && nOut === undefined) return undefined;
  const usage: InferredUsage = {};
  if (nIn !== undefined) usage.input = nIn;
  if (nOut !== undefined) usage.output = nOut;
  // No total when both are zero (empty strings): Langfuse writes {input: 0, output: 0}.
  if (nIn || nOut) usage.total = (nIn ?? 0) + (nOut ?? 0);
  return usage;
}

function encodeValue(count: (text: string) => number, value: unknown): number | undefined {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? undefined : count(text);
}

function configOf(tokenizer: TokenizerRef): { tokenizerModel?: unknown; tokensPerMessage?: unknown; tokensPerName?: unknown } {
  const c = tokenizer.tokenizerConfig;
  return c !== null && typeof c === 'object' ? c : {};
}

interface ChatMessage {
  role: string;
  content: string;
  name?: string;
}

// Multimodal messages (content is an array) fail this test and are counted as stringified JSON.
function isChatMessageArray(value: unknown): value is ChatMessage[] {
  return (
    Array.isArray(value) &&
    value.every(
      (m: unknown) =>
        typeof m === 'object' &&
        m !== null &&
        typeof (m as ChatMessage).role === 'string' &&
        typeof (m as ChatMessage).content === 'string' &&
        (!('name' in m) || typeof (m as ChatMessage).name === 'string'),
    )
  );
}
