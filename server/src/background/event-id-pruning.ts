// Forgets applied event ids older than the retention window, hourly (store/ingested-events.ts).
// Instances sharing a database may all run it: deleting the same old rows twice is harmless.
import type { Database } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { pruneIngestedEvents } from '../store/ingested-events.ts';
import { kysely } from '../store/sql.ts';

const DAY_MS = 86_400_000;

/** starts the hourly pruning; the returned function stops it and waits for a run in progress */
export function startEventIdPruning(db: Database, retentionDays: number, log: Logger, everyMs = 3_600_000): () => Promise<void> {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= pruneIngestedEvents(kysely(db.em()), new Date(Date.now() - retentionDays * DAY_MS))
      .then((n) => {
        if (n) log.info({ deleted: n, retentionDays }, 'forgot applied event ids past the retention window');
      })
      .catch((e) => log.warn({ err: e }, 'pruning applied event ids failed; retrying at the next run'))
      .finally(() => {
        running = null;
      });
  };
  // the first run waits a minute so that start-up is not slowed
  const first = setTimeout(run, Math.min(60_000, everyMs));
  const timer = setInterval(run, everyMs);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
