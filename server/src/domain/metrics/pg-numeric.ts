// PostgreSQL's numeric arithmetic where a metrics answer depends on it, so another engine's
// exact operands give PostgreSQL's digits: a value has a display scale (dscale, its decimals);
// + and − keep the larger, × adds them, and ÷ (numeric_div, which avg also uses) rounds half
// away from zero at the scale select_div_scale picks: at least 16 significant digits, and no
// fewer decimals than either operand shows.
import { Decimal } from 'decimal.js';

// ample digits for an exact quotient's first rscale + 1 decimals (rscale ≤ 1000); truncated, then rounded once
const Exact = Decimal.clone({ precision: 1100, rounding: Decimal.ROUND_DOWN, toExpNeg: -9e15, toExpPos: 9e15 });
type Value = InstanceType<typeof Exact>;

export interface Numeric {
  value: Value;
  dscale: number;
}

const NUMERIC_MIN_SIG_DIGITS = 16;
const DEC_DIGITS = 4;
const MAX_DISPLAY_SCALE = 1000;

/** a numeric from its text; its scale the text's decimals unless given (a column of fixed scale) */
export function numeric(text: string, dscale?: number): Numeric {
  const value = new Exact(text);
  return { value, dscale: dscale ?? value.decimalPlaces() };
}

/** float8 → numeric: PostgreSQL prints the double with 15 significant digits (%.15g) and reads that */
export const fromFloat8 = (x: number): Numeric => numeric(new Exact(x.toPrecision(15)).toString());

/** the weight of the first non-zero base-10000 digit group, and that group (0, 0 for zero) */
function firstGroup(v: Value): [number, number] {
  if (v.isZero()) return [0, 0];
  const weight = Math.floor(v.e / DEC_DIGITS);
  return [
    weight,
    v
      .abs()
      .times(new Exact(10).pow(-DEC_DIGITS * weight))
      .floor()
      .toNumber(),
  ];
}

/** select_div_scale */
export function divScale(a: Numeric, b: Numeric): number {
  const [w1, d1] = firstGroup(a.value);
  const [w2, d2] = firstGroup(b.value);
  const qweight = w1 - w2 - (d1 <= d2 ? 1 : 0);
  const rscale = Math.max(NUMERIC_MIN_SIG_DIGITS - qweight * DEC_DIGITS, a.dscale, b.dscale, 0);
  return Math.min(rscale, MAX_DISPLAY_SCALE);
}

export const add = (a: Numeric, b: Numeric): Numeric => ({ value: a.value.plus(b.value), dscale: Math.max(a.dscale, b.dscale) });
export const sub = (a: Numeric, b: Numeric): Numeric => ({ value: a.value.minus(b.value), dscale: Math.max(a.dscale, b.dscale) });
export const mul = (a: Numeric, b: Numeric): Numeric => ({ value: a.value.times(b.value), dscale: a.dscale + b.dscale });

/** numeric_div (b ≠ 0) */
export function div(a: Numeric, b: Numeric): Numeric {
  const dscale = divScale(a, b);
  return { value: a.value.div(b.value).toDecimalPlaces(dscale, Decimal.ROUND_HALF_UP), dscale };
}

/** numeric_out: every decimal of its scale */
export const text = (n: Numeric): string => (n.value.isZero() ? n.value.abs() : n.value).toFixed(n.dscale);
