// A Tally process killed (SIGKILL) while it ingests and exports to ClickHouse, then started again
// on the same data: every observation PostgreSQL holds is in ClickHouse exactly once, none lost
// on the way, none doubled. Real processes of server/src/main.ts with the embedded engine.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boot } from '../support/boot.ts';
import { pgAdmin } from '../support/pg-admin.ts';

const pgUrl = process.env.DATABASE_URL;
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-crash', TALLY_INIT_SECRET_KEY: 'sk-lf-crash-secret' };
const authorization = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;
const dirs: string[] = [];
const dbName = `tally_analytics_crash_${process.pid}`;

afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  if (pgUrl) await pgAdmin(`drop database if exists ${dbName}`);
});

const batchOf = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-e${i}`,
    timestamp: new Date().toISOString(),
    type: 'generation-create',
    body: {
      id: `${prefix}-g${i}`,
      name: 'crash',
      model: 'gpt-4o',
      startTime: new Date().toISOString(),
      usageDetails: { input: 10, output: 5 },
    },
  }));

async function health(url: string) {
  const r = await fetch(`${url}/api/public/health`);
  return ((await r.json()) as { analytics: { lagRows: number } }).analytics;
}

describe('analytics export across a kill -9', () => {
  it('loses nothing and doubles nothing', { timeout: 300_000 }, async () => {
    const chDir = mkdtempSync(join(tmpdir(), 'tally-crash-ch-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'tally-crash-pg-'));
    dirs.push(chDir, dataDir);
    const env: Record<string, string> = {
      ...keys,
      TALLY_CLICKHOUSE_URL: `chdb:${chDir}`,
      TALLY_DATA_DIR: dataDir,
      TALLY_EVAL_CONCURRENCY: '0',
      TALLY_TOKENIZER_THREADS: '1',
    };
    if (pgUrl) {
      await pgAdmin(`drop database if exists ${dbName}`);
      await pgAdmin(`create database ${dbName}`);
      env.DATABASE_URL = pgUrl.replace(/\/[^/]*$/, `/${dbName}`);
    }
    const first = await boot(env);
    // batches in flight when the process dies: each either committed (and fed) or not at all
    let sent = 0;
    const load = (async () => {
      for (let b = 0; b < 200; b++) {
        try {
          await fetch(`${first.url}/api/public/ingestion`, {
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json' },
            body: JSON.stringify({ batch: batchOf(50, `b${b}`) }),
          });
          sent++;
        } catch {
          return;
        }
      }
    })();
    while (sent < 20) await new Promise((r) => setTimeout(r, 20));
    first.kill('SIGKILL');
    await first.exited;
    await load;

    const second = await boot(env);
    try {
      for (let i = 0; i < 600 && (await health(second.url)).lagRows > 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await health(second.url)).lagRows).toBe(0);
      const list = await fetch(`${second.url}/api/public/observations?limit=1`, { headers: { authorization } });
      const stored = ((await list.json()) as { meta: { totalItems: number } }).meta.totalItems;
      expect(stored).toBeGreaterThanOrEqual(sent * 50 - 50);
      await second.stop();
      // the data directory is free once the server is down: read what ClickHouse holds
      const chdb = createRequire(new URL('../../../engines/chdb/package.json', import.meta.url))('chdb') as {
        Session: new (p: string) => { queryAsync(q: string): Promise<{ json<T>(): T }>; cleanup(): void };
      };
      const s = new chdb.Session(chDir);
      try {
        const r = await s.queryAsync(
          "SELECT count() AS n, uniqExact(id) AS ids FROM tally.observations FINAL WHERE name = 'crash' FORMAT JSON",
        );
        const [row] = r.json<{ data: { n: string; ids: string }[] }>().data;
        expect(Number(row!.n)).toBe(stored);
        expect(Number(row!.ids)).toBe(stored);
      } finally {
        s.cleanup();
      }
    } finally {
      await second.stop();
    }
  });
});
