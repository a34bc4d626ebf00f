// A database whose change feed is on keeps it when an instance starts without ClickHouse (that
// instance says so and exports nothing; another may), and `make cli ARGS="analytics feed-off"`
// turns it off. Embedded database in a directory of the test's own, one server after another.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/orm.ts';
import { createLogger } from '../../src/logger.ts';
import { startServer } from '../../src/server.ts';
import { feedState } from '../../src/store/analytics-changes.ts';
import { kysely } from '../../src/store/sql.ts';
import { ROOT } from '../support/boot.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'tally-feed-off-'));
const chDir = mkdtempSync(join(tmpdir(), 'tally-feed-off-ch-'));
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(chDir, { recursive: true, force: true });
});

const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-feedoff', TALLY_INIT_SECRET_KEY: 'sk-lf-feedoff-secret' };
const authorization = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;

async function run(env: Record<string, string>, fn: (url: string, logs: string[]) => Promise<void>) {
  const config = loadConfig({ ...keys, DATABASE_URL: '', TALLY_DATA_DIR: dataDir, PORT: '0', TALLY_EVAL_CONCURRENCY: '0', ...env });
  const logs: string[] = [];
  const log = createLogger('warn');
  const warn = log.warn.bind(log);
  log.warn = ((obj: unknown, msg?: string) => {
    logs.push(String(msg ?? obj));
    return warn(obj as never, msg as never);
  }) as typeof log.warn;
  const server = await startServer(config, log, { host: '127.0.0.1' });
  try {
    await fn(server.url, logs);
  } finally {
    await server.close();
  }
}

const ingest = (url: string, id: string) =>
  fetch(`${url}/api/public/ingestion`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ batch: [{ id: `e-${id}`, timestamp: new Date().toISOString(), type: 'span-create', body: { id } }] }),
  });

describe('turning the change feed off', () => {
  it('stays on when an instance starts without ClickHouse, and the CLI turns it off', { timeout: 120_000 }, async () => {
    await run({ TALLY_CLICKHOUSE_URL: `chdb:${chDir}` }, async (url) => {
      expect((await ingest(url, 'with-ch')).status).toBe(207);
    });
    await run({}, async (url, logs) => {
      const health = (await (await fetch(`${url}/api/public/health`)).json()) as { analytics: { engine: string } };
      expect(health.analytics).toEqual({ engine: 'postgres' });
      expect(logs.some((l) => l.includes('analytics feed-off'))).toBe(true);
      expect((await ingest(url, 'without-ch')).status).toBe(207);
    });
    const db = await openDatabase({ databaseUrl: null, dataDir });
    try {
      const state = await feedState(kysely(db.em()));
      expect(state.installed).toBe(true);
      expect(state.rows).toBeGreaterThanOrEqual(1);
    } finally {
      await db.close();
    }
    const out = execFileSync(process.execPath, ['server/src/cli.ts', 'analytics', 'feed-off'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', TALLY_DATA_DIR: dataDir },
    }).toString();
    expect(JSON.parse(out)).toMatchObject({ feed: 'off' });
    const after = await openDatabase({ databaseUrl: null, dataDir });
    try {
      expect(await feedState(kysely(after.em()))).toEqual({ installed: false, rows: 0 });
    } finally {
      await after.close();
    }
  });
});
