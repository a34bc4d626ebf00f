// The SDK's one backoff (src/backoff.ts): the client's retries (full jitter) and the batcher's resends (half jitter).
import { describe, expect, it } from 'vitest';
import { backoffCeiling, fullJitterDelay, halfJitterDelay } from '../src/backoff.ts';
import { backoffDelay } from '../src/retry.ts';

describe('SDK backoff', () => {
  it('doubles the ceiling per retry from the base, up to the maximum', () => {
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffCeiling(a, 500, 8000))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('full jitter: whole milliseconds in [0, ceiling), the client retry delay', () => {
    expect(fullJitterDelay(0, 100, 1000, () => 0)).toBe(0);
    expect(fullJitterDelay(2, 100, 1000, () => 0.5)).toBe(200);
    expect(fullJitterDelay(10, 100, 1000, () => 0.9999)).toBe(999);
    expect(backoffDelay).toBe(fullJitterDelay);
  });

  it('half jitter: a rounded 50-100% of the ceiling, the batcher resend delay', () => {
    expect(halfJitterDelay(0, 100, 30_000, () => 0.5)).toBe(75);
    expect(halfJitterDelay(1, 100, 30_000, () => 0.5)).toBe(150);
    expect(halfJitterDelay(3, 100, 30_000, () => 0)).toBe(400);
    expect(halfJitterDelay(20, 100, 30_000, () => 0.9999)).toBe(29_999);
  });
});
