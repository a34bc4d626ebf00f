// Idle CPU (issue 28, item 3: at most 1% of a core): a server that receives nothing, measured over
// BENCH_IDLE_SECONDS (default 30) from /proc after its start has settled, for a bare node:http
// process (the baseline, in this run), Tally on PostgreSQL (its process, and the backends of its
// database: the background work's polls are paid there), Tally on the embedded PGlite, and Tally
// on PostgreSQL with the embedded ClickHouse engine (an exporter polling the feed, ClickHouse's
// own threads: the idle cores Langfuse's self-hosters complain of).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, cpuSeconds, freePort, pgBackendPids, psql, ROOT, startChild, waitHealthy } from './lib.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'tally_bench_idle';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-idle', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-idle' };
// the start's garbage is collected in the first seconds after it (V8's memory reducer): an 8 s
// settle measured PGlite at 2.4% over 20 s, a 30 s one at 0.6% over 30 s
const SETTLE_MS = 20_000;
const TARGET_PERCENT = 1;

interface Idle {
  /** % of one core over the window: the server process, and its PostgreSQL backends */
  server: number;
  postgres: number;
}

async function idle(script: string, env: Record<string, string>, seconds: number, dbUrl?: string): Promise<Idle> {
  const port = await freePort();
  let child: Child | null = startChild(script, { ...keys, PORT: String(port), TALLY_EVAL_CONCURRENCY: '2', ...env });
  try {
    await waitHealthy(`http://127.0.0.1:${port}/${script.includes('baseline') ? '' : 'api/public/health'}`);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const pgPids = dbUrl ? pgBackendPids(dbUrl) : [];
    const pid = child.proc.pid!;
    const s0 = cpuSeconds([pid]);
    const p0 = cpuSeconds(pgPids);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const wall = (performance.now() - t0) / 1000;
    // backends that came and went meanwhile are not counted: the pool keeps its connections
    return { server: (100 * (cpuSeconds([pid]) - s0)) / wall, postgres: (100 * (cpuSeconds(pgPids) - p0)) / wall };
  } finally {
    await child?.stop();
    child = null;
  }
}

export async function run(): Promise<string[]> {
  const seconds = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
  const lines = [`CPU of an idle server over ${seconds} s after a ${SETTLE_MS / 1000} s settle (% of one core, from /proc):`];
  const pct = (x: number) => `${x.toFixed(2)}%`;
  const verdict = (x: number) => `(target <= ${TARGET_PERCENT}%: ${x <= TARGET_PERCENT ? 'met' : 'NOT met'})`;
  const base = await idle('bench/baseline-server.ts', {}, seconds);
  lines.push(`  baseline: bare node:http         ${pct(base.server)}`);
  const dir = mkdtempSync(join(tmpdir(), 'tally-bench-idle-'));
  try {
    const embedded = await idle('server/src/main.ts', { DATABASE_URL: '', TALLY_DATA_DIR: join(dir, 'pglite') }, seconds);
    lines.push(`  Tally, embedded PGlite           ${pct(embedded.server)} (the database is in the process)   ${verdict(embedded.server)}`);
    let pgReachable = true;
    try {
      psql(PG_ADMIN, `drop database if exists ${DB}`);
      psql(PG_ADMIN, `create database ${DB}`);
    } catch {
      pgReachable = false;
      lines.push('  PostgreSQL not reachable: its figures skipped');
    }
    if (pgReachable) {
      const url = PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`);
      const pg = await idle('server/src/main.ts', { DATABASE_URL: url }, seconds, url);
      const total = pg.server + pg.postgres;
      lines.push(
        `  Tally, PostgreSQL                ${pct(pg.server)} + its backends ${pct(pg.postgres)} = ${pct(total)}   ${verdict(total)}`,
      );
      if (existsSync(join(ROOT, 'engines/chdb/node_modules/chdb'))) {
        const ch = await idle(
          'server/src/main.ts',
          { DATABASE_URL: url, TALLY_CLICKHOUSE_URL: `chdb:${join(dir, 'clickhouse')}` },
          seconds,
          url,
        );
        const chTotal = ch.server + ch.postgres;
        lines.push(
          `  Tally, PostgreSQL + embedded ClickHouse ${pct(ch.server)} + its backends ${pct(ch.postgres)} = ${pct(chTotal)}   ${verdict(chTotal)}`,
        );
      } else lines.push('  the embedded ClickHouse engine is not installed (make engines): its figure skipped');
      try {
        psql(PG_ADMIN, `drop database if exists ${DB}`);
      } catch {
        /* best effort */
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) for (const l of await run()) console.log(l);
