// What the metrics views compute from the stored rows, as data: columns, and the few things
// made of them (a latency, a month label, a count of related rows...). The views, the roll-up
// declaration and the parser hold these; only the compiler (compile.ts, renderExpr) turns them
// into SQL, as Kysely's compiler turns its operation nodes into text. Every name here is
// Tally's own, never a caller's.

export type Expr =
  /** a column of the row; `of` names another alias (a relation, a related subquery), else the view's own */
  | { kind: 'column'; name: string; of?: string }
  | { kind: 'literal'; value: 1 | null }
  /** the key or the value of one entry of a usage or cost map (a pairExpand dimension walks them) */
  | { kind: 'pair'; part: 'key' | 'value' }
  | { kind: 'isNull'; of: Expr }
  | { kind: 'equals'; of: Expr; value: number }
  | { kind: 'cast'; of: Expr; to: 'text' | 'numeric' }
  /** the UTC calendar month (YYYY-MM) or day (YYYY-MM-DD) of a time, as text */
  | { kind: 'calendar'; of: Expr; unit: 'month' | 'day' }
  /** milliseconds from one time to another */
  | { kind: 'msBetween'; from: Expr; to: Expr }
  /** a count per second of a duration in ms (null for a zero duration) */
  | { kind: 'perSecond'; of: Expr; ms: Expr }
  /** an aggregate inside a related subquery; count without `of` counts rows */
  | { kind: 'aggregate'; fn: 'count' | 'sum' | 'min' | 'max'; of?: Expr }
  | { kind: 'coalesce'; of: Expr[] }
  /** one value over the rows of `table` (as `alias`) of the same project whose `key` is this row's id */
  | { kind: 'related'; table: 'observations' | 'scores'; alias: string; key: 'trace_id' | 'observation_id'; value: Expr };

export const col = (name: string, of?: string): Expr => (of === undefined ? { kind: 'column', name } : { kind: 'column', name, of });
export const ONE: Expr = { kind: 'literal', value: 1 };
export const NULL: Expr = { kind: 'literal', value: null };
export const msBetween = (from: Expr, to: Expr): Expr => ({ kind: 'msBetween', from, to });

/** an observation's latency in ms: end time minus start time (null while it has no end) */
export const LATENCY_MS: Expr = msBetween(col('start_time'), col('end_time'));

/** the columns an expression reads (of the row itself, not of a relation or a subquery) */
export function columnsOf(e: Expr): string[] {
  switch (e.kind) {
    case 'column':
      return e.of === undefined ? [e.name] : [];
    case 'isNull':
    case 'equals':
    case 'cast':
    case 'calendar':
      return columnsOf(e.of);
    case 'msBetween':
      return [...columnsOf(e.from), ...columnsOf(e.to)];
    case 'perSecond':
      return [...columnsOf(e.of), ...columnsOf(e.ms)];
    case 'aggregate':
      return e.of ? columnsOf(e.of) : [];
    case 'coalesce':
      return e.of.flatMap(columnsOf);
    case 'related':
      return ['id'];
    default:
      return [];
  }
}
