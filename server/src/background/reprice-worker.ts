// Runs reprice jobs (issue 25): takes the oldest open job no live lease holds, then prices its
// generations again batch by batch, each batch one transaction that locks its rows as ingestion
// does, writes the changed ones through ingestion's own upsert (so the metrics roll-ups and the
// ClickHouse feed follow in the same statement), and moves the job's cursor and report. Two
// batches are in flight: while one writes, the next reads and prices the rows after it (its own
// transaction, its own connection), then waits for the first to commit before it takes the job's
// row and writes, so batches still commit in cursor order (1 M generations: 76 s one at a time). A
// crash rolls back the batches in flight; the lease runs out and any instance resumes from the
// cursor.
import type { Services } from '../app-context.ts';
import type { Database } from '../db/orm.ts';
import { backoffMs } from '../domain/backoff.ts';
import type { ObservationRecord } from '../domain/ingestion/types.ts';
import { pricingChanged, RepriceReport, usd } from '../domain/pricing/reprice.ts';
import { repriceObservation } from '../ingestion/price.ts';
import type { Logger } from '../logger.ts';
import { modelRevision } from '../store/models.ts';
import { updateObservationPricing } from '../store/observations.ts';
import {
  finishRepriceJob,
  lockRepriceJob,
  nextGenerations,
  recordRepriceBatch,
  type RepriceJobRecord,
  takeRepriceJob,
} from '../store/reprice-jobs.ts';
import { isTransientConflict, kysely } from '../store/sql.ts';

export interface RepriceWorkerOptions {
  /** generations per batch (one transaction) */
  batchSize?: number;
  /** how long a job stays with its worker without a batch done */
  leaseMs?: number;
  /** the pause when no job is open */
  idleMs?: number;
  /** tests: called after each committed batch; throwing stops the worker as a crash would */
  afterBatch?: (job: RepriceJobRecord) => void;
  /** tests: called inside each batch's transaction before it writes; throwing rolls the batch back */
  beforeWrite?: () => void;
  /** batches in flight (TALLY_REPRICE_IN_FLIGHT): 2 reads the next batch while one writes; 1 leaves ingestion more of the machine */
  batchesInFlight?: 1 | 2;
}

const RETRY = { baseMs: 500, maxMs: 30_000, jitter: 'half' } as const;
/** conflicts in a row before a job fails */
const MAX_CONFLICTS = 5;
const byId = (a: ObservationRecord, b: ObservationRecord) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

type Cursor = NonNullable<RepriceJobRecord['cursor']>;
/** a batch's end: written (more may follow), no generation left, or the job held by another worker */
type Outcome = 'more' | 'finished' | 'lost';

export class RepriceWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly idleMs: number;
  private readonly db: Database;
  private readonly services: Services;
  private readonly log: Logger;
  private readonly opts: RepriceWorkerOptions;

  constructor(db: Database, services: Services, log: Logger, opts: RepriceWorkerOptions = {}) {
    this.db = db;
    this.services = services;
    this.log = log;
    this.opts = opts;
    this.batchSize = opts.batchSize ?? 2_000;
    this.leaseMs = opts.leaseMs ?? 30_000;
    // a job created here wakes the worker; one created by another instance waits at most this
    // (each look is a query: on the embedded database, CPU in this process at rest)
    this.idleMs = opts.idleMs ?? 5_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** a job was created: look now rather than after the pause */
  wake(): void {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
  }

  /** takes one open job and runs it to its end; false when none was open */
  async runOnce(): Promise<boolean> {
    const job = await takeRepriceJob(kysely(this.db.em()), this.leaseMs);
    if (!job) return false;
    try {
      let conflicts = 0;
      let end: 'done' | 'lost' | 'stopped';
      for (;;) {
        try {
          end = await this.pipeline(job);
          break;
        } catch (e) {
          // a deadlock or a concurrent write with ingestion rolled a batch back: the job goes on
          // from the last batch committed
          if (!isTransientConflict(e) || ++conflicts > MAX_CONFLICTS) throw e;
          await new Promise((r) => setTimeout(r, backoffMs(conflicts, RETRY)));
        }
      }
      if (end !== 'done') return true; // lost to another worker, or stopping: the lease runs out, another resumes
      await finishRepriceJob(kysely(this.db.em()), job, null);
      this.log.info({ jobId: job.id }, 'reprice job done');
    } catch (e) {
      if ((e as { crash?: boolean }).crash) throw e;
      this.log.error({ err: e, jobId: job.id }, 'reprice job failed');
      await finishRepriceJob(kysely(this.db.em()), job, (e as Error).message);
    }
    return true;
  }

  /**
   * Batches from the job's cursor, two in flight, until no generation is left ('done'), another
   * worker holds the job ('lost') or the worker stops. A batch that fails fails the one after it
   * (which waits for it before writing): the error comes out once both have settled, and
   * job.cursor is the last batch committed.
   */
  private async pipeline(job: RepriceJobRecord): Promise<'done' | 'lost' | 'stopped'> {
    let previous: Promise<Outcome> = Promise.resolve('more');
    let after = job.cursor;
    for (;;) {
      if (!this.running && this.loop !== null) {
        await previous;
        return 'stopped';
      }
      const batch = this.batch(job, after, previous);
      let last: Cursor | null;
      try {
        last = await batch.read;
      } catch (e) {
        await Promise.allSettled([previous, batch.done]);
        throw e;
      }
      // in commit order (each batch waits for this before it writes): the cursor, then the test hook
      const committed = batch.done.then((outcome) => {
        if (outcome === 'more') {
          job.cursor = last;
          this.opts.afterBatch?.(job);
        }
        return outcome;
      });
      committed.catch(() => {}); // observed below or by the batch after it
      if (last === null) return (await committed) === 'lost' ? 'lost' : 'done';
      // one at a time: this batch commits before the next one reads
      if (this.opts.batchesInFlight === 1 && (await committed) === 'lost') return 'lost';
      // at most two in flight: the one before this must be done before a third starts
      let before: Outcome;
      try {
        before = await previous;
      } catch (e) {
        await Promise.allSettled([committed]);
        throw e;
      }
      if (before === 'lost') {
        await Promise.allSettled([committed]);
        return 'lost';
      }
      previous = committed;
      after = last;
    }
  }

  /**
   * One batch in one transaction: the generations after `after` read, locked and priced, then,
   * once `previous` has committed, the job's row taken (its cursor must be `after`), the changes
   * written and the report moved. `read` gives the batch's last row (null: none left).
   */
  private batch(
    job: RepriceJobRecord,
    after: Cursor | null,
    previous: Promise<Outcome>,
  ): { read: Promise<Cursor | null>; done: Promise<Outcome> } {
    let gotRead!: (c: Cursor | null) => void;
    let failedRead!: (e: unknown) => void;
    const read = new Promise<Cursor | null>((resolve, reject) => {
      gotRead = resolve;
      failedRead = reject;
    });
    const done = this.db.em().transactional(async (em): Promise<Outcome> => {
      const db = kysely(em);
      const at = { ...job, cursor: after };
      const { records, last } = await nextGenerations(db, at, this.batchSize);
      gotRead(last);
      const matcher = last ? await this.services.models.matcherFor(em, job.projectId, await modelRevision(db, job.projectId)) : null;
      const priced = records.map((rec) => ({ rec, record: repriceObservation(rec, matcher!).record }));
      // the batch before commits first: its cursor is where this one starts
      const before = await previous;
      if (before === 'lost') return 'lost';
      const current = await lockRepriceJob(db, at, this.leaseMs);
      if (!current) return 'lost';
      if (!last) return 'finished';
      // the report so far, plus this batch (its totals start at 0: the job's totals add this batch's)
      const report = new RepriceReport(current.changes);
      const changed: ObservationRecord[] = [];
      const was: ObservationRecord[] = [];
      const only = current.modelIds ? new Set(current.modelIds) : null;
      for (const { rec, record } of priced) {
        if (only && !only.has(rec.modelId ?? '') && !only.has(record.modelId ?? '')) continue;
        if (!pricingChanged(rec, record)) continue;
        report.add(rec, record);
        changed.push({ ...record, updatedAt: new Date() });
        was.push(rec);
      }
      // the pricing columns alone, with the roll-ups in the same statement (as ingestion's upsert);
      // the ClickHouse feed's triggers see the update
      this.opts.beforeWrite?.();
      if (!current.dryRun && changed.length) await updateObservationPricing(db, current.projectId, changed.sort(byId), was);
      await recordRepriceBatch(db, current, {
        last,
        scanned: records.length,
        changed: changed.length,
        before: String(usd(report.before)),
        after: String(usd(report.after)),
        changes: report.toLines(),
      });
      return 'more';
    });
    done.catch(failedRead); // a failure before the read settles it too (no effect after)
    return { read, done };
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let found = false;
      try {
        found = await this.runOnce();
        failures = 0;
      } catch (e) {
        failures++;
        this.log.warn({ err: e, attempt: failures }, 'taking a reprice job failed; trying again');
        await this.pause(backoffMs(failures, RETRY));
        continue;
      }
      if (!found) await this.pause(this.idleMs);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        this.wakeUp = null;
        resolve();
      };
    });
  }
}
