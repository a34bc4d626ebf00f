// The server's TypeScript is loaded from a cache of its type-stripped text (server/preload), so
// Node's own stripper (WebAssembly, 17 MB per thread that loads it) stays out of the process and
// of its tokenizer threads. What a user depends on: every module of the server comes from the
// cache, in worker threads too, and an edited file never runs from a stale entry.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript on purpose (a .ts preload would load the stripper), no types
import { cachedStrip } from '../../preload/stripped-sources.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const HOOK = './server/preload/stripped-sources.mjs';
const WRITER = join(root, 'server/preload/strip-sources.mjs');

/** a script's last output line as JSON, run by node with the preload as server/node-flags gives it */
function runWithPreload(script: string): { served: number; missed: number } {
  const out = execFileSync(process.execPath, [`--import=${HOOK}`, '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

describe('stripped-source cache', () => {
  it('serves every module of the server from the cache', () => {
    const counts = runWithPreload(`
      const hook = await import('${HOOK}');
      await import('./server/src/server.ts');
      console.log(JSON.stringify(hook.counts));`);
    expect(counts.missed).toBe(0);
    expect(counts.served).toBeGreaterThan(150);
  }, 60_000);

  it('serves a worker thread started with the process flags, as the tokenizer pool starts one', () => {
    const counts = runWithPreload(`
      import { Worker } from 'node:worker_threads';
      const at = (path) => new URL(path, 'file://${root}/').href;
      const code = "const h = await import('" + at('${HOOK}') + "'); await import('" + at('./server/src/threads/tokenizer-worker.ts') + "'); " +
        "(await import('node:worker_threads')).parentPort.postMessage(h.counts)";
      const worker = new Worker(new URL('data:text/javascript,' + encodeURIComponent(code)), { execArgv: process.execArgv });
      worker.on('message', (m) => { console.log(JSON.stringify(m)); process.exit(0); });`);
    expect(counts.missed).toBe(0);
    expect(counts.served).toBeGreaterThanOrEqual(4); // the worker, the encoders, the counting, the merge
  }, 60_000);

  it('never serves an entry for text the file no longer has, and drops entries no file has', () => {
    const dir = `${mkdtempSync(join(tmpdir(), 'stripped-'))}/`;
    try {
      writeFileSync(`${dir}${'0'.repeat(64)}.js`, 'stale');
      execFileSync(process.execPath, [WRITER, dir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      const source = readFileSync(join(root, 'server/src/domain/backoff.ts'), 'utf8');
      const js = cachedStrip(source, dir) as string;
      // strip-only: types become spaces, so lines and columns stay where they were
      expect(js.split('\n').length).toBe(source.split('\n').length);
      expect(js).not.toMatch(/:\s*number\b/);
      expect(cachedStrip(`${source}\nexport const edited = 1;\n`, dir)).toBeUndefined();
      expect(readdirSync(dir)).not.toContain(`${'0'.repeat(64)}.js`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
