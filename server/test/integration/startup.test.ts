// Start-up as an operator sees it: real processes of server/src/main.ts on a fresh
// embedded database directory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boot, ROOT } from '../support/boot.ts';

const dirs: string[] = [];
const freshDir = () => { const d = mkdtempSync(join(tmpdir(), 'tally-start-')); dirs.push(d); return d; };
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));


const modelsStatus = (url: string, pk: string, sk: string) =>
  fetch(`${url}/api/public/models?limit=1`, { headers: { authorization: 'Basic ' + Buffer.from(`${pk}:${sk}`).toString('base64') } }).then((r) => r.status);

describe('start-up', () => {
  it('exits with a message naming the variable on bad configuration', () => {
    const r = spawnSync(process.execPath, ['server/src/main.ts'], { cwd: ROOT, env: { ...process.env, ENCRYPTION_KEY: 'short' }, encoding: 'utf8' });
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
    const list = spawnSync(process.execPath, ['server/src/cli.ts', 'project', 'list'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', TALLY_DATA_DIR: dir }, encoding: 'utf8' });
    expect(JSON.parse(list.stdout)).toHaveLength(1);
  });

  it('prints a local project\'s keys on first start only, and the CLI adds projects', async () => {
    const dir = freshDir();
    const first = await boot({ TALLY_DATA_DIR: dir });
    const pk = /public key: (pk-lf-\S+)/.exec(first.output())?.[1];
    const sk = /secret key: (sk-lf-\S+)/.exec(first.output())?.[1];
    expect(pk && sk).toBeTruthy();
    expect(await modelsStatus(first.url, pk!, sk!)).toBe(200);
    await first.stop();

    const created = spawnSync(process.execPath, ['server/src/cli.ts', 'project', 'create', 'second'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', TALLY_DATA_DIR: dir }, encoding: 'utf8' });
    const second = JSON.parse(created.stdout);
    const again = await boot({ TALLY_DATA_DIR: dir });
    expect(again.output()).not.toContain('secret key:');
    expect(await modelsStatus(again.url, pk!, sk!)).toBe(200);
    expect(await modelsStatus(again.url, second.publicKey, second.secretKey)).toBe(200);
    await again.stop();
  });
});
