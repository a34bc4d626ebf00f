// Several instances on one PostgreSQL share the evaluation queue without running a job twice at
// once: two databases handles (as two server processes hold) claim from the same jobs at the same
// time, and every job goes to exactly one of them. A database of its own, so the suite's server,
// whose workers claim from every project, stays out of it. PostgreSQL only: PGlite has one
// connection, where claims run one after the other anyway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/orm.ts';
import {
  admitJobs,
  claimJobs,
  enqueueJobs,
  finishJob,
  intakeJobsCte,
  renewLease,
  type StoredJob,
} from '../../src/store/evaluation-jobs.ts';
import { createProject } from '../../src/store/projects.ts';
import { kysely, sql } from '../../src/store/sql.ts';
import { pgAdmin } from '../support/pg-admin.ts';

const url = process.env.DATABASE_URL;
const DB = 'tally_eval_queue';
let a: Database;
let b: Database;

/** job `i` of a test, ids in the order of i */
const newJob = (prefix: string, i: number) => ({
  id: `${prefix}-${String(i).padStart(3, '0')}`,
  ruleId: 'r',
  assignmentId: 'x',
  evaluatorId: 'e',
  traceId: `t${i}`,
  observationId: `o${i}`,
});

describe.skipIf(!url)('evaluation queue shared by two instances', () => {
  beforeAll(async () => {
    await pgAdmin(`drop database if exists ${DB}`);
    await pgAdmin(`create database ${DB}`);
    const own = url!.replace(/\/[^/]*$/, `/${DB}`);
    a = await openDatabase({ databaseUrl: own, dataDir: 'unused' });
    b = await openDatabase({ databaseUrl: own, dataDir: 'unused' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await pgAdmin(`drop database if exists ${DB}`);
  });

  it('hands every due job to exactly one claimer, and a lost lease makes a job claimable again', async () => {
    const project = await createProject(a.em(), 'queue');
    const jobs = Array.from({ length: 60 }, (_, i) => newJob('job', i));
    await enqueueJobs(kysely(a.em()), project, jobs);

    const lease = () => new Date(Date.now() + 60_000);
    const claimAll = async (db: Database) => {
      const got: StoredJob[] = [];
      for (;;) {
        const batch = await claimJobs(db.em(), 4, lease());
        if (!batch.length) return got;
        got.push(...batch);
      }
    };
    const [byA, byB] = await Promise.all([claimAll(a), claimAll(b)]);
    const ids = [...byA, ...byB].map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(jobs.map((j) => j.id));
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);

    // only the lease holder settles a job; an expired lease lets another claimer take it over
    const job = byA[0]!;
    await sql`update evaluation_jobs set lease_until = now() - interval '1 second' where id = ${job.id}`.execute(kysely(a.em()));
    const [taken] = await claimJobs(b.em(), 1, lease());
    expect(taken!.id).toBe(job.id);
    expect(taken!.attempts).toBe(2);
    expect(await finishJob(a.em(), job, { status: 'COMPLETED' })).toBe(false);
    expect(await finishJob(b.em(), taken!, { status: 'COMPLETED' })).toBe(true);
  });

  it('a live holder renews its short lease; a holder that lost it can neither renew nor settle', async () => {
    const project = await createProject(a.em(), 'lease');
    await enqueueJobs(kysely(a.em()), project, [
      { id: 'lease-job', ruleId: 'r', assignmentId: 'x', evaluatorId: 'e', traceId: 't', observationId: 'o' },
    ]);
    const [held] = await claimJobs(a.em(), 1, new Date(Date.now() + 1_000));
    const stale = { ...held! };
    expect(await renewLease(a.em(), held!, new Date(Date.now() + 30_000))).toBe(true);
    await new Promise((r) => setTimeout(r, 1_200)); // past the first lease: renewed, so nobody may take it
    expect(await claimJobs(b.em(), 1, new Date(Date.now() + 30_000))).toEqual([]);
    expect(await renewLease(b.em(), stale, new Date(Date.now() + 60_000))).toBe(false);
    expect(await finishJob(b.em(), stale, { status: 'COMPLETED' })).toBe(false);
    // once the holder stops renewing (it died), the job is claimable when the lease runs out
    await sql`update evaluation_jobs set lease_until = now() - interval '1 second' where id = 'lease-job'`.execute(kysely(a.em()));
    const [taken] = await claimJobs(b.em(), 1, new Date(Date.now() + 30_000));
    expect(taken!.attempts).toBe(2);
    expect(await renewLease(a.em(), held!, new Date(Date.now() + 30_000))).toBe(false);
    expect(await finishJob(b.em(), taken!, { status: 'COMPLETED' })).toBe(true);
  });

  it("admits ingestion's intake once: two instances take disjoint rows, and a job in two batches is written once, PENDING again", async () => {
    const project = await createProject(a.em(), 'intake');
    // a job judged already, then its observation ingested again (in two later batches)
    await enqueueJobs(kysely(a.em()), project, [newJob('in', 0)]);
    const [done] = await claimJobs(a.em(), 1, new Date(Date.now() + 60_000));
    expect(await finishJob(a.em(), done!, { status: 'COMPLETED', scoreId: 's' })).toBe(true);
    // 30 batches' rows, each job of 150 in two adjacent ones (one admission meets both), as ingestion writes them
    for (let k = 0; k < 30; k++) {
      const jobs = Array.from({ length: 10 }, (_, i) => newJob('in', Math.floor(k / 2) * 10 + i));
      await sql`with ${intakeJobsCte(project, jobs)} select 1`.execute(kysely(a.em()));
    }
    await sql`update evaluation_intake set created_at = '2026-01-02T03:04:05Z' where project_id = ${project}`.execute(kysely(a.em()));

    const drain = async (db: Database) => {
      let moved = 0;
      for (let n = -1; n !== 0; moved += n) n = await admitJobs(kysely(db.em()), { limit: 3 });
      return moved;
    };
    const [byA, byB] = await Promise.all([drain(a), drain(b)]);
    expect(byA + byB).toBe(30);
    const left = await sql<{ n: string }>`select count(*) as n from evaluation_intake where project_id = ${project}`.execute(
      kysely(a.em()),
    );
    expect(Number(left.rows[0]!.n)).toBe(0);
    const { rows } = await sql<{ id: string; status: string; attempts: number; score_id: string | null; created_at: Date }>`
      select id, status, attempts, score_id, created_at from evaluation_jobs where project_id = ${project} order by id`.execute(
      kysely(a.em()),
    );
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 150 }, (_, i) => newJob('in', i).id));
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(['PENDING']));
    expect(rows[0]).toMatchObject({ attempts: 0, score_id: 's' });
    // a new job dates from the batch that asked for it, not from its admission
    expect(new Date(rows[1]!.created_at).toISOString()).toBe('2026-01-02T03:04:05.000Z');
  });
});
