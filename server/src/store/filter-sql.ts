// Checked filters → SQL conditions over the observations table (the list endpoint's `filter`).
import type { CheckedFilter } from '../domain/filters/check.ts';
import { filterCondition } from '../domain/filters/compile.ts';
import { renderExpr } from '../domain/metrics/compile.ts';
import { LATENCY_MS } from '../domain/metrics/expressions.ts';
import { OBSERVATION_FILTER_COLUMNS_SQL } from '../domain/filters/observation-columns.ts';
import { sql, type RawBuilder } from './sql.ts';

const LATENCY_SQL = renderExpr(LATENCY_MS, null);

export function observationFilterSql(f: CheckedFilter): RawBuilder<unknown> {
  const column = OBSERVATION_FILTER_COLUMNS_SQL[f.target]!;
  return filterCondition(f, sql.raw(column === 'latency' ? LATENCY_SQL : column));
}
