// Runs reprice jobs (issue 25): takes the oldest open job no live lease holds, then prices its
// generations again batch by batch, each batch one transaction that locks its rows as ingestion
// does, writes the changed ones through ingestion's own upsert (so the metrics roll-ups and the
// ClickHouse feed follow in the same statement), and moves the job's cursor and report. A crash
// rolls back the batch in flight; the lease runs out and any instance resumes from the cursor.
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
}

const RETRY = { baseMs: 500, maxMs: 30_000, jitter: 'half' } as const;
/** conflicts in a row before a job fails */
const MAX_CONFLICTS = 5;
const byId = (a: ObservationRecord, b: ObservationRecord) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

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
    this.idleMs = opts.idleMs ?? 1_000;
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
      while (this.running || this.loop === null) {
        let more: boolean | 'lost';
        try {
          more = await this.batch(job);
          conflicts = 0;
        } catch (e) {
          // a deadlock or a concurrent write with ingestion rolled the batch back: it runs again
          if (!isTransientConflict(e) || ++conflicts > MAX_CONFLICTS) throw e;
          await new Promise((r) => setTimeout(r, backoffMs(conflicts, RETRY)));
          continue;
        }
        if (more === 'lost') return true;
        if (!more) break;
        this.opts.afterBatch?.(job);
      }
      if (!this.running && this.loop !== null) return true; // stopping: the lease runs out, another resumes
      await finishRepriceJob(kysely(this.db.em()), job, null);
      this.log.info({ jobId: job.id }, 'reprice job done');
    } catch (e) {
      if ((e as { crash?: boolean }).crash) throw e;
      this.log.error({ err: e, jobId: job.id }, 'reprice job failed');
      await finishRepriceJob(kysely(this.db.em()), job, (e as Error).message);
    }
    return true;
  }

  /** one batch in one transaction: true when more may follow, false when the job is done, 'lost' when another worker holds it */
  private async batch(job: RepriceJobRecord): Promise<boolean | 'lost'> {
    return this.db.em().transactional(async (em) => {
      const db = kysely(em);
      const current = await lockRepriceJob(db, job, this.leaseMs);
      if (!current) return 'lost';
      const { records, last } = await nextGenerations(db, current, this.batchSize);
      if (!last) return false;
      const matcher = await this.services.models.matcherFor(em, current.projectId, await modelRevision(db, current.projectId));
      // the report so far, plus this batch (its totals start at 0: the job's totals add this batch's)
      const report = new RepriceReport(current.changes);
      const changed: ObservationRecord[] = [];
      const was: ObservationRecord[] = [];
      const only = current.modelIds ? new Set(current.modelIds) : null;
      for (const rec of records) {
        const { record } = repriceObservation(rec, matcher);
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
      job.cursor = last;
      return true;
    });
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
