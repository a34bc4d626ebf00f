// The integer fast path of cost arithmetic must give exactly what decimal.js gives, on the
// values ingestion sees and on the ones that force the fallback.
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { exact, plus, sum, times, toNumber } from '../../src/domain/cost/exact.ts';

const D = Decimal.clone({ precision: 60 });

function seeded(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

describe('exact decimal arithmetic', () => {
  it('reads numbers as the decimals they print as', () => {
    expect(sum([0.1, 0.2])).toBe(0.3);
    expect(toNumber(times(exact(3), exact(0.1)))).toBe(0.3);
    expect(toNumber(times(exact(1000), exact(0.0000025)))).toBe(0.0025);
    expect(toNumber(times(exact(123_456), exact(2.5e-7)))).toBe(0.030864);
  });

  it('agrees with decimal.js on prices × counts and their sums, fast path or not', () => {
    const rnd = seeded(7);
    const prices = [2.5e-6, 1e-5, 1.25e-7, 0.000015, 3e-8, 7.5e-7, 0.1, 1.1e-6, 1 / 3, Math.PI * 1e-6, 4.4e-21];
    for (let i = 0; i < 20_000; i++) {
      const price = i % 3 ? prices[i % prices.length]! : rnd() * 10 ** -(1 + Math.floor(rnd() * 9));
      // counts: usual, huge (past 2^53 once multiplied) and fractional
      const units = i % 5 === 0 ? Math.floor(rnd() * 2 ** 53) : i % 7 === 0 ? rnd() * 1000 : Math.floor(rnd() * 500_000);
      const other = Math.floor(rnd() * 10_000) * 1e-6;
      const product = times(exact(price), exact(units));
      const expected = new D(price).times(units);
      expect(toNumber(product)).toBe(expected.toNumber());
      expect(toNumber(plus(product, exact(other)))).toBe(expected.plus(other).toNumber());
    }
  });

  it('rounds m × 10^e to the same double as decimal.js for every exponent, mantissas up to 2^53', () => {
    const rnd = seeded(11);
    for (let i = 0; i < 50_000; i++) {
      const e = -30 + (i % 61);
      const m = i % 4 === 0 ? Math.floor(rnd() * 2 ** 53) : Math.floor(rnd() * 10 ** (1 + (i % 15)));
      // a product whose mantissa is m: times() keeps scaled integers exact
      const x = times(exact(m), exact(Number(`1e${e}`)));
      expect(toNumber(x)).toBe(new D(m).times(new D(10).pow(e)).toNumber());
    }
  });

  it('falls back to decimal.js where the integers would overflow', () => {
    const big = 2 ** 52 + 1;
    expect(toNumber(times(exact(big), exact(big)))).toBe(new D(big).times(big).toNumber());
    // exponents 30 apart: no exact power of ten aligns them as doubles
    expect(sum([1e20, 1e-10, -1e20])).toBe(1e-10);
    expect(sum([])).toBe(0);
  });
});
