// Reprice jobs under stress (issue 25): a worker that dies after its first batch leaves the job to
// another, which resumes from the cursor (no generation done twice, none skipped, the report adds
// up); and ingestion that updates the same generations while a job runs loses nothing. A server of
// its own (its own database on PostgreSQL) with no worker of its own: the test drives the workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepriceWorker } from '../../src/background/reprice-worker.ts';
import { createLogger } from '../../src/logger.ts';
import { ConcurrentWriteError } from '../../src/store/sql.ts';
import { basic, startTestServer, type TestServer } from '../support/start.ts';
import { pgAdmin } from '../support/pg-admin.ts';

const pgUrl = process.env.DATABASE_URL;
const dbName = `tally_reprice_${process.pid}`;
let t: TestServer;

beforeAll(async () => {
  const env: Record<string, string> = { TALLY_REPRICE_JOBS: 'off', TALLY_EVAL_CONCURRENCY: '0' };
  if (pgUrl) {
    await pgAdmin(`drop database if exists ${dbName}`);
    await pgAdmin(`create database ${dbName}`);
    env.DATABASE_URL = pgUrl.replace(/\/[^/]*$/, `/${dbName}`);
  }
  t = await startTestServer(env);
}, 120_000);
afterAll(async () => {
  await t?.server.close();
  if (pgUrl) await pgAdmin(`drop database if exists ${dbName}`);
});

const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${t.server.url}${path}`, {
    ...init,
    headers: { authorization: basic(t.projectA), 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const uid = (p: string) => `${p}-${Math.random().toString(36).slice(2, 10)}`;

async function seed(model: string, n: number, day: string) {
  const ids = Array.from({ length: n }, () => uid('g'));
  const res = await api('/api/public/ingestion', {
    method: 'POST',
    body: JSON.stringify({
      batch: ids.map((id, i) => {
        const at = new Date(Date.parse(`${day}T00:00:00Z`) + i * 60_000).toISOString();
        return {
          id: uid('e'),
          timestamp: at,
          type: 'generation-create',
          body: { id, model, startTime: at, usageDetails: { input: 1000 } },
        };
      }),
    }),
  });
  expect(res.body.errors).toEqual([]);
  return ids;
}

async function repricedModel(model: string, price: number) {
  const r = await api('/api/public/models', {
    method: 'POST',
    body: JSON.stringify({ modelName: uid(model), matchPattern: `^${model}$`, unit: 'TOKENS', inputPrice: price }),
  });
  expect(r.status).toBe(200);
  return r.body.id as string;
}

const costs = async (ids: string[]) =>
  Promise.all(ids.map(async (id) => (await api(`/api/public/observations/${id}`)).body.calculatedTotalCost));

/** `n` generations on `day` priced at 0.001 per input token, the price then corrected to `price`, and a job for that day queued */
async function priceCorrected(prefix: string, n: number, day: string, price: number): Promise<{ ids: string[]; jobId: string }> {
  const model = uid(prefix);
  const old = await repricedModel(model, 0.001);
  const ids = await seed(model, n, day);
  await api(`/api/public/models/${old}`, { method: 'DELETE' });
  await repricedModel(model, price);
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();
  const start = await api('/api/public/models/reprice', {
    method: 'POST',
    body: JSON.stringify({ fromTimestamp: `${day}T00:00:00Z`, toTimestamp: next }),
  });
  expect(start.status).toBe(202);
  return { ids, jobId: start.body.id as string };
}

describe('reprice jobs across a crash and beside ingestion', () => {
  it('a worker dying after its first batch: another resumes at the cursor, every generation repriced once', async () => {
    const { ids, jobId } = await priceCorrected('crash-model', 7, '2026-03-02', 0.003);
    const log = createLogger('silent');
    // batches of 3; the first worker "dies" once its first batch has committed, its lease cut short
    const dying = new RepriceWorker(t.server.db, t.server.services, log, {
      batchSize: 3,
      leaseMs: 2_000,
      afterBatch: () => {
        throw Object.assign(new Error('killed (test)'), { crash: true });
      },
    });
    await expect(dying.runOnce()).rejects.toThrow('killed (test)');
    const half = (await api(`/api/public/models/reprice/${jobId}`)).body;
    expect(half).toMatchObject({ status: 'running', generationsScanned: 3, generationsChanged: 3 });
    expect(await costs(ids)).toEqual([3, 3, 3, 1, 1, 1, 1]);
    // while the lease holds, nobody takes the job over
    const other = new RepriceWorker(t.server.db, t.server.services, log, { batchSize: 3 });
    expect(await other.runOnce()).toBe(false);
    await new Promise((r) => setTimeout(r, 2_100));
    expect(await other.runOnce()).toBe(true);
    const done = (await api(`/api/public/models/reprice/${jobId}`)).body;
    expect(done).toMatchObject({ status: 'succeeded', generationsScanned: 7, generationsChanged: 7, costBefore: 7, costAfter: 21 });
    expect(done.changes).toEqual([expect.objectContaining({ day: '2026-03-02', generations: 7, costBefore: 7, costAfter: 21 })]);
    expect(await costs(ids)).toEqual([3, 3, 3, 3, 3, 3, 3]);
  });

  it.each([2, 1] as const)(
    'a batch rolled back by a conflict with ingestion (a deadlock, a concurrent write) runs again; the job succeeds (%i in flight)',
    async (inFlight) => {
      const { ids, jobId } = await priceCorrected(`conflict-model-${inFlight}`, 4, `2026-03-0${inFlight + 2}`, 0.002);
      let conflicts = 2;
      const worker = new RepriceWorker(t.server.db, t.server.services, createLogger('silent'), {
        batchesInFlight: inFlight,
        batchSize: 3,
        beforeWrite: () => {
          if (conflicts-- > 0) throw new ConcurrentWriteError('1 observations changed concurrently (test)');
        },
      });
      expect(await worker.runOnce()).toBe(true);
      expect((await api(`/api/public/models/reprice/${jobId}`)).body).toMatchObject({
        status: 'succeeded',
        generationsScanned: 4,
        generationsChanged: 4,
        costAfter: 8,
      });
      expect(await costs(ids)).toEqual([2, 2, 2, 2]);
    },
  );

  it('ingestion updating the same generations during a job loses nothing, and the job leaves none unpriced at the new price', async () => {
    const { ids, jobId } = await priceCorrected('busy-model', 60, '2026-03-05', 0.002);
    const worker = new RepriceWorker(t.server.db, t.server.services, createLogger('silent'), { batchSize: 5 });
    // each generation gets an output and doubled usage while the job runs, in batches of 10
    const updates = (async () => {
      for (let i = 0; i < ids.length; i += 10) {
        const res = await api('/api/public/ingestion', {
          method: 'POST',
          body: JSON.stringify({
            batch: ids.slice(i, i + 10).map((id) => ({
              id: uid('e'),
              timestamp: new Date().toISOString(),
              type: 'generation-update',
              body: { id, output: `answer ${id}`, usageDetails: { input: 2000 } },
            })),
          }),
        });
        expect(res.body.errors).toEqual([]);
      }
    })();
    await Promise.all([worker.runOnce(), updates]);
    expect((await api(`/api/public/models/reprice/${jobId}`)).body.status).toBe('succeeded');
    for (const id of ids) {
      const o = (await api(`/api/public/observations/${id}`)).body;
      // the update kept (output and usage) and priced at the new price, whichever came last
      expect(o.output, id).toBe(`answer ${id}`);
      expect(o.usageDetails.input, id).toBe(2000);
      expect(o.calculatedTotalCost, id).toBe(4);
    }
  });
});
