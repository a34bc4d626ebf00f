// Exponential backoff for the server's retries: ingestion applying a batch again after a
// transient conflict (ingestion/pipeline.ts, full jitter) and the evaluation worker delaying a
// job after a retryable judge failure (background/evaluation-worker.ts, half jitter). Pure.

export interface Backoff {
  /** the first retry's ceiling; each further retry doubles it */
  baseMs: number;
  /** the largest ceiling (none: it keeps doubling) */
  maxMs?: number;
  /** full: uniform in [0, ceiling); half: a random 50-100% of the ceiling */
  jitter: 'full' | 'half';
}

/** the ceiling of retry `retry` (1 for the first): baseMs·2^(retry-1), at most maxMs */
export const backoffCeiling = (retry: number, b: Backoff): number =>
  Math.min(b.maxMs ?? Number.POSITIVE_INFINITY, b.baseMs * 2 ** (retry - 1));

/** milliseconds to wait before retry `retry` (1 for the first), not rounded */
export function backoffMs(retry: number, b: Backoff, random: () => number = Math.random): number {
  const ceiling = backoffCeiling(retry, b);
  return b.jitter === 'full' ? random() * ceiling : ceiling * (0.5 + random() / 2);
}
