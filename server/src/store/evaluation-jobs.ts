// Evaluation jobs at rest (migration 13): recorded by ingestion inside its transaction in the
// intake (migration 25), admitted from it into the queue by the workers, claimed with FOR UPDATE
// SKIP LOCKED under a lease, finished only by the lease holder.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { kysely, sql, toDate, type Db, type Timestamp } from './sql.ts';

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

/** jobs straight into evaluation_jobs, through the intake as ingestion's are (tests and tools) */
export async function enqueueJobs(db: Db, projectId: string, jobs: NewJob[]): Promise<void> {
  if (!jobs.length) return;
  await sql`with ${intakeJobsCte(projectId, jobs)} select 1`.execute(db);
  await admitJobs(db, { projectId });
}

/**
 * A batch's jobs as one row of `evaluation_intake`, for ingestion to run in the statement that
 * writes the jobs' observations (a data-modifying CTE runs whether or not the statement reads
 * it): the jobs commit with their observations or not at all, at the cost of one small row
 * (migration 25 says what a job row cost). Its text is the same whatever the jobs.
 */
export function intakeJobsCte(projectId: string, jobs: NewJob[]) {
  const tuples = jobs.map((j) => [j.id, j.ruleId, j.assignmentId, j.evaluatorId, j.traceId, j.observationId]);
  return sql`intake_jobs as (insert into evaluation_intake (project_id, jobs) values (${projectId}, ${JSON.stringify(tuples)}::json))`;
}

/** intake rows per admission statement: a few thousand jobs, one transaction of a few ms */
const ADMIT_CHUNK = 200;

/**
 * Moves up to `limit` intake rows (oldest first; all of them when no limit) into evaluation_jobs,
 * of one project or of all: new jobs PENDING, created when their batch was stored; a job that
 * exists (the observation was ingested again) goes back to PENDING with its attempts reset, so it
 * runs on what the observation holds now. Several instances admit disjoint rows (SKIP LOCKED);
 * the jobs are written in id order, so two admissions of the same job queue rather than
 * deadlock, and a job in two rows of one admission is written once (ON CONFLICT cannot touch a
 * row twice). Returns the intake rows moved.
 */
export async function admitJobs(db: Db, opts: { projectId?: string; limit?: number } = {}): Promise<number> {
  let moved = 0;
  for (;;) {
    const take = Math.min(opts.limit === undefined ? ADMIT_CHUNK : opts.limit - moved, ADMIT_CHUNK);
    if (take <= 0) return moved;
    const { rows } = await sql<{ n: string }>`with taken as (
        delete from evaluation_intake where seq in (
          select seq from evaluation_intake ${opts.projectId === undefined ? sql`` : sql`where project_id = ${opts.projectId}`}
          order by seq limit ${take} for update skip locked)
        returning seq, project_id, jobs, created_at),
      latest as (
        select distinct on (t.project_id, j->>0) t.project_id, j->>0 as id, j->>1 as rule_id, j->>2 as assignment_id,
          j->>3 as evaluator_id, j->>4 as trace_id, j->>5 as observation_id, t.created_at
        from taken t cross join lateral json_array_elements(t.jobs) j
        order by t.project_id, j->>0, t.seq desc),
      admitted as (
        insert into evaluation_jobs (project_id, id, rule_id, assignment_id, evaluator_id, trace_id, observation_id, status, run_after, created_at, updated_at)
        select project_id, id, rule_id, assignment_id, evaluator_id, trace_id, observation_id, 'PENDING', created_at, created_at, created_at
        from latest order by project_id, id
        on conflict (project_id, id) do update set status = 'PENDING', attempts = 0, run_after = now(), lease_until = null,
          first_attempt_at = null, error = null, updated_at = now())
      select count(*) as n from taken`.execute(db);
    const n = Number(rows[0]!.n);
    moved += n;
    if (n < take) return moved;
  }
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
  // the project's jobs still in the intake (the worker admits them when ingestion eases) are listed too
  await admitJobs(db, { projectId });
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
  await admitJobs(db, { projectId });
  const { rows } = await sql<JobRow>`update evaluation_jobs set status = 'PENDING', attempts = 0, run_after = now(), lease_until = null,
      first_attempt_at = null, error = null, updated_at = now()
    where project_id = ${projectId} and rule_id = ${ruleId} and id = ${jobId} and status in ('ERROR', 'CANCELLED')
    returning *`.execute(db);
  if (rows[0]) return { job: fromRow(rows[0]) };
  const { rows: found } = await sql<{ status: JobStatus }>`select status from evaluation_jobs
    where project_id = ${projectId} and rule_id = ${ruleId} and id = ${jobId}`.execute(db);
  return found[0] ? { status: found[0].status } : null;
}
