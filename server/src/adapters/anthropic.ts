// The `anthropic` adapter: the Messages API through @anthropic-ai/sdk, the only code that imports
// that SDK. Requests go through egressFetch, so the address connected to is checked against the
// egress policy; the SDK does not retry (maxRetries 0), the caller decides.
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { LlmError, sdkLlmError, type LlmAdapterCall, type LlmCall, type LlmConnectionTarget, type LlmResult } from '../domain/llm/call.ts';
import type { AllowList } from '../domain/llm/egress.ts';
import { egressFetch } from '../egress/egress-fetch.ts';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * The Messages API refuses a call without max_tokens, and Tally sends no parameter the caller did
 * not set, like Langfuse — except this one, which Anthropic makes mandatory. 4096 is what every
 * current Claude model can produce.
 */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const defined = (o: Obj) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/**
 * sendReasoning and structuredOutputMode are accepted (Langfuse accepts them) but change nothing on
 * the wire here: Tally's messages are plain text with no earlier reasoning to resend, and structured
 * output goes through a forced tool, not output_config.format.
 */
const TOP_LEVEL = new Set(['thinking', 'metadata', 'sendReasoning', 'disableParallelToolUse', 'structuredOutputMode', 'effort', 'speed']);
const THINKING_KEYS = new Set(['type', 'budget_tokens', 'budgetTokens', 'display']);
const THINKING_TYPES = new Set(['enabled', 'adaptive', 'disabled']);

export interface AnthropicOptions {
  thinking?: { type: 'enabled'; budget_tokens: number; display?: unknown } | { type: 'adaptive'; display?: unknown } | { type: 'disabled' };
  metadata?: { user_id: unknown };
  disableParallelToolUse?: boolean;
  effort?: unknown;
  speed?: unknown;
}

/**
 * provider options (Langfuse's Anthropic rules) checked and in wire shape; a nested `anthropic: {…}`
 * wins. `adapter` names the adapter in the error messages (google-vertex-ai serves Claude too).
 */
export function anthropicProviderOptions(options: Obj | undefined, adapter = 'anthropic'): AnthropicOptions {
  const unsupported = (keys: string[]) => new LlmError('invalid_request', `Unsupported ${adapter} provider options: ${keys.join(', ')}`);
  const { anthropic: nested, ...top } = options ?? {};
  if (nested !== undefined && !isObj(nested)) throw unsupported(['anthropic']);
  const all = Object.fromEntries(Object.entries({ ...top, ...(nested ?? {}) }).filter(([, v]) => v !== undefined));
  const unknown = Object.keys(all).filter((k) => !TOP_LEVEL.has(k));
  if (unknown.length) throw unsupported(unknown);

  const out: AnthropicOptions = {};
  if (all.thinking !== undefined) {
    const t = all.thinking;
    if (!isObj(t)) throw unsupported(['thinking']);
    const bad = Object.keys(t)
      .filter((k) => !THINKING_KEYS.has(k))
      .map((k) => `thinking.${k}`);
    if (bad.length) throw unsupported(bad);
    if (typeof t.type !== 'string' || !THINKING_TYPES.has(t.type))
      throw new LlmError('invalid_request', `${adapter} thinking.type must be enabled, adaptive or disabled`);
    const budget = t.budget_tokens ?? t.budgetTokens;
    // a budget with adaptive or disabled is dropped, as Langfuse does: it means nothing there
    if (t.type === 'enabled') {
      if (typeof budget !== 'number' || !Number.isInteger(budget) || budget <= 0)
        throw new LlmError('invalid_request', `${adapter} thinking of type enabled needs a positive integer budget_tokens`);
      out.thinking = defined({ type: 'enabled', budget_tokens: budget, display: t.display }) as AnthropicOptions['thinking'];
    } else if (t.type === 'adaptive') out.thinking = defined({ type: 'adaptive', display: t.display }) as AnthropicOptions['thinking'];
    else out.thinking = { type: 'disabled' };
  }
  if (all.metadata !== undefined) {
    const m = all.metadata;
    if (!isObj(m)) throw unsupported(['metadata']);
    const bad = Object.keys(m)
      .filter((k) => k !== 'user_id' && k !== 'userId')
      .map((k) => `metadata.${k}`);
    if (bad.length) throw unsupported(bad);
    const userId = m.user_id ?? m.userId;
    if (userId !== undefined) out.metadata = { user_id: userId };
  }
  if (all.disableParallelToolUse === true) out.disableParallelToolUse = true;
  if (all.effort !== undefined) out.effort = all.effort;
  if (all.speed !== undefined) out.speed = all.speed;
  return out;
}

export function anthropicBody(call: LlmCall, adapter = 'anthropic'): Obj {
  const options = anthropicProviderOptions(call.providerOptions, adapter);
  const system = call.messages.filter((m) => m.role === 'system').map((m) => m.content);
  const thinking = options.thinking;
  const thinkingOn = thinking !== undefined && thinking.type !== 'disabled';
  const maxTokens = (call.params.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS) + (thinking?.type === 'enabled' ? thinking.budget_tokens : 0);
  const parallel = options.disableParallelToolUse && call.tools?.length ? { disable_parallel_tool_use: true } : {};
  return defined({
    model: call.model,
    system: system.length ? system.join('\n\n') : undefined,
    messages: call.messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content })),
    max_tokens: maxTokens,
    // Anthropic refuses temperature and top_p alongside thinking; the AI SDK drops them too
    temperature: thinkingOn ? undefined : call.params.temperature,
    top_p: thinkingOn ? undefined : call.params.top_p,
    tools: call.tools?.map((t) => defined({ name: t.name, description: t.description, input_schema: t.parameters })),
    tool_choice: call.toolChoice
      ? { type: 'tool', name: call.toolChoice.name, ...parallel }
      : Object.keys(parallel).length
        ? { type: 'auto', ...parallel }
        : undefined,
    thinking,
    metadata: options.metadata,
    output_config: options.effort === undefined ? undefined : { effort: options.effort },
    speed: options.speed,
  });
}

export function parseMessage(m: Message): LlmResult {
  const texts: string[] = [];
  const toolCalls: LlmResult['toolCalls'] = [];
  for (const block of m.content ?? []) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'tool_use') toolCalls.push({ name: block.name, arguments: JSON.stringify(block.input ?? {}) });
  }
  const usage = m.usage && typeof m.usage === 'object' ? (m.usage as unknown as Obj) : null;
  return { text: texts.length ? texts.join('') : null, toolCalls, usage, model: m.model ?? null };
}

/** an SDK failure as an LlmError, the secrets redacted from its message */
export function toAnthropicLlmError(err: unknown, secrets: readonly string[]): LlmError {
  return sdkLlmError(err, secrets, { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError });
}

/**
 * SDK 1.12 sends an API key as `Authorization: Bearer`; the Messages API
 * and gateways in front of it expect `x-api-key`, so the key goes there and the SDK's bearer
 * header is removed (null deletes it) unless the connection sets its own Authorization header.
 */
function authHeaders(connection: LlmConnectionTarget): Record<string, string | null> {
  const custom = connection.extraHeaders;
  const ownAuthorization = Object.keys(custom).some((k) => k.toLowerCase() === 'authorization');
  return { ...(ownAuthorization ? {} : { authorization: null }), 'x-api-key': connection.secretKey, ...custom };
}

function client(connection: LlmConnectionTarget, call: LlmCall, egress: AllowList) {
  return new Anthropic({
    apiKey: connection.secretKey,
    // explicit nulls: no ANTHROPIC_AUTH_TOKEN from the environment may ride along with the key
    authToken: null,
    baseURL: (connection.baseUrl || ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, ''),
    defaultHeaders: authHeaders(connection),
    fetch: egressFetch(egress),
    timeout: call.timeoutMs,
    maxRetries: 0,
  });
}

export const callAnthropic: LlmAdapterCall = async (connection, call, egress) => {
  const secrets = [connection.secretKey, ...Object.values(connection.extraHeaders).filter((v) => v.length >= 8)];
  const options = call.signal ? { signal: call.signal } : undefined;
  try {
    const body = anthropicBody(call) as unknown as MessageCreateParamsNonStreaming;
    const sdk = client(connection, call, egress);
    const onText = call.onText;
    if (!onText) return parseMessage(await sdk.messages.create(body, options));
    const stream = sdk.messages.stream(body, options);
    stream.on('text', (delta) => onText(delta));
    return parseMessage(await stream.finalMessage());
  } catch (err) {
    throw toAnthropicLlmError(err, secrets);
  }
};
