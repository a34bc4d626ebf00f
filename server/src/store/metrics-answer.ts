// One metrics query answered where the rows are: from ClickHouse when it is configured (the same
// plan in its dialect), else from PostgreSQL; shaped. Metrics v2, v1 and daily (http/handlers/
// metrics.ts) and the alert evaluator (background/alert-worker.ts) answer through it.
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import {
  type ClickHouseMetrics,
  type Dialect,
  type MetricsStore,
  POSTGRES,
  type Prepared,
  type Row,
  shape,
} from '../domain/metrics/index.ts';
import { executeMetrics } from './metrics.ts';
import { kysely } from './sql.ts';

/** a query prepared in the dialect of the store that answers */
export type Prepare = <C>(dialect: Dialect<C>) => Prepared<C>;

/**
 * The shaped rows. When ClickHouse does not answer, `onClickHouseError` decides: throw (past
 * PostgreSQL's retention only ClickHouse holds every row) or return to answer from PostgreSQL.
 */
export async function answerMetrics(
  em: SqlEntityManager,
  services: { analytics?: { metrics?: MetricsStore<ClickHouseMetrics>; archive?: unknown } },
  prepare: Prepare,
  onClickHouseError: (e: unknown, archive: boolean) => void,
): Promise<Row[]> {
  const analytics = services.analytics;
  const store = analytics?.metrics;
  if (store) {
    const { plan, compiled } = prepare(store.dialect);
    try {
      const { rows, histograms } = await store.execute(compiled);
      return shape(plan, rows, histograms);
    } catch (e) {
      onClickHouseError(e, Boolean(analytics.archive));
    }
  }
  const { plan, compiled } = prepare(POSTGRES);
  const { rows, histograms } = await executeMetrics(kysely(em), compiled);
  return shape(plan, rows, histograms);
}
