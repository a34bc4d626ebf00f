// The `openai` adapter: Chat Completions, or the Responses API when the connection's
// config.useResponsesApi is set; any OpenAI-compatible vendor through baseURL. The only code that
// imports the openai SDK. Requests go through egressFetch, so the address connected to is
// checked against the egress policy; the SDK does not retry (maxRetries 0), the caller decides.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { Response as ResponsesResponse, ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import {
  type LlmError,
  sdkLlmError,
  type LlmAdapterCall,
  type LlmCall,
  type LlmConnectionTarget,
  type LlmResult,
} from '../domain/llm/call.ts';
import type { AllowList } from '../domain/llm/egress.ts';
import { egressFetch } from '../egress/egress-fetch.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

// camelCase forms of the OpenAI provider options Langfuse accepts, and their wire names
const WIRE_NAMES: Record<string, string> = {
  reasoningEffort: 'reasoning_effort',
  serviceTier: 'service_tier',
  parallelToolCalls: 'parallel_tool_calls',
  logitBias: 'logit_bias',
  maxCompletionTokens: 'max_completion_tokens',
  textVerbosity: 'verbosity',
  text_verbosity: 'verbosity',
  store: 'store',
  user: 'user',
};

/** provider options in wire case; a nested `openai: {…}` is merged in; unknown keys pass through */
export function openAiProviderOptions(options: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { openai: nested, ...top } = options ?? {};
  const all = { ...top, ...(nested && typeof nested === 'object' && !Array.isArray(nested) ? (nested as Record<string, unknown>) : {}) };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) out[WIRE_NAMES[k] ?? k] = v;
  return out;
}

// reasoning models take max_completion_tokens and refuse max_tokens
const isReasoningModel = (model: string) => /^(openai\/)?(o\d|gpt-5)/i.test(model);

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** `stream: false` is sent explicitly, as the spec's `llmJudgeRequest` webhook has it; the streaming call overrides it */
export function chatCompletionsBody(call: LlmCall): Record<string, unknown> {
  const { max_tokens, ...params } = call.params;
  return defined({
    model: call.model,
    messages: call.messages.map((m) => ({ role: m.role, content: m.content })),
    ...params,
    stream: false,
    ...(max_tokens === undefined ? {} : isReasoningModel(call.model) ? { max_completion_tokens: max_tokens } : { max_tokens }),
    tools: call.tools?.map((t) => ({
      type: 'function',
      function: defined({ name: t.name, description: t.description, parameters: t.parameters }),
    })),
    tool_choice: call.toolChoice ? { type: 'function', function: { name: call.toolChoice.name } } : undefined,
    ...openAiProviderOptions(call.providerOptions),
  });
}

/** The Responses API has no n, frequency_penalty or presence_penalty; they are not sent. */
export function responsesBody(call: LlmCall): Record<string, unknown> {
  const { reasoning_effort, verbosity, max_completion_tokens, ...options } = openAiProviderOptions(call.providerOptions);
  return defined({
    model: call.model,
    input: call.messages.map((m) => ({ role: m.role, content: m.content })),
    temperature: call.params.temperature,
    top_p: call.params.top_p,
    max_output_tokens: max_completion_tokens ?? call.params.max_tokens,
    tools: call.tools?.map((t) =>
      defined({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false }),
    ),
    tool_choice: call.toolChoice ? { type: 'function', name: call.toolChoice.name } : undefined,
    reasoning: reasoning_effort === undefined ? undefined : { effort: reasoning_effort },
    text: verbosity === undefined ? undefined : { verbosity },
    ...options,
  });
}

const asUsage = (u: unknown) => (u && typeof u === 'object' ? (u as Record<string, unknown>) : null);

export function parseChatCompletion(c: ChatCompletion): LlmResult {
  const message = c.choices?.[0]?.message;
  return {
    text: message?.content ?? null,
    toolCalls: (message?.tool_calls ?? []).flatMap((t) =>
      t.type === 'function' ? [{ name: t.function.name, arguments: t.function.arguments }] : [],
    ),
    usage: asUsage(c.usage),
    model: c.model ?? null,
  };
}

export function parseResponse(r: ResponsesResponse): LlmResult {
  const texts: string[] = [];
  const toolCalls: LlmResult['toolCalls'] = [];
  for (const item of r.output ?? []) {
    if (item.type === 'message') {
      for (const part of item.content) if (part.type === 'output_text') texts.push(part.text);
    } else if (item.type === 'function_call') {
      toolCalls.push({ name: item.name, arguments: item.arguments });
    }
  }
  return { text: texts.length ? texts.join('') : null, toolCalls, usage: asUsage(r.usage), model: r.model ?? null };
}

/** an SDK failure as an LlmError, the secrets redacted from its message */
export function toLlmError(err: unknown, secrets: readonly string[]): LlmError {
  return sdkLlmError(err, secrets, { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError });
}

function client(connection: LlmConnectionTarget, call: LlmCall, egress: AllowList) {
  // OpenAI-compatible gateways may carry the model in the base URL
  const baseURL = (connection.baseUrl || OPENAI_DEFAULT_BASE_URL).replaceAll('{model}', encodeURIComponent(call.model));
  return new OpenAI({
    apiKey: connection.secretKey,
    baseURL,
    defaultHeaders: connection.extraHeaders,
    fetch: egressFetch(egress),
    timeout: call.timeoutMs,
    maxRetries: 0,
  });
}

/** the Chat Completions call on an SDK client (OpenAI's or Azure's): whole, or streamed to `call.onText` */
export async function chatCompletion(sdk: OpenAI, call: LlmCall): Promise<LlmResult> {
  const options = call.signal ? { signal: call.signal } : undefined;
  const body = chatCompletionsBody(call) as unknown as ChatCompletionCreateParamsNonStreaming;
  const onText = call.onText;
  if (!onText) return parseChatCompletion(await sdk.chat.completions.create(body, options));
  // include_usage: the last chunk carries the usage object, which streaming omits otherwise
  const stream = sdk.chat.completions.stream({ ...body, stream: true, stream_options: { include_usage: true } }, options);
  stream.on('content', (delta) => onText(delta));
  return parseChatCompletion(await stream.finalChatCompletion());
}

export const callOpenAi: LlmAdapterCall = async (connection, call, egress) => {
  const secrets = [connection.secretKey, ...Object.values(connection.extraHeaders).filter((v) => v.length >= 8)];
  const options = call.signal ? { signal: call.signal } : undefined;
  try {
    const sdk = client(connection, call, egress);
    const onText = call.onText;
    if (connection.config?.useResponsesApi === true || connection.config?.useResponsesApi === 'true') {
      const body = responsesBody(call) as unknown as ResponseCreateParamsNonStreaming;
      if (!onText) return parseResponse(await sdk.responses.create(body, options));
      const stream = sdk.responses.stream(body as unknown as Parameters<typeof sdk.responses.stream>[0], options);
      stream.on('response.output_text.delta', (e) => onText(e.delta));
      return parseResponse(await stream.finalResponse());
    }
    return await chatCompletion(sdk, call);
  } catch (err) {
    throw toLlmError(err, secrets);
  }
};
