// Evaluation jobs at rest (migration 13): enqueued by ingestion inside its transaction, claimed
// by workers with FOR UPDATE SKIP LOCKED under a lease, finished only by the lease holder.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { kysely, prepared, sql, toDate, type Db, type Timestamp } from './sql.ts';

export type JobStatus = 'PENDING' | 'DELAYED' | 'RUNNING' | 'COMPLETED' | 'ERROR' | 'CANCELLED';

export interface NewJob {
  id: string;
  ruleId: string;
  assignmentId: string;
  evaluatorId: string;
  traceId: string;
  observationId: string;
}

export interface StoredJob extends NewJob {
  projectId: string;
  status: JobStatus;
  attempts: number;
  runAfter: Date;
  /** the claim's token: only the holder of this lease may finish the job */
  leaseUntil: Date | null;
  firstAttemptAt: Date | null;
  error: string | null;
  scoreId: string | null;
  executionTraceId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** a row of `evaluation_jobs` */
interface JobRow {
  project_id: string;
  id: string;
  rule_id: string;
  assignment_id: string;
  evaluator_id: string;
  trace_id: string;
  observation_id: string;
  status: JobStatus;
  attempts: number;
  run_after: Timestamp;
  lease_until: Timestamp | null;
  first_attempt_at: Timestamp | null;
  error: string | null;
  score_id: string | null;
  execution_trace_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

const fromRow = (r: JobRow): StoredJob => ({
  projectId: r.project_id,
  id: r.id,
  ruleId: r.rule_id,
  assignmentId: r.assignment_id,
  evaluatorId: r.evaluator_id,
  traceId: r.trace_id,
  observationId: r.observation_id,
  status: r.status,
  attempts: Number(r.attempts),
  runAfter: toDate(r.run_after),
  leaseUntil: r.lease_until ? toDate(r.lease_until) : null,
  firstAttemptAt: r.first_attempt_at ? toDate(r.first_attempt_at) : null,
  error: r.error ?? null,
  scoreId: r.score_id ?? null,
  executionTraceId: r.execution_trace_id ?? null,
  createdAt: toDate(r.created_at),
  updatedAt: toDate(r.updated_at),
});

const textArray = (values: string[]) => sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

/**
 * New jobs PENDING; a job that exists (the observation was ingested again) goes back to PENDING
 * with its attempts reset, so it runs on what the observation holds now. Ids in one order, so
 * concurrent batches enqueueing the same jobs queue rather than deadlock.
 */
export async function enqueueJobs(db: Db, projectId: string, jobs: NewJob[]): Promise<void> {
  if (!jobs.length) return;
  // prepared on PostgreSQL like the other statements of a batch (its text is the same for every batch)
  await prepared('enqueue_evaluation_jobs', sql`with ${enqueueJobsCte(projectId, jobs)} select 1`).execute(db);
}

/**
 * enqueueJobs' insert as a common table expression (`enqueued_jobs`), for ingestion to run in the
 * statement that writes the jobs' observations: one round trip less per batch (a data-modifying
 * CTE runs whether or not the statement reads it). Its text is the same whatever the jobs.
 */
export function enqueueJobsCte(projectId: string, jobs: NewJob[]) {
  const sorted = [...jobs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const col = (f: keyof NewJob) => textArray(sorted.map((j) => j[f]));
  return sql`enqueued_jobs as (insert into evaluation_jobs (project_id, id, rule_id, assignment_id, evaluator_id, trace_id, observation_id, status)
    select ${projectId}, u.* , 'PENDING' from unnest(${col('id')}, ${col('ruleId')}, ${col('assignmentId')}, ${col('evaluatorId')}, ${col('traceId')}, ${col('observationId')})
      as u(id, rule_id, assignment_id, evaluator_id, trace_id, observation_id)
    on conflict (project_id, id) do update set status = 'PENDING', attempts = 0, run_after = now(), lease_until = null, first_attempt_at = null,
      error = null, updated_at = now())`;
}

/** up to `limit` due jobs (PENDING or DELAYED and due, or RUNNING with an expired lease), now RUNNING under a lease until `leaseUntil` */
export async function claimJobs(em: SqlEntityManager, limit: number, leaseUntil: Date): Promise<StoredJob[]> {
  const { rows } =
    await sql<JobRow>`update evaluation_jobs j set status = 'RUNNING', lease_until = ${leaseUntil}, attempts = j.attempts + 1,
      first_attempt_at = coalesce(j.first_attempt_at, now()), updated_at = now()
    from (select project_id, id from evaluation_jobs
          where (status in ('PENDING', 'DELAYED') and run_after <= now()) or (status = 'RUNNING' and lease_until < now())
          order by run_after, id limit ${limit} for update skip locked) due
    where j.project_id = due.project_id and j.id = due.id
    returning j.*`.execute(kysely(em));
  return rows.map(fromRow);
}

/**
 * The holder extends its lease while the judge call runs; the new lease is the job's token from
 * then on. False when the lease was lost meanwhile (reclaimed after expiry, or enqueued again).
 */
export async function renewLease(em: SqlEntityManager, job: StoredJob, until: Date): Promise<boolean> {
  const r = await sql`update evaluation_jobs set lease_until = ${until}
    where project_id = ${job.projectId} and id = ${job.id} and status = 'RUNNING' and lease_until = ${job.leaseUntil}`.execute(kysely(em));
  if (Number(r.numAffectedRows ?? 0) === 0) return false;
  job.leaseUntil = until;
  return true;
}

export interface JobOutcome {
  status: Exclude<JobStatus, 'PENDING' | 'RUNNING'>;
  error?: string | null;
  scoreId?: string | null;
  executionTraceId?: string | null;
  runAfter?: Date;
}

/** false when the lease was lost (the job was enqueued again or reclaimed meanwhile): nothing is written */
export async function finishJob(em: SqlEntityManager, job: StoredJob, outcome: JobOutcome): Promise<boolean> {
  const r =
    await sql`update evaluation_jobs set status = ${outcome.status}, error = ${outcome.error ?? null}, score_id = ${outcome.scoreId ?? null},
      execution_trace_id = ${outcome.executionTraceId ?? null}, run_after = ${outcome.runAfter ?? new Date()}, lease_until = null, updated_at = now()
    where project_id = ${job.projectId} and id = ${job.id} and status = 'RUNNING' and lease_until = ${job.leaseUntil}`.execute(kysely(em));
  return Number(r.numAffectedRows ?? 0) > 0;
}

export async function listRuleJobs(em: SqlEntityManager, projectId: string, ruleId: string, page: number, limit: number) {
  const db = kysely(em);
  const { rows } = await sql<JobRow>`select * from evaluation_jobs where project_id = ${projectId} and rule_id = ${ruleId}
    order by created_at desc, id limit ${limit} offset ${(page - 1) * limit}`.execute(db);
  const { rows: n } = await sql<{
    n: string;
  }>`select count(*) as n from evaluation_jobs where project_id = ${projectId} and rule_id = ${ruleId}`.execute(db);
  return { jobs: rows.map(fromRow), total: Number(n[0]!.n) };
}

/**
 * An ERROR or CANCELLED job of the rule queued again as a new one (attempts from zero, due now);
 * `{ job }` when queued, `{ status }` when the job is in another state, null when there is none
 */
export async function retryJob(
  em: SqlEntityManager,
  projectId: string,
  ruleId: string,
  jobId: string,
): Promise<{ job: StoredJob } | { status: JobStatus } | null> {
  const db = kysely(em);
  const { rows } = await sql<JobRow>`update evaluation_jobs set status = 'PENDING', attempts = 0, run_after = now(), lease_until = null,
      first_attempt_at = null, error = null, updated_at = now()
    where project_id = ${projectId} and rule_id = ${ruleId} and id = ${jobId} and status in ('ERROR', 'CANCELLED')
    returning *`.execute(db);
  if (rows[0]) return { job: fromRow(rows[0]) };
  const { rows: found } = await sql<{ status: JobStatus }>`select status from evaluation_jobs
    where project_id = ${projectId} and rule_id = ${ruleId} and id = ${jobId}`.execute(db);
  return found[0] ? { status: found[0].status } : null;
}

/** jobs not yet finished, all projects (the bench and tests wait on this) */
export async function openJobCount(em: SqlEntityManager): Promise<number> {
  const { rows } = await sql<{
    n: string;
  }>`select count(*) as n from evaluation_jobs where status in ('PENDING', 'DELAYED', 'RUNNING')`.execute(kysely(em));
  return Number(rows[0]!.n);
}
