// The provider-neutral LLM call: what an adapter receives, what it returns, and how
// a provider's failure is classified. Types and pure helpers only; the adapters in
// server/src/adapters turn these into provider requests.
import type { AllowList } from './egress.ts';
import type { LlmCallParams } from '../../../../generated/client/types.gen.ts';

export type LlmRole = 'system' | 'user' | 'assistant';

export interface LlmMessage {
  role: LlmRole;
  content: string;
}

/** Call parameters (the spec's LlmCallParams). There are no defaults: an unset parameter is not sent, as in Langfuse. */
export type LlmParams = LlmCallParams;

export interface LlmTool {
  name: string;
  description?: string;
  /** a JSON Schema object */
  parameters: Record<string, unknown>;
}

export interface LlmCall {
  model: string;
  messages: LlmMessage[];
  params: LlmParams;
  tools?: LlmTool[];
  /** forces the model to call this tool */
  toolChoice?: { name: string };
  /** forwarded to the provider in its adapter's wire shape, as Langfuse does (reasoning_effort, service_tier, thinking, …) */
  providerOptions?: Record<string, unknown>;
  timeoutMs: number;
  /**
   * When set, the adapter streams the answer from the provider and hands each piece of text to
   * this callback as it arrives; the returned LlmResult is the same as without streaming (whole
   * text, tool calls, the provider's usage object, model).
   */
  onText?: (delta: string) => void;
  /** aborts the call (for example when the playground's client goes away): a `timeout` error */
  signal?: AbortSignal;
}

export interface LlmToolCall {
  name: string;
  /** the arguments as the provider sent them (JSON text) */
  arguments: string;
}

export interface LlmResult {
  text: string | null;
  toolCalls: LlmToolCall[];
  /** the provider's usage object, untouched */
  usage: Record<string, unknown> | null;
  /** the model that answered, as the provider names it */
  model: string | null;
}

/** A connection as an adapter needs it: secrets decrypted. */
export interface LlmConnectionTarget {
  baseUrl: string | null;
  secretKey: string;
  extraHeaders: Record<string, string>;
  config: Record<string, string | boolean> | null;
}

export type LlmAdapterCall = (connection: LlmConnectionTarget, call: LlmCall, egress: AllowList) => Promise<LlmResult>;

export type LlmErrorKind =
  | 'auth_invalid'
  | 'billing_exhausted'
  | 'model_unavailable'
  | 'rate_limited'
  | 'provider_error'
  | 'timeout'
  | 'unreachable'
  | 'egress_refused'
  /** the call cannot be made as asked (unsupported provider options, a model the adapter cannot serve); never retried */
  | 'invalid_request';

export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  /** the provider's HTTP status, when it answered */
  readonly status?: number;

  constructor(kind: LlmErrorKind, message: string, status?: number) {
    super(message);
    this.name = 'LlmError';
    this.kind = kind;
    if (status !== undefined) this.status = status;
  }

  /** worth trying again later (as in Langfuse, 408, 409, 429 and ≥ 500 are rescheduled) */
  get retryable(): boolean {
    if (this.kind === 'rate_limited') return true;
    const s = this.status;
    return this.kind === 'provider_error' && s !== undefined && (s === 408 || s === 409 || s >= 500);
  }
}

/**
 * Replace every secret, and the last 8 characters of each (the part a provider's
 * "Incorrect API key provided: sk-…abcd1234" message shows), with `***`.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  const parts = secrets.filter(Boolean).flatMap((s) => [s, s.slice(-8)]);
  // longest first, so a tail never breaks up a whole secret before it is replaced
  for (const p of [...new Set(parts)].sort((a, b) => b.length - a.length)) out = out.split(p).join('***');
  return out;
}

const AUTH_PATTERNS = [/API key not valid/i, /invalid_grant/i];
const BILLING_PATTERNS = [
  /insufficient_quota/i,
  /Insufficient credits/i,
  /credit balance is too low/i,
  /prepayment credits are depleted/i,
  /Budget has been exceeded/i,
  /requires more credits/i,
];
const MODEL_PATTERNS = [/Model use case details have not been submitted for this account/i];
const UNREACHABLE_PATTERNS = [/DNS lookup failed/i];

/** The kind of a provider's HTTP error answer, by Langfuse's status codes and message patterns. */
export function classifyHttpError(status: number, body: string): LlmErrorKind {
  const has = (patterns: RegExp[]) => patterns.some((p) => p.test(body));
  if (status === 401 || has(AUTH_PATTERNS)) return 'auth_invalid';
  // before 429: OpenAI answers an exhausted quota with 429 insufficient_quota
  if (status === 402 || has(BILLING_PATTERNS)) return 'billing_exhausted';
  if (status === 404 || has(MODEL_PATTERNS)) return 'model_unavailable';
  if (status === 429) return 'rate_limited';
  if (has(UNREACHABLE_PATTERNS)) return 'unreachable';
  return 'provider_error';
}

/** an error and its causes (`err.cause`, `err.cause.cause`, …), outermost first, at most 10 deep */
export function causeChain(err: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let e = err; e && typeof e === 'object' && out.length < 10; e = (e as { cause?: unknown }).cause)
    out.push(e as Record<string, unknown>);
  return out;
}

/**
 * The egress policy's refusal (an error with code EGRESS_REFUSED anywhere in the cause chain) as an
 * `egress_refused` LlmError, its message redacted; null when the failure is something else.
 */
export function egressRefusal(err: unknown, secrets: readonly string[] = []): LlmError | null {
  const refused = causeChain(err).find((e) => e.code === 'EGRESS_REFUSED');
  return refused ? new LlmError('egress_refused', redact(String(refused.message), secrets)) : null;
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** the error classes of a Stainless-generated SDK (openai, @anthropic-ai/sdk): the same names and meanings in both */
export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIUserAbortError: ErrorClass;
}

/** a failure of such an SDK as an LlmError, the secrets redacted from its message */
/**
 * A provider SDK's error text made readable: several SDKs put the provider's whole JSON body in
 * the message (`401 {"type":"error","error":{"type":"authentication_error","message":"invalid
 * x-api-key"}}`); the person reading it wants `401 authentication_error: invalid x-api-key`.
 * Text without such a body is returned as it is.
 */
export function readableProviderMessage(message: string): string {
  const start = message.indexOf('{');
  if (start < 0) return message;
  let body: unknown;
  try {
    body = JSON.parse(message.slice(start));
  } catch {
    return message;
  }
  const b = body as { error?: unknown; message?: unknown; type?: unknown };
  const inner = (b.error && typeof b.error === 'object' ? b.error : b) as {
    message?: unknown;
    type?: unknown;
    status?: unknown;
    code?: unknown;
  };
  if (typeof inner.message !== 'string' || !inner.message) return message;
  const label = [inner.type, inner.status, inner.code].find((x) => typeof x === 'string' && x);
  return `${message.slice(0, start)}${label ? `${label as string}: ` : ''}${inner.message}`.trim();
}

export function sdkLlmError(err: unknown, secrets: readonly string[], sdk: SdkErrorClasses): LlmError {
  if (err instanceof LlmError) return err;
  const clean = (m: string) => redact(m, secrets);
  const refused = egressRefusal(err, secrets);
  if (refused) return refused;
  if (err instanceof sdk.APIConnectionTimeoutError || err instanceof sdk.APIUserAbortError)
    return new LlmError('timeout', clean('the provider did not answer in time'));
  if (err instanceof sdk.APIConnectionError)
    return new LlmError('unreachable', clean(`the provider is unreachable: ${String(causeChain(err).at(-1)?.message ?? err.message)}`));
  const { status, error } = (err ?? {}) as { status?: unknown; error?: unknown };
  if (err instanceof sdk.APIError && typeof status === 'number') {
    const detail = error === undefined ? '' : JSON.stringify(error);
    return new LlmError(classifyHttpError(status, `${err.message} ${detail}`), clean(readableProviderMessage(err.message)), status);
  }
  return new LlmError('provider_error', clean(err instanceof Error ? err.message : String(err)));
}
