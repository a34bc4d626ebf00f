// The `google-ai-studio` adapter: Gemini's generateContent through @google/genai in API-key mode,
// the only code that imports that SDK for AI Studio. The SDK takes a custom fetch
// (httpOptions.fetch), so requests go through egressFetch and the address connected to is checked
// against the egress policy. The SDK only retries when given retryOptions, which it is not.
import { ApiError, GoogleGenAI, type GenerateContentConfig, type GenerateContentResponse, type Part } from '@google/genai';
import {
  causeChain,
  classifyHttpError,
  egressRefusal,
  LlmError,
  readableProviderMessage,
  redact,
  type LlmAdapterCall,
  type LlmCall,
  type LlmParams,
  type LlmResult,
} from '../domain/llm/call.ts';
import { egressFetch } from '../egress/egress-fetch.ts';

export const GOOGLE_AI_STUDIO_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const invalid = (message: string) => new LlmError('invalid_request', message);

const LEVELS = new Set(['minimal', 'low', 'medium', 'high']);

/**
 * Gemini's thinkingConfig from provider options (Langfuse's rules for Google and Vertex Gemini), or
 * undefined when no thinking option is set. Only thinkingBudget and thinkingLevel are read (and
 * maxReasoningTokens, which takes precedence, for Vertex only); a nested `google: {…}` wins over
 * top-level keys; anything else is ignored. includeThoughts and the "pro" checks use the budget and
 * level after the pro adjustments, i.e. what is actually sent.
 * Throws LlmError('invalid_request') for a combination the model family cannot take.
 */
export function geminiThinkingConfig(model: string, options: Obj | undefined, opts: { vertex?: boolean } = {}): Obj | undefined {
  const { google: nested, ...top } = options ?? {};
  const all: Obj = { ...top, ...(isObj(nested) ? nested : {}) };
  // the messages name the adapter, and the budget option the caller actually set
  const adapter = opts.vertex ? 'google-vertex-ai' : 'google-ai-studio';
  const budgetKey = opts.vertex && all.maxReasoningTokens != null ? 'maxReasoningTokens' : 'thinkingBudget';
  const rawBudget = all[budgetKey];
  const rawLevel = all.thinkingLevel;
  if (rawBudget !== undefined && (typeof rawBudget !== 'number' || !Number.isInteger(rawBudget)))
    throw invalid(`${adapter} ${budgetKey} must be an integer`);
  if (rawLevel !== undefined && typeof rawLevel !== 'string') throw invalid(`${adapter} thinkingLevel must be a string`);
  if (rawBudget === undefined && rawLevel === undefined) return undefined;

  const name = model.toLowerCase().replace(/^.*\//, '');
  const isPro = name.includes('pro');
  if (name.startsWith('gemini-2.5')) {
    if (rawBudget === undefined) throw invalid(`${adapter}: ${model} takes ${budgetKey}, not thinkingLevel`);
    // gemini-2.5-pro cannot stop thinking: its smallest budget is 128
    const budget = name.startsWith('gemini-2.5-pro') && rawBudget >= 0 && rawBudget < 128 ? 128 : rawBudget;
    return { thinkingBudget: budget, includeThoughts: !(budget === 0 || (isPro && budget === 128)) };
  }
  if (rawLevel === undefined) throw invalid(`${adapter}: ${model} takes thinkingLevel (minimal, low, medium or high), not ${budgetKey}`);
  let level = rawLevel.toLowerCase();
  if (!LEVELS.has(level)) throw invalid(`${adapter} thinkingLevel must be minimal, low, medium or high, not ${JSON.stringify(rawLevel)}`);
  // the pro models do not offer every level; the nearest one they do is sent
  if (name.startsWith('gemini-3.1-pro')) level = level === 'minimal' ? 'low' : level;
  else if (name.startsWith('gemini-3-pro')) level = level === 'minimal' ? 'low' : level === 'medium' ? 'high' : level;
  return { thinkingLevel: level, includeThoughts: level !== 'minimal' };
}

const defined = (o: Obj) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** the call parameters in Gemini's generationConfig names (AI Studio and Vertex); unset ones are not sent */
export function geminiGenerationParams(p: LlmParams): Obj {
  return defined({
    temperature: p.temperature,
    topP: p.top_p,
    maxOutputTokens: p.max_tokens,
    frequencyPenalty: p.frequency_penalty,
    presencePenalty: p.presence_penalty,
    candidateCount: p.n,
  });
}

/** the SDK's generateContent parameters: contents and the flattened config */
export function geminiRequest(
  call: LlmCall,
  opts: { vertex?: boolean } = {},
): { model: string; contents: { role: string; parts: { text: string }[] }[]; config: GenerateContentConfig } {
  const system = call.messages.filter((m) => m.role === 'system').map((m) => m.content);
  const config = defined({
    systemInstruction: system.length ? system.join('\n\n') : undefined,
    ...geminiGenerationParams(call.params),
    // parametersJsonSchema takes the tool's JSON Schema as is (no conversion to Gemini's Schema subset)
    tools: call.tools?.length
      ? [
          {
            functionDeclarations: call.tools.map((t) =>
              defined({ name: t.name, description: t.description, parametersJsonSchema: t.parameters }),
            ),
          },
        ]
      : undefined,
    toolConfig: call.toolChoice ? { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [call.toolChoice.name] } } : undefined,
    thinkingConfig: geminiThinkingConfig(call.model, call.providerOptions, opts),
    abortSignal: call.signal,
  }) as GenerateContentConfig;
  const contents = call.messages
    .filter((m) => m.role !== 'system')
    .map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] }));
  return { model: call.model, contents, config };
}

/** folds answers (one, or a stream's chunks) into an LlmResult; thought parts are not text */
export class GeminiAccumulator {
  private texts: string[] = [];
  private toolCalls: LlmResult['toolCalls'] = [];
  private usage: Obj | null = null;
  private model: string | null = null;

  /** returns the new visible text of this answer */
  add(r: GenerateContentResponse): string {
    let delta = '';
    for (const part of (r.candidates?.[0]?.content?.parts ?? []) as Part[]) {
      if (part.functionCall)
        this.toolCalls.push({ name: part.functionCall.name ?? '', arguments: JSON.stringify(part.functionCall.args ?? {}) });
      else if (typeof part.text === 'string' && !part.thought) delta += part.text;
    }
    if (delta) this.texts.push(delta);
    // streaming repeats usageMetadata on each chunk; the last one is the total
    if (isObj(r.usageMetadata)) this.usage = r.usageMetadata as Obj;
    if (r.modelVersion) this.model = r.modelVersion;
    return delta;
  }

  result(fallbackModel: string): LlmResult {
    return {
      text: this.texts.length ? this.texts.join('') : null,
      toolCalls: this.toolCalls,
      usage: this.usage,
      model: this.model ?? fallbackModel,
    };
  }
}

/** a @google/genai failure as an LlmError, the secrets redacted from its message */
export function toGoogleLlmError(err: unknown, secrets: readonly string[]): LlmError {
  if (err instanceof LlmError) return err;
  const clean = (m: string) => redact(m, secrets);
  const refused = egressRefusal(err, secrets);
  if (refused) return refused;
  const chain = causeChain(err);
  // the SDK aborts the fetch itself when httpOptions.timeout passes, and on call.signal
  if (chain.some((e) => e.name === 'AbortError' || e.name === 'TimeoutError'))
    return new LlmError('timeout', clean('the provider did not answer in time'));
  if (err instanceof ApiError && typeof err.status === 'number')
    return new LlmError(classifyHttpError(err.status, err.message), clean(readableProviderMessage(err.message)), err.status);
  // undici's "fetch failed" carries the socket error (ECONNREFUSED, ENOTFOUND, …) as its cause
  if (err instanceof TypeError && chain.length > 1)
    return new LlmError('unreachable', clean(`the provider is unreachable: ${String(chain.at(-1)?.message ?? err.message)}`));
  return new LlmError('provider_error', clean(err instanceof Error ? err.message : String(err)));
}

export const callGoogleAiStudio: LlmAdapterCall = async (connection, call, egress) => {
  const secrets = [connection.secretKey, ...Object.values(connection.extraHeaders).filter((v) => v.length >= 8)];
  try {
    const request = geminiRequest(call);
    const sdk = new GoogleGenAI({
      apiKey: connection.secretKey,
      vertexai: false,
      httpOptions: {
        baseUrl: (connection.baseUrl || GOOGLE_AI_STUDIO_DEFAULT_BASE_URL).replace(/\/+$/, ''),
        apiVersion: 'v1beta',
        // Deliberate difference from Langfuse, which does not send custom headers to AI Studio:
        // Tally's issue requires a connection's custom headers on every request.
        headers: connection.extraHeaders,
        timeout: call.timeoutMs,
        fetch: egressFetch(egress),
      },
    });
    const acc = new GeminiAccumulator();
    const onText = call.onText;
    if (!onText) {
      acc.add(await sdk.models.generateContent(request));
      return acc.result(call.model);
    }
    for await (const chunk of await sdk.models.generateContentStream(request)) {
      const delta = acc.add(chunk);
      if (delta) onText(delta);
    }
    return acc.result(call.model);
  } catch (err) {
    throw toGoogleLlmError(err, secrets);
  }
};
