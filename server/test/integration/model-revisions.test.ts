// Two server instances on one PostgreSQL database, as behind a load balancer: a model created
// or deleted through one is used by the other's very next batch (no cache delay). PGlite is
// one process's database, so this runs in the PostgreSQL pass only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { basic } from '../support/start.ts';
import { raw, unique } from '../support/client.ts';

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

  it("lists a model created or deleted on another instance at once (this instance's kept pages go with the revision)", async () => {
    const name = unique('aaa-replica-list'); // sorts first among project models
    const listed = async () => {
      const all: string[] = [];
      for (let page = 1; ; page++) {
        const res = await raw(`/api/public/models?limit=100&page=${page}`);
        all.push(...res.body.data.map((m: { modelName: string }) => m.modelName));
        if (page >= res.body.meta.totalPages) return { names: all, total: res.body.meta.totalItems as number };
      }
    };
    const before = await listed();
    expect(before.names).not.toContain(name);
    expect((await listed()).total).toBe(before.total); // a kept page, same answer
    const created = await viaOther('/api/public/models', {
      method: 'POST',
      body: JSON.stringify({ modelName: name, matchPattern: `^${name}$`, unit: 'TOKENS', inputPrice: 1 }),
    });
    const { id } = (await created.json()) as { id: string };
    const after = await listed();
    expect(after.names).toContain(name);
    expect(after.total).toBe(before.total + 1);
    expect((await viaOther(`/api/public/models/${id}`, { method: 'DELETE' })).status).toBe(200);
    const gone = await listed();
    expect(gone.names).not.toContain(name);
    expect(gone.total).toBe(before.total);
  });
});
