// Several instances started at the same moment on one PostgreSQL database, as a deployment with
// replicas does on its first start and on every rolling upgrade that brings a migration: the
// migrations and the first-start work run once under the start-up lock, the others wait and come
// up. Real processes of server/src/main.ts on a database of the test's own (PostgreSQL pass only;
// the embedded database allows one process, which startup.test.ts checks).
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { boot } from '../support/boot.ts';

const url = process.env.DATABASE_URL;
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-together', TALLY_INIT_SECRET_KEY: 'sk-lf-together-secret' };
const authorization = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;

async function admin<T>(fn: (c: pg.Client) => Promise<T>, database = 'postgres'): Promise<T> {
  const c = new pg.Client({ connectionString: url!.replace(/\/[^/]*$/, `/${database}`) });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

describe.skipIf(!url)('instances that start together on PostgreSQL', () => {
  it('five on an empty database: all come up, the schema and the first project are made once', { timeout: 240_000 }, async () => {
    const name = 'tally_startup_together';
    await admin(async (c) => {
      await c.query(`drop database if exists ${name}`);
      await c.query(`create database ${name}`);
    });
    const env = {
      ...keys,
      DATABASE_URL: url!.replace(/\/[^/]*$/, `/${name}`),
      ENCRYPTION_KEY: 'cd'.repeat(32),
      TALLY_EVAL_CONCURRENCY: '0',
      TALLY_TOKENIZER_THREADS: '1',
    };
    for (const round of ['empty', 'migrated']) {
      const started = await Promise.allSettled(Array.from({ length: 5 }, () => boot(env)));
      try {
        const failed = started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason));
        expect(failed, round).toEqual([]);
        for (const s of started) {
          const res = await fetch(
            `${(s as PromiseFulfilledResult<Awaited<ReturnType<typeof boot>>>).value.url}/api/public/models?limit=1`,
            { headers: { authorization } },
          );
          expect(res.status, round).toBe(200);
        }
      } finally {
        await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
      }
    }
    const counts = await admin(
      async (c) => ({
        projects: Number((await c.query('select count(*) from projects')).rows[0].count),
        migrations: (await c.query('select name, count(*)::int as n from mikro_orm_migrations group by name having count(*) > 1')).rows,
      }),
      name,
    );
    expect(counts).toEqual({ projects: 1, migrations: [] });
  });
});
