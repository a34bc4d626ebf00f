// The metrics roll-ups (observation_hourly and observation_daily), as data: the observation
// columns a roll-up row is keyed by, and the sums it keeps. The store writes both tables from
// this declaration (store/rollups.ts), the views say which dimension and measure each key and
// sum serves (views.ts), and the compiler reads them there (compile.ts).
import { col, LATENCY_MS, type Expr } from './expressions.ts';

/** the observation time a roll-up row's hour (and day) is of */
export const ROLLUP_TIME = 'start_time';

/** the observation columns a roll-up row is keyed by (besides its project and hour or day) */
export const ROLLUP_KEYS = ['type', 'name', 'environment', 'model'] as const;

/**
 * The keys of a second, narrower roll-up that ClickHouse keeps per UTC day (observation_user_daily):
 * spend per user and model. Grouping 10 M rows by two strings costs about 700 ms on two cores in
 * ClickHouse; the day × model × user rows (about 1.6 M for 10 M observations of 5,000 users) answer
 * the same in about 200 ms. Adding user_id to the main roll-ups would multiply their rows by the
 * users, so it is a table of its own, and PostgreSQL does not keep one.
 */
export const USER_ROLLUP_KEYS = ['model', 'user_id'] as const;
export type RollupKey = (typeof ROLLUP_KEYS)[number] | (typeof USER_ROLLUP_KEYS)[number];

export interface RollupSum {
  /** the column holding Σ value */
  sum: string;
  /** the column holding how many rows had a value: the measure's own, or `count` (every row) for a value never null */
  count: string;
  /** the value per observation; null: the row itself (the row count) */
  value: Expr | null;
}

/** the additive measures a roll-up row keeps, each a sum and the count of rows it sums */
export const ROLLUP_SUMS = {
  count: { sum: 'count', count: 'count', value: null },
  latency: { sum: 'latency_ms', count: 'latency_count', value: LATENCY_MS },
  inputTokens: { sum: 'input_usage', count: 'count', value: col('input_usage') },
  outputTokens: { sum: 'output_usage', count: 'count', value: col('output_usage') },
  totalTokens: { sum: 'total_usage', count: 'count', value: col('total_usage') },
  inputCost: { sum: 'input_cost', count: 'input_cost_count', value: col('input_cost') },
  outputCost: { sum: 'output_cost', count: 'output_cost_count', value: col('output_cost') },
  totalCost: { sum: 'total_cost', count: 'total_cost_count', value: col('total_cost') },
} as const satisfies Record<string, RollupSum>;

/** the sum and count columns of a roll-up row, each once, in the tables' order */
export const ROLLUP_SUM_COLUMNS: readonly string[] = [...new Set(Object.values(ROLLUP_SUMS).flatMap((s) => [s.sum, s.count]))];
