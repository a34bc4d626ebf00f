// Folds the trace count deltas into trace_counts every few seconds (store/trace-counts.ts), so a
// count of traces reads a few hundred delta rows at most. Every instance runs it.
import type { Database } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { kysely } from '../store/sql.ts';
import { foldTraceCounts } from '../store/trace-counts.ts';

/** starts the folding; the returned function stops it and waits for a run in progress */
export function startTraceCountFolding(db: Database, log: Logger, everyMs = 5_000): () => Promise<void> {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= (async () => {
      // a backlog (a bulk load) is folded in bounded statements
      while ((await foldTraceCounts(kysely(db.em()))) === 50_000);
    })()
      .catch((e) => log.warn({ err: e }, 'folding trace counts failed; retrying at the next run'))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
