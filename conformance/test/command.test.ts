// The conformance command as an integrator runs it: `npx tally-conformance …` in the repo, one
// line per case, a total, the exit status, and JUnit XML for CI.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const run = (args: string[]) =>
  spawnSync('npx', ['--no-install', 'tally-conformance', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '' },
    timeout: 120_000,
  });

describe('tally-conformance', () => {
  it('replays the examples, prints a line per case and the total, writes JUnit XML, exits 0', () => {
    const junit = join(mkdtempSync(join(tmpdir(), 'tally-junit-')), 'conformance.xml');
    const r = run(['--in-process', '--grep', 'health_health', '--junit', junit]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✓ health_health 200 \w+/m);
    const total = /conformance: (\d+) passed, 0 failed, (\d+) skipped/.exec(r.stdout);
    expect(total).not.toBeNull();
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="tally-conformance"');
    expect(xml.match(/<testcase /g)).toHaveLength(Number(total![1]) + Number(total![2]));
    expect(xml).toContain('failures="0"');
  }, 120_000);

  it('exits non-zero and records the failures when the server does not answer as the spec says', () => {
    const junit = join(mkdtempSync(join(tmpdir(), 'tally-junit-')), 'conformance.xml');
    const r = run([
      '--base-url',
      'http://127.0.0.1:9',
      '--public-key',
      'pk-lf-x',
      '--secret-key',
      'sk-lf-x',
      '--grep',
      'health_health',
      '--junit',
      junit,
    ]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^✗ health_health/m);
    expect(readFileSync(junit, 'utf8')).toMatch(/<failure message=/);
  }, 120_000);
});
