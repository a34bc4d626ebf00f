// Exact decimal arithmetic on JS numbers, each read as the decimal it prints as (String(x)),
// which is how decimal.js reads a number too: 0.1 + 0.2 is exactly 0.3 here.
//
// Ingestion prices every generation, and decimal.js objects were ~40% of that (18 µs per
// event). Prices and token counts have few significant digits, so almost every exact result
// is a safe integer times a power of ten and is computed with integer arithmetic on doubles;
// whatever does not fit falls back to decimal.js. Both paths round to a double once, at the
// end, so they give the same number.
import { Decimal } from 'decimal.js';

/** Precision well above any price × count (prices ~1e-9..1e2, counts < 2^53). */
export const Dec = Decimal.clone({ precision: 40 });
type DecimalValue = InstanceType<typeof Dec>;

/** m × 10^e with m a safe integer */
interface Scaled {
  m: number;
  e: number;
}

export type Exact = Scaled | DecimalValue;

const DECIMAL_FORM = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

// prices repeat on every event: their decomposition is cached (bounded; cleared when full)
const cache = new Map<number, Scaled | null>();
const CACHE_MAX = 10_000;

function scaled(x: number): Scaled | null {
  if (Number.isSafeInteger(x)) return { m: x, e: 0 };
  let s = cache.get(x);
  if (s !== undefined) return s;
  s = null;
  const match = Number.isFinite(x) ? DECIMAL_FORM.exec(String(x)) : null;
  if (match) {
    const fraction = match[3] ?? '';
    const m = Number(match[1]! + match[2]! + fraction);
    if (Number.isSafeInteger(m)) s = { m, e: Number(match[4] ?? 0) - fraction.length };
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(x, s);
  return s;
}

const isScaled = (x: Exact): x is Scaled => !(x instanceof Dec);
const toDecimal = (x: Exact): DecimalValue => (isScaled(x) ? new Dec(`${x.m}e${x.e}`) : x);

/** the exact decimal a number prints as */
export function exact(x: number): Exact {
  return scaled(x) ?? new Dec(x);
}

export function times(a: Exact, b: Exact): Exact {
  if (isScaled(a) && isScaled(b)) {
    const m = a.m * b.m; // exact whenever the true product is a safe integer
    if (Number.isSafeInteger(m)) return { m, e: a.e + b.e };
  }
  return toDecimal(a).times(toDecimal(b));
}

export function plus(a: Exact, b: Exact): Exact {
  if (isScaled(a) && isScaled(b)) {
    // bring both to the smaller exponent; 10^k is exact as a double up to k = 22
    const [hi, lo] = a.e >= b.e ? [a, b] : [b, a];
    const shift = hi.e - lo.e;
    if (shift <= 22) {
      const aligned = hi.m * 10 ** shift;
      const m = aligned + lo.m;
      if (Number.isSafeInteger(aligned) && Number.isSafeInteger(m)) return { m, e: lo.e };
    }
  }
  return toDecimal(a).plus(toDecimal(b));
}

const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

/** the nearest double, like Decimal#toNumber */
export function toNumber(x: Exact): number {
  if (!isScaled(x)) return x.toNumber();
  if (x.e === 0) return x.m;
  // m and 10^k (k <= 22) are exact doubles, and IEEE division and multiplication round the exact
  // result once: the same double as parsing "<m>e<e>", without building and parsing the string
  if (x.e < 0 && x.e >= -22) return x.m / POWERS_OF_TEN[-x.e]!;
  if (x.e > 0 && x.e <= 22) return x.m * POWERS_OF_TEN[x.e]!;
  return Number(`${x.m}e${x.e}`);
}

/** exact sum of numbers, rounded once */
export function sum(values: Iterable<number>): number {
  let total: Exact = { m: 0, e: 0 };
  for (const v of values) total = plus(total, exact(v));
  return toNumber(total);
}
