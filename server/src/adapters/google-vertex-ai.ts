// The `google-vertex-ai` adapter: Gemini (generateContent) and Claude (rawPredict) on Vertex AI,
// with an OAuth token from the connection's service-account key (google-auth.ts). Every request,
// the token request included, goes through egressFetch. Claude goes through
// @anthropic-ai/vertex-sdk (the Messages body, the rawPredict path, streaming), given our fetch
// and an auth client that returns our token. Gemini is plain JSON over egressFetch: @google/genai
// in vertexai mode takes neither a fetch implementation nor a ready token (it builds its own
// GoogleAuth), so its connections could not be checked by the egress policy.
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { classifyHttpError, LlmError, redact, type LlmAdapterCall, type LlmCall, type LlmResult } from '../domain/llm/call.ts';
import type { AllowList } from '../domain/llm/egress.ts';
import { egressFetch } from '../egress/egress-fetch.ts';
import { anthropicBody, parseMessage, toAnthropicLlmError } from './anthropic.ts';
import { geminiGenerationParams, geminiThinkingConfig } from './google-ai-studio.ts';
import { fetchFailure, googleAccessToken, parseServiceAccountKey } from './google-auth.ts';
import { VERTEXAI_DEFAULT_CREDENTIALS } from '../domain/llm-connections/validate.ts';

// the location when the connection's config names none: Vertex's own default region, and the one
// where every Gemini and Claude model is served
export const VERTEX_DEFAULT_LOCATION = 'us-central1';
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

export function vertexBaseUrl(baseUrl: string | null, location: string): string {
  if (baseUrl) return baseUrl.replace(/\/+$/, '');
  return location === 'global' ? 'https://aiplatform.googleapis.com' : `https://${location}-aiplatform.googleapis.com`;
}

export const isClaudeModel = (model: string) => /^claude/i.test(model);

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

// ---------- Gemini ----------

// Gemini's function parameters are an OpenAPI subset that refuses these JSON Schema keywords
function geminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiSchema);
  if (!isObj(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema))
    if (k !== '$schema' && k !== 'additionalProperties')
      out[k] =
        k === 'properties' && isObj(v) ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, geminiSchema(s)])) : geminiSchema(v);
  return out;
}

export function vertexGeminiBody(call: LlmCall): Record<string, unknown> {
  const system = call.messages.filter((m) => m.role === 'system');
  const thinkingConfig = geminiThinkingConfig(call.model, call.providerOptions, { vertex: true });
  const generationConfig = defined({ ...geminiGenerationParams(call.params), thinkingConfig });
  return defined({
    systemInstruction: system.length ? { parts: system.map((m) => ({ text: m.content })) } : undefined,
    contents: call.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
    generationConfig: Object.keys(generationConfig).length ? generationConfig : undefined,
    tools: call.tools?.length
      ? [
          {
            functionDeclarations: call.tools.map((t) =>
              defined({ name: t.name, description: t.description, parameters: geminiSchema(t.parameters) }),
            ),
          },
        ]
      : undefined,
    toolConfig: call.toolChoice ? { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [call.toolChoice.name] } } : undefined,
  });
}

interface GeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args?: unknown };
}
interface GeminiResponse {
  candidates?: { content?: { parts?: GeminiPart[] } }[];
  usageMetadata?: Record<string, unknown>;
  modelVersion?: string;
}

/** folds generateContent answers (one, or a stream's chunks) into a result; thought summaries are not answer text */
class GeminiAccumulator {
  private texts: string[] = [];
  private toolCalls: LlmResult['toolCalls'] = [];
  private usage: Record<string, unknown> | null = null;
  private model: string | null = null;

  add(r: GeminiResponse, onText?: (delta: string) => void): void {
    for (const part of r.candidates?.[0]?.content?.parts ?? []) {
      if (typeof part.text === 'string' && !part.thought) {
        this.texts.push(part.text);
        if (onText && part.text) onText(part.text);
      } else if (part.functionCall) {
        this.toolCalls.push({ name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) });
      }
    }
    // in a stream every chunk repeats the usage so far; the last one is the total
    if (r.usageMetadata) this.usage = r.usageMetadata;
    if (r.modelVersion) this.model = r.modelVersion;
  }

  result(): LlmResult {
    return { text: this.texts.length ? this.texts.join('') : null, toolCalls: this.toolCalls, usage: this.usage, model: this.model };
  }
}

export function parseGeminiResponse(r: GeminiResponse): LlmResult {
  const acc = new GeminiAccumulator();
  acc.add(r);
  return acc.result();
}

async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = '';
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl).replace(/\r$/, '');
      buf = buf.slice(nl + 1);
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
  }
  if (buf.startsWith('data:')) data.push(buf.slice(5).replace(/^ /, ''));
  if (data.length) yield data.join('\n');
}

async function callGemini(call: LlmCall, url: string, headers: Headers, egress: AllowList, signal: AbortSignal): Promise<LlmResult> {
  const body = JSON.stringify(vertexGeminiBody(call));
  const method = call.onText ? 'streamGenerateContent?alt=sse' : 'generateContent';
  let res: Response;
  try {
    res = await egressFetch(egress)(`${url}:${method}`, { method: 'POST', headers, body, signal });
  } catch (err) {
    throw fetchFailure(err, 'the provider');
  }
  try {
    if (!res.ok) {
      const text = await res.text();
      let message = text.slice(0, 1000);
      try {
        const m = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
        if (typeof m === 'string') message = m;
      } catch {
        // not JSON: the raw text is the message
      }
      throw new LlmError(classifyHttpError(res.status, text), `Vertex AI answered ${res.status}: ${message}`, res.status);
    }
    if (!call.onText) return parseGeminiResponse((await res.json()) as GeminiResponse);
    const acc = new GeminiAccumulator();
    for await (const data of sseData(res.body!)) acc.add(JSON.parse(data) as GeminiResponse, call.onText);
    return acc.result();
  } catch (err) {
    if (err instanceof LlmError) throw err;
    if (err instanceof SyntaxError) throw new LlmError('provider_error', `Vertex AI answered with unreadable JSON: ${err.message}`);
    throw fetchFailure(err, 'the provider');
  }
}

// ---------- Claude ----------

const withoutModel = ({ model: _dropped, ...rest }: Record<string, unknown>) => rest;

/**
 * The Anthropic Messages body for rawPredict: anthropic.ts's, with the provider options checked
 * there, but without `model` (Vertex takes it from the path) and with anthropic_version. A `model`
 * override in the provider options (top level or nested `anthropic:{}`) is dropped, as Langfuse does.
 */
export function vertexClaudeBody(call: LlmCall): Record<string, unknown> {
  const options = call.providerOptions && withoutModel(call.providerOptions);
  if (options && isObj(options.anthropic)) options.anthropic = withoutModel(options.anthropic);
  const { model: _model, ...body } = anthropicBody({ ...call, providerOptions: options }, 'google-vertex-ai');
  return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...body };
}

async function callClaude(
  call: LlmCall,
  base: string,
  project: string,
  location: string,
  token: string,
  extraHeaders: Record<string, string>,
  egress: AllowList,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<LlmResult> {
  const body = vertexClaudeBody(call);
  const sdk = new AnthropicVertex({
    baseURL: `${base}/v1`,
    region: location,
    projectId: project,
    // the SDK asks its auth client for headers on every request; ours answers with the token
    // already obtained through the egress policy, so the SDK never runs google-auth-library
    authClient: { projectId: project, getRequestHeaders: async () => new Headers({ authorization: `Bearer ${token}` }) } as never,
    defaultHeaders: extraHeaders,
    fetch: egressFetch(egress),
    timeout: Math.max(1, timeoutMs),
    maxRetries: 0,
  });
  // the SDK needs `model` to build the rawPredict path and removes it from the body it sends
  const params = { ...body, model: call.model } as unknown as MessageCreateParamsNonStreaming;
  try {
    if (!call.onText) return parseMessage((await sdk.messages.create(params, { signal })) as Message);
    const stream = sdk.messages.stream(params, { signal });
    stream.on('text', (delta) => call.onText!(delta));
    return parseMessage(await stream.finalMessage());
  } catch (err) {
    // redacted by the adapter's own catch
    throw toAnthropicLlmError(err, []);
  }
}

// ---------- the adapter ----------

export const callGoogleVertexAi: LlmAdapterCall = async (connection, call, egress) => {
  const secrets = [connection.secretKey, ...Object.values(connection.extraHeaders).filter((v) => v.length >= 8)];
  if (connection.secretKey !== VERTEXAI_DEFAULT_CREDENTIALS) {
    try {
      secrets.push(parseServiceAccountKey(connection.secretKey).private_key);
    } catch {
      // an unreadable key is reported by googleAccessToken below
    }
  }
  const started = Date.now();
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
  try {
    const location =
      typeof connection.config?.location === 'string' && connection.config.location ? connection.config.location : VERTEX_DEFAULT_LOCATION;
    const base = vertexBaseUrl(connection.baseUrl, location);
    // refused provider options are refused before any token is requested
    if (isClaudeModel(call.model)) vertexClaudeBody(call);
    else vertexGeminiBody(call);
    const { accessToken, projectId } = await googleAccessToken(connection.secretKey, egress, signal);
    secrets.push(accessToken);
    if (!projectId) throw new LlmError('auth_invalid', 'the Google credentials name no project');
    const enc = encodeURIComponent;
    if (isClaudeModel(call.model)) {
      return await callClaude(
        call,
        base,
        projectId,
        location,
        accessToken,
        connection.extraHeaders,
        egress,
        signal,
        call.timeoutMs - (Date.now() - started),
      );
    }
    const url = `${base}/v1beta1/projects/${enc(projectId)}/locations/${enc(location)}/publishers/google/models/${enc(call.model)}`;
    // set, not merged: an extra header named Authorization must not join the token
    const headers = new Headers(connection.extraHeaders);
    headers.set('authorization', `Bearer ${accessToken}`);
    headers.set('content-type', 'application/json');
    return await callGemini(call, url, headers, egress, signal);
  } catch (err) {
    const e = err instanceof LlmError ? err : fetchFailure(err, 'the provider');
    throw new LlmError(e.kind, redact(e.message, secrets), e.status);
  }
};
