// Stage 3: a plan → SQL in the dialect of the store that answers, as Kysely compiles one query
// tree per dialect: PostgreSQL (compile-postgres.ts, Kysely raw builders) or ClickHouse
// (compile-clickhouse.ts, text with {name:Type} placeholders, and what its rows stage needs to
// give PostgreSQL's rows). The plan is the same for both; a dialect only says whether the
// planner may read PostgreSQL's roll-ups. Nothing here runs a query.
import { compileClickHouse, type ClickHouseMetrics } from './compile-clickhouse.ts';
import { compilePostgres, type CompiledMetrics } from './compile-postgres.ts';
import type { Plan } from './plan.ts';

export { renderExpr, type CompiledMetrics } from './compile-postgres.ts';
export type { ClickHouseMetrics, ClickHouseStatement, RowSpec } from './compile-clickhouse.ts';

export interface Dialect<C> {
  name: 'postgres' | 'clickhouse';
  /** the planner may read the roll-ups (the store's observation_hourly and observation_daily) */
  rollups: boolean;
  /** the store keeps the day × model × user roll-up too (ClickHouse's observation_user_daily) */
  userRollup: boolean;
  compile(plan: Plan, projectId: string): C;
}

export const POSTGRES: Dialect<CompiledMetrics> = { name: 'postgres', rollups: true, userRollup: false, compile: compilePostgres };

/**
 * ClickHouse with Tally's tables in `database` (statements name it: the embedded engine has no
 * per-client default); `rollups: false` reads the base tables only (the identity tests compare both)
 */
export const clickHouseDialect = (
  database: string,
  opts: { rollups?: boolean; dayPartitions?: boolean } = {},
): Dialect<ClickHouseMetrics> => ({
  name: 'clickhouse',
  rollups: opts.rollups ?? true,
  userRollup: opts.rollups ?? true,
  compile: (plan, projectId) => compileClickHouse(plan, projectId, database, { dayPartitions: opts.dayPartitions ?? true }),
});

/** PostgreSQL's statements (the dialect without a store configured) */
export const compile = (plan: Plan, projectId: string): CompiledMetrics => compilePostgres(plan, projectId);
