// A fetch that retries what is safe to repeat: 429, 5xx and network errors, on idempotent methods
// (GET, HEAD, OPTIONS, PUT, DELETE) and on ingestion (POST /api/public/ingestion and
// /api/public/otel/…: events carry ids, so the server dedupes a replay). Exponential backoff with
// full jitter; a Retry-After header (seconds or HTTP date) wins over the computed delay.
import { fullJitterDelay } from './backoff.ts';

export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. Default 2. */
  maxRetries?: number;
  /** First backoff ceiling in ms (doubles each retry). Default 500. */
  retryBaseDelayMs?: number;
  /** Largest backoff ceiling in ms. Default 8000. */
  retryMaxDelayMs?: number;
  /** Largest Retry-After honoured, in ms; longer waits are capped to it. Default 60000. */
  maxRetryAfterMs?: number;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const REPLAY_SAFE_POST = [/\/api\/public\/ingestion\/?$/, /\/api\/public\/otel(\/|$)/];

export function isRetryable(method: string, url: string): boolean {
  const m = method.toUpperCase();
  if (IDEMPOTENT.has(m)) return true;
  if (m !== 'POST') return false;
  const path = new URL(url).pathname;
  return REPLAY_SAFE_POST.some((re) => re.test(path));
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Retry-After in ms (delta-seconds or HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Full jitter: uniform in [0, min(max, base·2^attempt)] (backoff.ts). */
export const backoffDelay = fullJitterDelay;

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function retryingFetch(baseFetch: typeof fetch, opts: RetryOptions = {}): (request: Request) => Promise<Response> {
  const maxRetries = Math.max(0, opts.maxRetries ?? 2);
  const base = opts.retryBaseDelayMs ?? 500;
  const max = opts.retryMaxDelayMs ?? 8000;
  const maxRetryAfter = opts.maxRetryAfterMs ?? 60_000;

  return async (request: Request) => {
    if (maxRetries === 0 || !isRetryable(request.method, request.url)) return baseFetch(request);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      // keep `request` unread so the next attempt can send the same body again
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await baseFetch(sent);
      } catch (error) {
        // the caller's abort is not a network error: never retried
        if (last || request.signal?.aborted || (error as Error)?.name === 'AbortError') throw error;
        await sleep(backoffDelay(attempt, base, max), request.signal);
        continue;
      }
      if (last || !isRetryableStatus(response.status)) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      await response.body?.cancel().catch(() => {});
      await sleep(retryAfter !== undefined ? Math.min(retryAfter, maxRetryAfter) : backoffDelay(attempt, base, max), request.signal);
    }
  };
}
