// TALLY_POSTGRES_RETENTION_DAYS with ClickHouse: observations, traces and scores older than the
// retention leave PostgreSQL once ClickHouse holds them (never one with a change still waiting
// in the feed), in small batches so ingestion never waits long on them. Reads by id and late
// updates of such rows go to ClickHouse (analytics/reads.ts). Hourly, and a minute after start.
import type { Database } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { deleteExported, projectIds } from '../store/analytics-changes.ts';
import { kysely } from '../store/sql.ts';

const BATCH = 1000;
const EVERY_MS = 3_600_000;
const FIRST_AFTER_MS = 60_000;

/** one pass over every project and table; returns the rows deleted */
export async function pruneExported(db: Database, retentionDays: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * 86_400_000);
  const k = kysely(db.em());
  let total = 0;
  for (const projectId of await projectIds(k))
    for (const entity of ['s', 'o', 't'] as const)
      for (;;) {
        const n = await deleteExported(k, entity, projectId, before, BATCH);
        total += n;
        if (n < BATCH) break;
      }
  return total;
}

export function startPostgresRetention(db: Database, retentionDays: number, log: Logger): () => Promise<void> {
  let running: Promise<void> | null = null;
  const pass = () => {
    running = pruneExported(db, retentionDays)
      .then((n) => {
        if (n) log.info({ rows: n, retentionDays }, 'rows past the PostgreSQL retention deleted (ClickHouse keeps them)');
      })
      .catch((err) => log.warn({ err }, 'PostgreSQL retention pass failed; the next one tries again'))
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(pass, FIRST_AFTER_MS);
  const timer = setInterval(pass, EVERY_MS);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
