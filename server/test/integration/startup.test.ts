// Start-up as an operator sees it: real processes of server/src/main.ts on a fresh
// embedded database directory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boot, ROOT } from '../support/boot.ts';

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tally-start-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const modelsStatus = (url: string, pk: string, sk: string) =>
  fetch(`${url}/api/public/models?limit=1`, { headers: { authorization: `Basic ${Buffer.from(`${pk}:${sk}`).toString('base64')}` } }).then(
    (r) => r.status,
  );

describe('start-up', { timeout: 180_000 }, () => {
  it('exits with a message naming the variable on bad configuration', () => {
    const r = spawnSync(process.execPath, ['server/src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, ENCRYPTION_KEY: 'short' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('ENCRYPTION_KEY must be 64 hex characters');
  });

  it('creates the TALLY_INIT_* key pair once, and keeps it across restarts', async () => {
    const dir = freshDir();
    const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-startup-test', TALLY_INIT_SECRET_KEY: 'sk-lf-startup-test-secret' };
    for (let i = 0; i < 2; i++) {
      const s = await boot({ ...keys, TALLY_DATA_DIR: dir });
      expect(await modelsStatus(s.url, keys.TALLY_INIT_PUBLIC_KEY, keys.TALLY_INIT_SECRET_KEY)).toBe(200);
      expect(await modelsStatus(s.url, keys.TALLY_INIT_PUBLIC_KEY, 'sk-lf-other')).toBe(401);
      expect(s.output()).not.toContain(keys.TALLY_INIT_SECRET_KEY);
      await s.stop();
    }
    const list = spawnSync(process.execPath, ['server/src/cli.ts', 'project', 'list'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', TALLY_DATA_DIR: dir },
      encoding: 'utf8',
    });
    expect(JSON.parse(list.stdout)).toHaveLength(1);
  });

  it('the embedded database allows one process, and a second says which one holds it', async () => {
    const dir = freshDir();
    const first = await boot({ TALLY_DATA_DIR: dir });
    try {
      const second = spawnSync(process.execPath, ['server/src/main.ts'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: '', TALLY_DATA_DIR: dir, PORT: '0' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(second.status).toBe(1);
      expect(second.stderr.trim()).toMatch(
        new RegExp(`^The embedded database in ${dir} is in use by another process \\(pid \\d+\\)\\. It allows one process at a time`),
      );
      expect(second.stderr.trim().split('\n')).toHaveLength(1);
      const cli = spawnSync(process.execPath, ['server/src/cli.ts', 'project', 'list'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: '', TALLY_DATA_DIR: dir },
        encoding: 'utf8',
      });
      expect(cli.status).toBe(1);
      expect(cli.stderr).toMatch(/is in use by another process/);
      expect((await fetch(`${first.url}/api/public/health`)).status).toBe(200);
    } finally {
      await first.stop();
    }
    // the lock goes with the process, and a stale one (kill -9) does not block the next start
    const killed = await boot({ TALLY_DATA_DIR: dir });
    killed.kill('SIGKILL');
    await killed.exited;
    const again = await boot({ TALLY_DATA_DIR: dir });
    expect((await fetch(`${again.url}/api/public/health`)).status).toBe(200);
    await again.stop();
  });

  it('a busy port stops the server with one line naming it; the log names the address bound', async () => {
    const first = await boot({ TALLY_DATA_DIR: freshDir(), TALLY_HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    try {
      const port = new URL(first.url).port;
      expect(first.output()).toContain(`"listening":"127.0.0.1:${port}"`);
      const second = spawnSync(process.execPath, ['server/src/main.ts'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: '', TALLY_DATA_DIR: freshDir(), PORT: port, TALLY_HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(second.status).toBe(1);
      expect(second.stderr.trim()).toBe(
        `Cannot listen on 127.0.0.1:${port}: the port is already in use (another Tally, or set PORT to a free port)`,
      );
      const bad = spawnSync(process.execPath, ['server/src/main.ts'], {
        cwd: ROOT,
        env: { ...process.env, TALLY_HOST: 'http://0.0.0.0' },
        encoding: 'utf8',
      });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('TALLY_HOST must be an IP address or a host name');
    } finally {
      await first.stop();
    }
  });

  it("prints a local project's keys on first start only, and the CLI adds projects", async () => {
    const dir = freshDir();
    const first = await boot({ TALLY_DATA_DIR: dir });
    const pk = /public key: (pk-lf-\S+)/.exec(first.output())?.[1];
    const sk = /secret key: (sk-lf-\S+)/.exec(first.output())?.[1];
    expect(pk && sk).toBeTruthy();
    expect(await modelsStatus(first.url, pk!, sk!)).toBe(200);
    await first.stop();

    const created = spawnSync(process.execPath, ['server/src/cli.ts', 'project', 'create', 'second'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', TALLY_DATA_DIR: dir },
      encoding: 'utf8',
    });
    const second = JSON.parse(created.stdout);
    const again = await boot({ TALLY_DATA_DIR: dir });
    expect(again.output()).not.toContain('secret key:');
    expect(await modelsStatus(again.url, pk!, sk!)).toBe(200);
    expect(await modelsStatus(again.url, second.publicKey, second.secretKey)).toBe(200);
    await again.stop();
  });
});
