// The rows of a ClickHouse statement (compile-clickhouse.ts) made into the rows PostgreSQL's
// statement gives for the same plan, so the shape stage and every caller see one engine: the
// time bucket as a Date, booleans as booleans, a missing row's array as NULL, numeric's avg
// (numeric_div of the exact sum and count, at the scale of the largest value's) and histogram
// bounds (lo + (hi − lo)·(bin − 1)/bins in numeric). Numbers stay text, as numeric's are.
import type { RowSpec, ScaleRule } from './compile-clickhouse.ts';
import { add, div, fromFloat8, mul, numeric, sub, text, type Numeric } from './pg-numeric.ts';
import type { Row } from './shape.ts';

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** a histogram bound as PostgreSQL's cast(x as numeric) reads the value (`rowScale`: the scale the row gives) */
function bound(v: string, scale: ScaleRule, rowScale: unknown): Numeric {
  if (scale === 'float') return fromFloat8(Number(v));
  return numeric(v, scale === 'text' ? undefined : scale === 'column' ? Number(rowScale) : scale);
}

/** numeric's avg: sum / count rounded as numeric_div rounds, the sum at the largest scale of its values */
function avg(sum: string | null, count: string | null, scale: string | null): string | null {
  if (sum === null || count === null || Number(count) === 0) return null;
  return text(div(numeric(sum, Number(scale ?? 0)), numeric(count, 0)));
}

export function clickHouseRows(spec: RowSpec, rows: Record<string, unknown>[]): Row[] {
  return rows.map((r) => {
    const out: Row = {};
    spec.dimensions.forEach((d, i) => {
      let v = r[`d${i}`] ?? null;
      if (d.missing && Number(r[`d${i}_missing`]) === 1) v = null;
      out[`d${i}`] = d.boolean && v !== null ? Number(v) === 1 : v;
    });
    if (spec.time) out.t = new Date(Number(r.tb));
    spec.metrics.forEach((m, i) => {
      out[`m${i}`] = m === 'avg' ? avg(str(r[`m${i}_s`]), str(r[`m${i}_c`]), str(r[`m${i}_d`])) : str(r[`m${i}`]);
    });
    if (spec.histogram) {
      const { bins, scale } = spec.histogram;
      const [lo, hi] = [bound(String(r.lo), scale, r.lo_d), bound(String(r.hi), scale, r.hi_d)];
      const bin = Number(r.bin);
      const at = (k: number) => add(lo, div(mul(sub(hi, lo), numeric(String(k), 0)), numeric(String(bins), 0)));
      const same = lo.value.eq(hi.value);
      out.lower = text(same ? lo : at(bin - 1));
      out.upper = text(same ? hi : at(bin));
      out.n = str(r.n);
    }
    return out;
  });
}
