// The analytics store at start: with ClickHouse configured, the change feed's triggers are
// installed in PostgreSQL before the first request (so no change goes unrecorded) and the
// ClickHouse connection opened; its schema is migrated by the exporter's first round, so a
// ClickHouse that is down at start delays the export but not the server. Without it, the
// triggers are dropped (a feed nobody reads would only grow).
import type { Database } from '../db/orm.ts';
import type { ClickHouseTarget } from '../domain/analytics/target.ts';
import type { Logger } from '../logger.ts';
import { setFeed } from '../store/analytics-changes.ts';
import { kysely } from '../store/sql.ts';
import { type Analytics, openClickHouse } from './clickhouse.ts';

export async function prepareAnalytics(target: ClickHouseTarget | null, db: Database, log: Logger): Promise<Analytics | null> {
  if (!target) {
    await db.exclusively(() => setFeed(kysely(db.em()), false));
    return null;
  }
  const analytics = openClickHouse(target);
  const firstTime = await db.exclusively(() => setFeed(kysely(db.em()), true));
  if (firstTime) log.info('analytics: the change feed to ClickHouse is on; every row already stored is queued for export');
  return analytics;
}
