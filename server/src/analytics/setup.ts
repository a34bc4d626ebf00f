// The analytics store at start: with ClickHouse configured, the change feed's triggers are
// installed in PostgreSQL before the first request (so no change goes unrecorded) and the
// ClickHouse connection opened; its schema is migrated by the exporter's first round, so a
// ClickHouse that is down at start delays the export but not the server. An instance started
// without ClickHouse on a database whose feed is on leaves it on and says so: another instance
// may export it, and dropping it there would lose their changes silently. Turning the feed off is
// an operator's act (`make cli ARGS="analytics feed-off"`).
import type { Database } from '../db/orm.ts';
import type { ClickHouseTarget } from '../domain/analytics/target.ts';
import type { Logger } from '../logger.ts';
import { feedState, setFeed } from '../store/analytics-changes.ts';
import { kysely } from '../store/sql.ts';
import type { Analytics } from './clickhouse.ts';

export async function prepareAnalytics(target: ClickHouseTarget | null, db: Database, log: Logger): Promise<Analytics | null> {
  if (!target) {
    const waiting = await feedState(kysely(db.em()));
    if (waiting.installed)
      log.warn(
        { queuedChanges: waiting.rows },
        'the change feed to ClickHouse is on in this database but TALLY_CLICKHOUSE_URL is not set here: this instance does not export it. If no instance uses ClickHouse any more, turn it off: make cli ARGS="analytics feed-off"',
      );
    return null;
  }
  // loaded only here: an instance without ClickHouse never pays for its client
  const { openClickHouse } = await import('./clickhouse.ts');
  const analytics = openClickHouse(target, log);
  const firstTime = await db.exclusively(() => setFeed(kysely(db.em()), true));
  if (firstTime) log.info('analytics: the change feed to ClickHouse is on; every row already stored is queued for export');
  return analytics;
}
