// Two server instances on one PostgreSQL database, as behind a load balancer: a model created
// or deleted through one is used by the other's very next batch (no cache delay), and listed by
// the other once the change's notification arrives; while the notifications connection is
// down, at once. PGlite is one process's database, so this runs in the PostgreSQL pass only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { basic } from '../support/start.ts';
import { raw, unique } from '../support/client.ts';
import { pgAdmin } from '../support/pg-admin.ts';

const url = process.env.DATABASE_URL;

describe.skipIf(!url)('model changes across server instances', () => {
  let other: RunningServer;
  beforeAll(async () => {
    const config = loadConfig({ ...process.env, PORT: '0', LOG_LEVEL: 'silent', TALLY_INIT_PUBLIC_KEY: '', TALLY_INIT_SECRET_KEY: '' });
    other = await startServer(config, createLogger('silent'), { host: '127.0.0.1' });
  });
  afterAll(() => other?.close());

  const viaOther = (path: string, init: RequestInit = {}) =>
    fetch(other.url + path, { ...init, headers: { authorization: basic(inject('projectA')), 'content-type': 'application/json' } });
  const ingest = async (id: string, model: string) => {
    const res = await raw('/api/public/ingestion', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        batch: [
          {
            id: unique('evt'),
            timestamp: new Date().toISOString(),
            type: 'generation-create',
            body: { id, model, usageDetails: { input: 2 } },
          },
        ],
      }),
    });
    expect(res.body.errors).toEqual([]);
    return (await raw(`/api/public/observations/${id}`)).body;
  };

  it('prices with a model created on another instance, and stops once it is deleted there', async () => {
    const name = unique('replica-model');
    expect(await ingest(unique('obs'), name)).toMatchObject({ costStatus: 'unpriced' }); // fills this instance's cache
    const created = await viaOther('/api/public/models', {
      method: 'POST',
      body: JSON.stringify({ modelName: name, matchPattern: `^${name}$`, unit: 'TOKENS', inputPrice: 3 }),
    });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    expect(await ingest(unique('obs'), name)).toMatchObject({ costStatus: 'inferred', modelId: id, costDetails: { input: 6, total: 6 } });
    expect((await viaOther(`/api/public/models/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await ingest(unique('obs'), name)).toMatchObject({ costStatus: 'unpriced', modelId: null });
  });

  const listedOn = async (via: (path: string) => Promise<Response>) => {
    const all: string[] = [];
    for (let page = 1; ; page++) {
      const body = (await (await via(`/api/public/models?limit=100&page=${page}`)).json()) as {
        data: { modelName: string }[];
        meta: { totalPages: number; totalItems: number };
      };
      all.push(...body.data.map((m) => m.modelName));
      if (page >= body.meta.totalPages) return { names: all, total: body.meta.totalItems };
    }
  };
  const here = (path: string) => fetch(`${inject('baseUrl')}${path}`, { headers: { authorization: basic(inject('projectA')) } });
  /** until `check` holds (a notification travels from the other instance's commit), at most 3 s */
  const eventually = async (check: () => Promise<boolean>) => {
    const until = Date.now() + 3_000;
    while (!(await check())) {
      if (Date.now() > until) throw new Error('not seen within 3 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('lists a model created or deleted on another instance once its notification arrives (kept pages go with the revision)', async () => {
    const name = unique('aaa-replica-list'); // sorts first among project models
    const before = await listedOn(here);
    expect(before.names).not.toContain(name);
    expect((await listedOn(here)).total).toBe(before.total); // a kept page, same answer
    const created = await viaOther('/api/public/models', {
      method: 'POST',
      body: JSON.stringify({ modelName: name, matchPattern: `^${name}$`, unit: 'TOKENS', inputPrice: 1 }),
    });
    const { id } = (await created.json()) as { id: string };
    // the instance that made the change lists it at once
    expect((await listedOn(viaOther)).names).toContain(name);
    await eventually(async () => (await listedOn(here)).names.includes(name));
    expect((await listedOn(here)).total).toBe(before.total + 1);
    expect((await viaOther(`/api/public/models/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await listedOn(viaOther)).names).not.toContain(name);
    await eventually(async () => !(await listedOn(here)).names.includes(name));
    expect((await listedOn(here)).total).toBe(before.total);
  });

  it('reads the revision on every request while its notifications connection is down, and listens again', async () => {
    const revisions = other.services.models.revisions;
    expect(revisions.isLive).toBe(true);
    await listedOn(viaOther); // kept pages
    await pgAdmin("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'tally-notifications'");
    await eventually(async () => !revisions.isLive);
    const name = unique('aaa-replica-down');
    const created = await raw('/api/public/models', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ modelName: name, matchPattern: `^${name}$`, unit: 'TOKENS', inputPrice: 1 }),
    });
    expect(created.status).toBe(200);
    // no notification can reach it: it reads the revision, and lists the model at once
    expect((await listedOn(viaOther)).names).toContain(name);
    await eventually(async () => revisions.isLive);
    expect((await raw(`/api/public/models/${created.body.id}`, { method: 'DELETE' })).status).toBe(200);
    await eventually(async () => !(await listedOn(viaOther)).names.includes(name));
  });
});
