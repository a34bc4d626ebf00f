// The evaluation workers of one server process: admit the jobs ingestion recorded in the intake
// into the database queue, claim due jobs from it (several
// processes on one PostgreSQL share it; SKIP LOCKED keeps them apart), run at most
// `concurrency` at once, and settle each job: COMPLETED with its score, DELAYED for a retryable
// provider failure (at most MAX_ATTEMPTS within MAX_AGE_MS), ERROR, or CANCELLED when what it
// was for is gone. A provider failure that no retry can fix pauses the evaluator, as in Langfuse.
import type { Database } from '../db/orm.ts';
import { backoffMs } from '../domain/backoff.ts';
import { executionTraceId, scoreId } from '../domain/evaluation/ids.ts';
import { compilePrompt } from '../domain/evaluation/prompt.ts';
import { isInternalEnvironment } from '../domain/evaluation/rule-match.ts';
import { extractVariables } from '../domain/evaluation/variables.ts';
import { LlmError, type LlmErrorKind } from '../domain/llm/call.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../app-context.ts';
import { JudgeAnswerError, runJudge } from '../llm/judge.ts';
import { ConnectionSecretsUnreadable } from '../llm/llm-gateway.ts';
import { admitJobs, claimJobs, finishJob, renewLease, type JobOutcome, type StoredJob } from '../store/evaluation-jobs.ts';
import { enabledRulesFor } from '../store/evaluation-rules.ts';
import { blockEvaluator } from '../store/evaluators.ts';
import { getConnectionByProvider } from '../store/llm-connections.ts';
import { getObservation } from '../store/observations.ts';
import { kysely } from '../store/sql.ts';

export const MAX_ATTEMPTS = 4;
export const MAX_AGE_MS = 2 * 3_600_000;
const POLL_MS = 500;
/** intake rows an idle poll admits before it claims (each a batch's jobs); more are taken at the next poll, at once */
const ADMIT_PER_POLL = 1_000;
/**
 * While ingestion is busy, one job per this. Each job is a judge call plus a batch of its own (the
 * execution trace and generation) and a score: one every 500 ms cost a saturating ingestion 2-3%
 * (bench/evaluation.ts, 2026-11-29).
 */
const BUSY_POLL_MS = 1_000;
/**
 * Idle, the poll interval doubles up to this: each poll is a query, and on the embedded database
 * a query costs CPU in this process (two polls a second and the reprice worker's one were ~1.2% of
 * a core at rest). Jobs committed here wake the worker at once, and a retry it schedules wakes it
 * when due; jobs another instance enqueues wait at most this long.
 */
const IDLE_POLL_MAX_MS = 4_000;
/**
 * Jobs run at least once: a job whose worker died (kill -9, a lost machine) is claimed again once
 * its lease runs out, and its judge call is repeated (the score keeps its id, so still one score).
 * A live worker renews the lease every LEASE_RENEW_MS while the call runs, so the lease can be
 * short: a dead worker's jobs wait at most LEASE_MS, not the LLM timeout. Renewal stops after the
 * LLM timeout plus LEASE_MARGIN_MS, so a stuck worker cannot hold a job for ever.
 */
export const LEASE_MS = 30_000;
const LEASE_RENEW_MS = 10_000;
const LEASE_MARGIN_MS = 60_000;

/** provider failures that pause the evaluator: retrying cannot fix them, the user must */
const BLOCK_REASONS: Partial<Record<LlmErrorKind, string>> = {
  auth_invalid: 'LLM_CONNECTION_AUTH_INVALID',
  billing_exhausted: 'LLM_CONNECTION_BILLING_EXHAUSTED',
  model_unavailable: 'EVAL_MODEL_UNAVAILABLE',
  unreachable: 'LLM_CONNECTION_ENDPOINT_UNREACHABLE',
};

export interface EvaluationWorkerOptions {
  concurrency: number;
  /**
   * True while ingestion keeps this process busy (batches under way for most of the last second):
   * the worker then starts at most one job per BUSY_POLL_MS, so judging (a full trace and
   * generation written per job, on the same cores) takes next to nothing of ingestion's
   * throughput yet never stops; it catches up at full concurrency when ingestion eases.
   */
  ingestionBusy?: () => boolean;
  /** the first retry's delay; each further one doubles it (half jitter: a random 50-100% of it is waited) */
  retryBaseMs: number;
  /** the lease and its renewal period (tests shorten them) */
  leaseMs?: number;
  leaseRenewMs?: number;
}

export class EvaluationWorker {
  private running = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  /** polls in a row that found nothing to do (the idle back-off) */
  private idlePolls = 0;
  private readonly idle = new Set<() => void>();
  private readonly leases = new WeakMap<StoredJob, () => Promise<unknown>>();
  private readonly db: Database;
  private readonly services: Services;
  private readonly log: Logger;
  private readonly opts: EvaluationWorkerOptions;

  constructor(db: Database, services: Services, log: Logger, opts: EvaluationWorkerOptions) {
    this.db = db;
    this.services = services;
    this.log = log;
    this.opts = opts;
  }

  start(): void {
    this.schedule(0);
  }

  /**
   * Jobs were committed: look now rather than at the next poll, unless ingestion is busy. Then
   * the worker keeps to its poll interval, one job at a time: a wake per committed batch ran a
   * judge call per batch, and an enabled rule at sampling 0.1 cost ingestion about 10%.
   */
  wake(): void {
    this.idlePolls = 0;
    if (!this.stopped && !this.opts.ingestionBusy?.()) this.schedule(0);
  }

  /** stops claiming, and resolves when the jobs in hand are settled */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.running > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), ms);
  }

  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    let claimed = 0;
    let admittedAll = true;
    try {
      const busy = this.opts.ingestionBusy?.() ?? false;
      // The intake's jobs become claimable rows here. While ingestion is busy, one intake row per
      // poll (a batch's jobs): admitting is PostgreSQL work on the cores ingestion is using, and
      // the one job a busy poll starts needs only a few; the rest are admitted when it eases.
      const limit = busy ? 1 : ADMIT_PER_POLL;
      admittedAll = (await admitJobs(kysely(this.db.em()), { limit })) < limit;
      const free = (busy ? 1 : this.opts.concurrency) - this.running;
      if (free > 0) {
        const jobs = await claimJobs(this.db.em(), free, new Date(Date.now() + (this.opts.leaseMs ?? LEASE_MS)));
        claimed = jobs.length;
        for (const job of jobs) {
          this.running++;
          void this.run(job).finally(() => {
            this.running--;
            if (this.running === 0) for (const done of this.idle) done();
            this.wake();
          });
        }
      }
    } catch (e) {
      this.log.error({ err: e }, 'evaluation jobs could not be claimed');
    } finally {
      this.polling = false;
      // a full claim may have left more due jobs behind: look again at once (not while ingestion is busy)
      const idle = claimed === 0 && this.running === 0 && admittedAll;
      this.idlePolls = idle ? this.idlePolls + 1 : 0;
      this.schedule(
        this.opts.ingestionBusy?.()
          ? BUSY_POLL_MS
          : (claimed > 0 && this.running < this.opts.concurrency) || !admittedAll
            ? 0
            : idle
              ? Math.min(POLL_MS * 2 ** (this.idlePolls - 1), IDLE_POLL_MAX_MS)
              : POLL_MS,
      );
    }
  }

  private retryDelay(attempt: number): number {
    return backoffMs(attempt, { baseMs: this.opts.retryBaseMs, jitter: 'half' });
  }

  private async settle(job: StoredJob, outcome: JobOutcome): Promise<void> {
    await this.leases.get(job)?.(); // no renewal may change the lease between here and the update matching it
    if (!(await finishJob(this.db.em(), job, outcome)))
      this.log.info({ job: job.id }, 'evaluation job was enqueued again while it ran; its newer run stands');
    // a retry is due then: look for it then, whatever the idle back-off has reached
    else if (outcome.status === 'DELAYED' && outcome.runAfter)
      setTimeout(() => this.wake(), Math.max(0, outcome.runAfter.getTime() - Date.now()) + 5).unref();
  }

  /** retry when attempts and age allow, else record the error */
  private retryOrFail(job: StoredJob, message: string): JobOutcome {
    const age = Date.now() - (job.firstAttemptAt ?? job.createdAt).getTime();
    if (job.attempts < MAX_ATTEMPTS && age < MAX_AGE_MS)
      return { status: 'DELAYED', error: message, runAfter: new Date(Date.now() + this.retryDelay(job.attempts)) };
    return { status: 'ERROR', error: message };
  }

  private async block(job: StoredJob, reason: string, message: string): Promise<void> {
    await blockEvaluator(this.db.em(), job.projectId, job.evaluatorId, reason, message);
    this.services.evaluation?.rules.invalidate(job.projectId);
  }

  /** renews the job's lease while it runs, up to the LLM timeout plus a margin; returns the stop */
  private keepLease(job: StoredJob): () => Promise<unknown> {
    const leaseMs = this.opts.leaseMs ?? LEASE_MS;
    const giveUpAt = Date.now() + this.services.llmTimeoutMs + LEASE_MARGIN_MS;
    let renewing: Promise<unknown> = Promise.resolve();
    const timer = setInterval(() => {
      if (Date.now() + leaseMs > giveUpAt) return clearInterval(timer);
      renewing = renewLease(this.db.em(), job, new Date(Date.now() + leaseMs))
        .then((held) => {
          if (!held) clearInterval(timer);
        })
        .catch((err) => this.log.warn({ err, job: job.id }, 'evaluation job lease could not be renewed'));
    }, this.opts.leaseRenewMs ?? LEASE_RENEW_MS);
    timer.unref();
    // settling must not race a renewal that changes the lease it matches on
    return () => {
      clearInterval(timer);
      return renewing;
    };
  }

  private async run(job: StoredJob): Promise<void> {
    const stopLease = this.keepLease(job);
    this.leases.set(job, stopLease);
    try {
      await this.runHeld(job);
    } finally {
      await stopLease();
    }
  }

  private async runHeld(job: StoredJob): Promise<void> {
    const em = this.db.em();
    try {
      // the cached rules (invalidated by every rule, evaluator and connection write of this process, 2 s otherwise)
      const rules = this.services.evaluation
        ? await this.services.evaluation.rules.get(em, job.projectId)
        : await enabledRulesFor(em, job.projectId);
      const rule = rules.find((r) => r.id === job.ruleId);
      const a = rule?.assignments.find((x) => x.assignmentId === job.assignmentId);
      if (!rule || !a)
        return await this.settle(job, {
          status: 'CANCELLED',
          error: 'The rule, its evaluator or the assignment is gone or no longer enabled',
        });
      if (a.blocked) return await this.settle(job, { status: 'CANCELLED', error: `The evaluator is paused: ${a.blocked.reason}` });
      if (a.evaluatorType !== 'llm_as_judge')
        return await this.settle(job, { status: 'ERROR', error: 'Code evaluators are not supported by Tally' });
      const obs = await getObservation(kysely(em), job.projectId, job.observationId);
      if (!obs) return await this.settle(job, { status: 'CANCELLED', error: 'The observation is gone' });
      if (isInternalEnvironment(obs.environment))
        return await this.settle(job, { status: 'CANCELLED', error: `Observations in environment ${obs.environment} are not evaluated` });
      if (!a.modelConfig) {
        const message = 'The evaluator has no model, and Tally has no project default evaluation model: set modelConfig on the evaluator';
        await this.block(job, 'DEFAULT_EVAL_MODEL_MISSING', message);
        return await this.settle(job, { status: 'ERROR', error: message });
      }
      const connection = await getConnectionByProvider(em, job.projectId, a.modelConfig.provider);
      if (!connection) {
        const message = `No LLM connection with provider "${a.modelConfig.provider}" in this project`;
        await this.block(job, 'LLM_CONNECTION_MISSING', message);
        return await this.settle(job, { status: 'ERROR', error: message });
      }
      const prompt = compilePrompt(a.prompt ?? '', extractVariables(obs, a.mapping));
      const traceId = executionTraceId(job.id);
      const verdict = await runJudge(em, this.services, job.projectId, {
        connection,
        model: a.modelConfig.model,
        prompt,
        outputDefinition: a.outputDefinition,
        evaluatorName: a.evaluatorName,
        executionTraceId: traceId,
        target: { traceId: job.traceId, observationId: job.observationId, environment: obs.environment },
        scoreName: a.evaluatorName,
        scoreId: (name, i) => scoreId(job.id, name, i),
        metadata: {
          job_execution_id: job.id,
          job_configuration_id: rule.id,
          evaluation_rule_id: rule.id,
          evaluation_rule_assignment_id: a.assignmentId,
          evaluator_id: a.evaluatorId,
          evaluator_version_id: a.evaluatorVersionId,
          target_trace_id: job.traceId,
          target_observation_id: job.observationId,
        },
      });
      await this.settle(job, { status: 'COMPLETED', scoreId: verdict.scores[0]?.id ?? null, executionTraceId: traceId });
    } catch (e) {
      if (e instanceof LlmError) {
        const reason = BLOCK_REASONS[e.kind];
        if (reason) {
          await this.block(job, reason, e.message);
          return await this.settle(job, { status: 'ERROR', error: e.message });
        }
        // as in Langfuse, 408, 409, 429 and >= 500 are rescheduled; so is a timeout (README: "A 429/5xx/timeout is retried")
        if (e.retryable || e.kind === 'timeout') return await this.settle(job, this.retryOrFail(job, e.message));
        return await this.settle(job, { status: 'ERROR', error: e.message });
      }
      if (e instanceof JudgeAnswerError || e instanceof ConnectionSecretsUnreadable)
        return await this.settle(job, { status: 'ERROR', error: e.message });
      this.log.error({ err: e, job: job.id }, 'evaluation job failed');
      await this.settle(job, this.retryOrFail(job, 'An internal error occurred')).catch((err) =>
        this.log.error({ err }, 'evaluation job could not be settled'),
      );
    }
  }
}
