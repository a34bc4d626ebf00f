// Server memory on both databases: RSS when idle after start, after an ingestion run, and its
// peak, for PostgreSQL, for the embedded PGlite as shipped (TALLY_PGLITE_SHARED_BUFFERS_MB,
// default 32) and, as the baseline in the same run, PGlite with PostgreSQL's default
// shared_buffers (128 MB), which is what the embedded server used before.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, memory, startChild, waitHealthy, type Child } from './lib.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'tally_bench_memory';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-memory', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-memory-secret' };
const auth = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;
const BATCH = 100;

function batch(run: string, b: number): string {
  const events = [
    { id: `${run}-t-${b}`, timestamp: new Date().toISOString(), type: 'trace-create', body: { id: `${run}-trace-${b}`, name: 'bench' } },
  ];
  for (let i = 0; i < BATCH; i++) {
    events.push({
      id: `${run}-e-${b}-${i}`,
      timestamp: new Date().toISOString(),
      type: 'generation-create',
      body: {
        id: `${run}-g-${b}-${i}`,
        traceId: `${run}-trace-${b}`,
        model: 'gpt-4o-mini',
        input: 'x'.repeat(200),
        output: 'y'.repeat(200),
        usageDetails: { input: 100 + i, output: 50 + i },
        metadata: { run, i },
      } as never,
    });
  }
  return JSON.stringify({ batch: events });
}

/** issue 28's targets for a line: idle and peak RSS at most these many MB */
interface MemoryTarget {
  idle?: number;
  peak: number;
}

async function measure(label: string, env: Record<string, string>, events: number, target?: MemoryTarget): Promise<string> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/api/public`;
  const start = () => startChild('server/src/main.ts', { ...keys, PORT: String(port), LOG_LEVEL: 'warn', ...env });
  // measured on the second start: the first one creates the database (PGlite's initdb), which a
  // running installation does once
  const first = start();
  try {
    await waitHealthy(`${base}/health`);
  } finally {
    await first.stop();
  }
  const child: Child = start();
  try {
    await waitHealthy(`${base}/health`);
    await new Promise((r) => setTimeout(r, 3000)); // start-up garbage collected
    const idle = memory(child.proc.pid!);
    const run = `m${Date.now().toString(36)}`;
    let next = 0;
    const worker = async () => {
      for (let b = next++; b < events / BATCH; b = next++) {
        const r = await fetch(`${base}/ingestion`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: batch(run, b),
        });
        const j = (await r.json()) as { errors?: unknown[] };
        if (r.status !== 207 || j.errors?.length) throw new Error(`${label}: batch ${b} answered ${r.status}`);
      }
    };
    const started = performance.now();
    await Promise.all([worker(), worker()]);
    const rate = Math.round(events / ((performance.now() - started) / 1000));
    for (let page = 1; page <= 20; page++)
      await (await fetch(`${base}/observations?limit=100&page=${page}`, { headers: { authorization: auth } })).json();
    const after = memory(child.proc.pid!);
    await new Promise((r) => setTimeout(r, 3000));
    const settled = memory(child.proc.pid!);
    const verdict = target
      ? `   (target${target.idle ? ` idle <= ${target.idle} MB,` : ''} peak <= ${target.peak} MB: ${(target.idle === undefined || idle.rss <= target.idle) && settled.hwm <= target.peak ? 'met' : 'MISSED'})`
      : '   (the baseline)';
    return `  ${label.padEnd(34)} idle ${idle.rss.toFixed(0).padStart(4)} MB   after ${events.toLocaleString('en-US')} events ${after.rss.toFixed(0).padStart(4)} MB   3 s later ${settled.rss.toFixed(0).padStart(4)} MB   peak ${settled.hwm.toFixed(0).padStart(4)} MB   (${rate.toLocaleString('en-US')} events/s)${verdict}`;
  } finally {
    await child.stop();
  }
}

export async function run(): Promise<string[]> {
  const events = Number(process.env.BENCH_MEMORY_EVENTS ?? 20_000);
  const lines = [
    `server RSS (VmRSS/VmHWM from /proc), ${events.toLocaleString('en-US')} generation-create events with usage in batches of ${BATCH}, 2 in flight, then 20 list pages; each server started once to create its database, then measured from its second start:`,
  ];
  const dirs: string[] = [];
  const pglite = (mb?: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-bench-mem-'));
    dirs.push(dir);
    return { DATABASE_URL: '', TALLY_DATA_DIR: dir, ...(mb ? { TALLY_PGLITE_SHARED_BUFFERS_MB: String(mb) } : {}) };
  };
  try {
    lines.push(await measure('PGlite, shared_buffers 128 MB (was)', pglite(128), events));
    lines.push(await measure('PGlite, shared_buffers as shipped', pglite(), events, { idle: 300, peak: 600 }));
    try {
      execFileSync('psql', [PG_ADMIN, '-X', '-q', '-c', `drop database if exists ${DB_NAME}`, '-c', `create database ${DB_NAME}`], {
        stdio: 'ignore',
      });
    } catch {
      lines.push('  PostgreSQL not reachable: its figures skipped');
      return lines;
    }
    try {
      lines.push(
        await measure('PostgreSQL (server process only)', { DATABASE_URL: PG_ADMIN.replace(/\/[^/]*$/, `/${DB_NAME}`) }, events, {
          peak: 300,
        }),
      );
    } finally {
      execFileSync('psql', [PG_ADMIN, '-X', '-q', '-c', `drop database if exists ${DB_NAME}`], { stdio: 'ignore' });
    }
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) for (const line of await run()) console.log(line);
