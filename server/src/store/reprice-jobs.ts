// Reprice jobs at rest (migration 20): created by the API, taken by one worker at a time under a
// lease (FOR UPDATE SKIP LOCKED; a lease run out means its holder died, and another takes the job
// over from its cursor), and the generations a job reads next.
import type { ObservationRecord } from '../domain/ingestion/types.ts';
import { REPRICED_STATUSES, type RepriceChangeLine } from '../domain/pricing/reprice.ts';
import { PRICED_OBSERVATION_TYPES } from '../domain/usage/priced-types.ts';
import { fromRow as observationFromRow, type ObservationRow, PRICING_READ_COLUMNS } from './observations.ts';
import { sql, toDate, type Db, type Timestamp } from './sql.ts';
import type { RepriceJobStatus } from '../../../generated/client/types.gen.ts';

/** the spec's job status */
export type RepriceStatus = RepriceJobStatus;

export interface RepriceJobRecord {
  projectId: string;
  id: string;
  status: RepriceStatus;
  dryRun: boolean;
  from: Date;
  to: Date;
  modelIds: string[] | null;
  requestedBy: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** the last generation done: its start time (PostgreSQL's text, to the microsecond) and id */
  cursor: { time: string; id: string } | null;
  scanned: number;
  changed: number;
  costBefore: number;
  costAfter: number;
  changes: RepriceChangeLine[];
  error: string | null;
}

interface Row {
  project_id: string;
  id: string;
  status: RepriceStatus;
  dry_run: boolean;
  from_ts: Timestamp;
  to_ts: Timestamp;
  model_ids: string[] | null;
  requested_by: string;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  cursor_time: string | null;
  cursor_id: string | null;
  scanned: string;
  changed: string;
  cost_before: string;
  cost_after: string;
  changes: RepriceChangeLine[];
  error: string | null;
}

const COLUMNS = sql.raw(
  `project_id, id, status, dry_run, from_ts, to_ts, model_ids, requested_by, created_at, started_at, finished_at,
   cursor_time::text as cursor_time, cursor_id, scanned::text as scanned, changed::text as changed,
   cost_before::text as cost_before, cost_after::text as cost_after, changes, error`,
);

const fromRow = (r: Row): RepriceJobRecord => ({
  projectId: r.project_id,
  id: r.id,
  status: r.status,
  dryRun: r.dry_run,
  from: toDate(r.from_ts),
  to: toDate(r.to_ts),
  modelIds: r.model_ids,
  requestedBy: r.requested_by,
  createdAt: toDate(r.created_at),
  startedAt: r.started_at ? toDate(r.started_at) : null,
  finishedAt: r.finished_at ? toDate(r.finished_at) : null,
  cursor: r.cursor_time && r.cursor_id ? { time: r.cursor_time, id: r.cursor_id } : null,
  scanned: Number(r.scanned),
  changed: Number(r.changed),
  costBefore: Number(r.cost_before),
  costAfter: Number(r.cost_after),
  changes: r.changes,
  error: r.error,
});

export async function createRepriceJob(
  db: Db,
  job: { projectId: string; id: string; dryRun: boolean; from: Date; to: Date; modelIds: string[] | null; requestedBy: string },
): Promise<void> {
  await sql`insert into reprice_jobs (project_id, id, dry_run, from_ts, to_ts, model_ids, requested_by)
    values (${job.projectId}, ${job.id}, ${job.dryRun}, ${job.from}, ${job.to}, ${job.modelIds}::text[], ${job.requestedBy})`.execute(db);
}

export async function getRepriceJob(db: Db, projectId: string, id: string): Promise<RepriceJobRecord | null> {
  const r = await sql<Row>`select ${COLUMNS} from reprice_jobs where project_id = ${projectId} and id = ${id}`.execute(db);
  return r.rows[0] ? fromRow(r.rows[0]) : null;
}

export async function listRepriceJobs(db: Db, projectId: string, page: number, limit: number) {
  const [r, n] = await Promise.all([
    sql<Row>`select ${COLUMNS} from reprice_jobs where project_id = ${projectId} order by created_at desc, id desc limit ${limit} offset ${(page - 1) * limit}`.execute(
      db,
    ),
    sql<{ n: string }>`select count(*)::text as n from reprice_jobs where project_id = ${projectId}`.execute(db),
  ]);
  return { jobs: r.rows.map(fromRow), total: Number(n.rows[0]!.n) };
}

/** the oldest open job no live lease holds, now leased for `leaseMs` and running */
export async function takeRepriceJob(db: Db, leaseMs: number): Promise<RepriceJobRecord | null> {
  const r = await sql<Row>`
    update reprice_jobs j set status = 'running', started_at = coalesce(j.started_at, now()),
      lease_until = now() + ${leaseMs} * interval '1 millisecond'
    from (select project_id as pid, id as jid from reprice_jobs
          where status in ('queued', 'running') and (lease_until is null or lease_until < now())
          order by created_at limit 1 for update skip locked) t
    where j.project_id = t.pid and j.id = t.jid
    returning ${COLUMNS}`.execute(db);
  return r.rows[0] ? fromRow(r.rows[0]) : null;
}

/** the job's row locked for a batch; null when the lease was lost to another worker (ran out) */
export async function lockRepriceJob(db: Db, job: RepriceJobRecord, leaseMs: number): Promise<RepriceJobRecord | null> {
  const r = await sql<Row>`
    update reprice_jobs set lease_until = now() + ${leaseMs} * interval '1 millisecond'
    where project_id = ${job.projectId} and id = ${job.id} and status = 'running'
      and cursor_id is not distinct from ${job.cursor?.id ?? null}
    returning ${COLUMNS}`.execute(db);
  return r.rows[0] ? fromRow(r.rows[0]) : null;
}

/**
 * The job's next generations after its cursor (priced types, a cost Tally inferred, in its window),
 * in (start time, id) order, locked as ingestion locks the rows it writes (in id order, so a job and
 * a batch never wait on each other in a circle).
 */
export async function nextGenerations(
  db: Db,
  job: RepriceJobRecord,
  limit: number,
): Promise<{ records: ObservationRecord[]; last: { time: string; id: string } | null }> {
  const after = job.cursor ? sql`and (start_time, id) > (${job.cursor.time}::timestamptz, ${job.cursor.id})` : sql``;
  const page = await sql<{ id: string; t: string }>`
    select id, start_time::text as t from observations
    where project_id = ${job.projectId} and start_time >= ${job.from} and start_time < ${job.to}
      and type = any(${[...PRICED_OBSERVATION_TYPES]}::text[]) and cost_status = any(${[...REPRICED_STATUSES]}::text[]) ${after}
    order by start_time, id limit ${limit}`.execute(db);
  if (!page.rows.length) return { records: [], last: null };
  const ids = page.rows.map((r) => r.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // the payloads stay behind: pricing never reads them, and they are most of a row's bytes
  const locked = await sql<ObservationRow>`
    select o.* from unnest(${ids}::text[]) k(id)
      cross join lateral (select ${sql.raw(PRICING_READ_COLUMNS)}, o.project_id from observations o
        where o.project_id = ${job.projectId} and o.id = k.id offset 0 for no key update) o`.execute(db);
  const last = page.rows.at(-1)!;
  return { records: locked.rows.map(observationFromRow), last: { time: last.t, id: last.id } };
}

/** a batch done: the cursor moves, the counts and the report grow (in the batch's transaction) */
export async function recordRepriceBatch(
  db: Db,
  job: RepriceJobRecord,
  batch: {
    last: { time: string; id: string };
    scanned: number;
    changed: number;
    before: string;
    after: string;
    changes: RepriceChangeLine[];
  },
): Promise<void> {
  await sql`update reprice_jobs set cursor_time = ${batch.last.time}::timestamptz, cursor_id = ${batch.last.id},
      scanned = scanned + ${batch.scanned}, changed = changed + ${batch.changed},
      cost_before = cost_before + ${batch.before}::numeric, cost_after = cost_after + ${batch.after}::numeric,
      changes = ${JSON.stringify(batch.changes)}::jsonb
    where project_id = ${job.projectId} and id = ${job.id}`.execute(db);
}

export async function finishRepriceJob(db: Db, job: RepriceJobRecord, error: string | null): Promise<void> {
  await sql`update reprice_jobs set status = ${error ? 'failed' : 'succeeded'}, finished_at = now(), lease_until = null, error = ${error}
    where project_id = ${job.projectId} and id = ${job.id}`.execute(db);
}
