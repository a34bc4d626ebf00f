// The server's one backoff (domain/backoff.ts): ingestion's conflict retries (full jitter) and the
// evaluation worker's delays (half jitter).
import { describe, expect, it } from 'vitest';
import { backoffCeiling, backoffMs } from '../../src/domain/backoff.ts';

describe('backoff', () => {
  it('doubles the ceiling per retry from the base, up to the maximum', () => {
    const b = { baseMs: 5, maxMs: 200, jitter: 'full' as const };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffCeiling(n, b))).toEqual([5, 10, 20, 40, 80, 160, 200, 200]);
    expect(backoffCeiling(12, { baseMs: 1000, jitter: 'half' })).toBe(1000 * 2 ** 11);
  });

  it('full jitter: uniform below the ceiling', () => {
    const b = { baseMs: 5, maxMs: 200, jitter: 'full' as const };
    expect(backoffMs(3, b, () => 0)).toBe(0);
    expect(backoffMs(3, b, () => 0.5)).toBe(10);
    expect(backoffMs(10, b, () => 0.999)).toBeLessThan(200);
  });

  it('half jitter: a random 50-100% of the ceiling, without a maximum unless given', () => {
    const b = { baseMs: 15_000, jitter: 'half' as const };
    expect(backoffMs(1, b, () => 0)).toBe(7_500);
    expect(backoffMs(2, b, () => 0.5)).toBe(22_500);
    expect(backoffMs(3, b, () => 0.999)).toBeLessThan(60_000);
    expect(backoffMs(3, b, () => 0.999)).toBeGreaterThan(59_000);
  });

  it('is the formula the evaluation worker and ingestion used before it had a home', () => {
    for (const r of [0, 0.123, 0.5, 0.777, 0.999]) {
      for (let n = 1; n <= 10; n++) {
        expect(backoffMs(n, { baseMs: 15_000, jitter: 'half' }, () => r)).toBe(15_000 * 2 ** (n - 1) * (0.5 + r / 2));
        expect(backoffMs(n, { baseMs: 5, maxMs: 200, jitter: 'full' }, () => r)).toBe(r * Math.min(200, 5 * 2 ** (n - 1)));
      }
    }
  });
});
