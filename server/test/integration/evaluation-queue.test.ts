// Several instances on one PostgreSQL share the evaluation queue without running a job twice at
// once: two databases handles (as two server processes hold) claim from the same jobs at the same
// time, and every job goes to exactly one of them. A database of its own, so the suite's server,
// whose workers claim from every project, stays out of it. PostgreSQL only: PGlite has one
// connection, where claims run one after the other anyway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/orm.ts';
import { claimJobs, enqueueJobs, finishJob, renewLease, type StoredJob } from '../../src/store/evaluation-jobs.ts';
import { createProject } from '../../src/store/projects.ts';
import { kysely, sql } from '../../src/store/sql.ts';
import { pgAdmin } from '../support/pg-admin.ts';

const url = process.env.DATABASE_URL;
const DB = 'tally_eval_queue';
let a: Database;
let b: Database;

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
    const jobs = Array.from({ length: 60 }, (_, i) => ({
      id: `job-${String(i).padStart(2, '0')}`,
      ruleId: 'r',
      assignmentId: 'x',
      evaluatorId: 'e',
      traceId: `t${i}`,
      observationId: `o${i}`,
    }));
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
});
