// Fresh planner statistics while a new database fills up.
//
// The ingestion statements are prepared once per connection (db/prepared.ts), and PostgreSQL
// keeps the generic plan it makes for one after a few runs until the table is next analysed. On
// a new database that plan is made while the tables hold a few hundred rows, where looking an id
// up through any (project_id, …) index costs the planner the same as through the primary key;
// it can pick observations_trace_idx and then scan every row of the project for each id of each
// batch. autovacuum analyses the table within about a minute (autovacuum_naptime), but at full
// ingestion speed that minute is hundreds of thousands of rows: measured with such a plan, the
// claim statement went from 0.4 to 1.8 ms per looked-up id within 20 s of ingestion. ANALYZE
// invalidates the cached plans of every session, and a plan made with statistics of a thousand
// rows looks ids up through the primary key, which stays right as the table grows. So this
// process analyses the ingestion tables itself when the rows it has written cross each of a few
// thresholds; past the last one autovacuum's schedule is enough.

import { sql, type Db } from './sql.ts';

/**
 * The tables every batch looks ids up in, their key columns only: that sets the row and page
 * counts the plans scale by and invalidates the cached plans, without reading the jsonb payloads
 * (analysing every column of 10,000 text-heavy observations cost ~0.4 s of the backend's CPU;
 * autovacuum analyses every column later).
 */
export const analyzeIngestionTables = async (db: Db): Promise<void> => {
  await sql`analyze observations (project_id, id, trace_id, start_time), traces (project_id, id, timestamp), ingested_events (project_id, event_id)`.execute(
    db,
  );
};

/** rows written by this process after which the tables are analysed */
export const ANALYZE_AFTER_ROWS = [1_000, 10_000] as const;

export interface GrowthAnalyzer {
  /** a batch that wrote this many rows committed */
  written(rows: number): void;
  /** resolves when no ANALYZE is running */
  idle(): Promise<void>;
  /** ANALYZE runs completed without error */
  readonly runs: number;
}

/**
 * `analyze` runs at most once at a time, off the batch's transaction; a failure is reported and
 * not retried (autovacuum still runs).
 */
export function analyzeAsTablesGrow(
  analyze: () => Promise<void>,
  onError: (err: unknown) => void,
  thresholds: readonly number[] = ANALYZE_AFTER_ROWS,
): GrowthAnalyzer {
  let total = 0,
    next = 0,
    runs = 0;
  let running: Promise<void> | null = null;
  return {
    written(rows) {
      total += rows;
      if (next >= thresholds.length || total < thresholds[next]!) return;
      while (next < thresholds.length && total >= thresholds[next]!) next++;
      // crossed while one runs: that one may have sampled too few rows, so run again after it
      const previous = running ?? Promise.resolve();
      const run: Promise<void> = previous
        .then(analyze)
        .then(() => {
          runs++;
        }, onError)
        .finally(() => {
          if (running === run) running = null;
        });
      running = run;
    },
    idle: () => running ?? Promise.resolve(),
    get runs() {
      return runs;
    },
  };
}
