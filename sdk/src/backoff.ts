// Exponential backoff for the SDK's two kinds of retry: a request retried by the client
// (retry.ts, full jitter) and events resent by the batcher (ingestion-batcher.ts, half jitter).
// The server has its own (server/src/domain/backoff.ts): this package cannot import the server.

/** The ceiling of retry `attempt` (0 for the first retry): base·2^attempt, at most `maxMs`. */
export const backoffCeiling = (attempt: number, baseMs: number, maxMs: number): number => Math.min(maxMs, baseMs * 2 ** attempt);

/** Full jitter: uniform in [0, ceiling], whole milliseconds (rounded down). */
export function fullJitterDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  return Math.floor(random() * backoffCeiling(attempt, baseMs, maxMs));
}

/**
 * Half jitter: half the ceiling fixed, the other half random, so a random 50-100% of it; whole
 * milliseconds (rounded). Spreads clients out without ever retrying at once.
 */
export function halfJitterDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = backoffCeiling(attempt, baseMs, maxMs);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
