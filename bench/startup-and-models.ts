// Issue 2 figures: cold start to first healthy response (embedded and PostgreSQL) and
// p50/p99 of GET /api/public/models with 200 project models, each with a baseline.
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fmt, freePort, percentile, startChild, timeRequests, waitHealthy } from './lib.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-secret' };
const auth = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;

async function coldStart(env: Record<string, string>, script = 'server/src/main.ts') {
  const port = await freePort();
  const t = performance.now();
  const child = startChild(script, { ...env, PORT: String(port) });
  await waitHealthy(`http://127.0.0.1:${port}/api/public/health`);
  return { ms: performance.now() - t, port, child };
}

function psql(url: string, sql: string) {
  execFileSync('psql', [url, '-q', '-c', sql], { stdio: 'ignore' });
}

export async function run() {
  const lines: string[] = [];
  const base = await coldStart({}, 'bench/baseline-server.ts');
  await base.child.stop();
  lines.push(`baseline: bare node:http process to first response   ${fmt(base.ms)}`);

  const dir = mkdtempSync(join(tmpdir(), 'tally-bench-'));
  const emb = await coldStart({ ...keys, TALLY_DATA_DIR: dir, DATABASE_URL: '' });
  lines.push(`cold start, embedded PGlite (new data dir)          ${fmt(emb.ms)}   ratio ${(emb.ms / base.ms).toFixed(1)}x`);
  await emb.child.stop();
  const emb2 = await coldStart({ ...keys, TALLY_DATA_DIR: dir, DATABASE_URL: '' });
  lines.push(`warm start, embedded PGlite (existing data dir)     ${fmt(emb2.ms)}   ratio ${(emb2.ms / base.ms).toFixed(1)}x`);
  await emb2.child.stop();
  rmSync(dir, { recursive: true, force: true });

  let pgUrl: string | null = null;
  try {
    psql(PG_ADMIN, 'drop database if exists tally_bench');
    psql(PG_ADMIN, 'create database tally_bench');
    pgUrl = PG_ADMIN.replace(/\/[^/]*$/, '/tally_bench');
  } catch {
    lines.push('PostgreSQL not reachable: PostgreSQL figures skipped');
  }
  if (pgUrl) {
    const pg = await coldStart({ ...keys, DATABASE_URL: pgUrl });
    lines.push(`cold start, PostgreSQL (empty database)             ${fmt(pg.ms)}   ratio ${(pg.ms / base.ms).toFixed(1)}x`);
    const url = `http://127.0.0.1:${pg.port}/api/public/models`;
    for (let i = 0; i < 200; i++) {
      const r = await fetch(url, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          modelName: `bench-model-${i}`,
          matchPattern: `(?i)^(bench-model-${i})$`,
          unit: 'TOKENS',
          inputPrice: 0.000001 * (i + 1),
          outputPrice: 0.000002,
        }),
      });
      if (r.status !== 200) throw new Error(`create answered ${r.status}`);
    }
    const page = await (await fetch(`${url}?limit=50`, { headers: { authorization: auth } })).text();
    const get = async () => {
      const r = await fetch(`${url}?limit=50&page=3`, { headers: { authorization: auth } });
      await r.arrayBuffer();
    };
    await timeRequests(50, get); // warm-up
    const tally = await timeRequests(1000, get);
    const basePort = await freePort();
    const bs = startChild('bench/baseline-server.ts', { PORT: String(basePort), BASELINE_BODY: page });
    await waitHealthy(`http://127.0.0.1:${basePort}/`);
    const baseGet = async () => {
      const r = await fetch(`http://127.0.0.1:${basePort}/`);
      await r.arrayBuffer();
    };
    await timeRequests(50, baseGet);
    const baseline = await timeRequests(1000, baseGet);
    await bs.stop();
    await pg.child.stop();
    lines.push(`GET /api/public/models (limit 50, 200 project + managed models, PostgreSQL, 1000 sequential requests):`);
    lines.push(`  Tally     p50 ${fmt(percentile(tally, 50))}  p99 ${fmt(percentile(tally, 99))}`);
    lines.push(
      `  baseline  p50 ${fmt(percentile(baseline, 50))}  p99 ${fmt(percentile(baseline, 99))}  (bare node:http sending the same ${page.length} bytes)`,
    );
    const ratio = percentile(tally, 50) / percentile(baseline, 50);
    lines.push(
      `  ratio     p50 ${ratio.toFixed(1)}x  p99 ${(percentile(tally, 99) / percentile(baseline, 99)).toFixed(1)}x   (target p50 <= 3x the baseline, issue 28: ${ratio <= 3 ? 'met' : 'MISSED'})`,
    );
    psql(PG_ADMIN, 'drop database if exists tally_bench');
  }
  return lines;
}
