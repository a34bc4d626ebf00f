// Where ingestion's time goes, without HTTP or a load generator on the same cores: the bench's
// batches validated and applied in process (applyBatch) against PostgreSQL, one batch at a time,
// with the CPU of this process and of its PostgreSQL backends per event, and the wall time of
// each statement per call and per event. Not part of `make bench` (it reports no target); it is
// for comparing two versions of the ingestion path (check one out, run, check out the other).
//   node bench/ingestion-statements.ts                 10,000 events with usage provided, 3 rounds after a warm-up
//   BENCH_TOKENISED=1 node bench/ingestion-statements.ts   text only, counted by the tokenizer worker
//   BENCH_EVENTS, BENCH_ROUNDS change the size
//   BENCH_ALLOC_PROFILE=<file>   writes a sampling profile of every allocation in the measured rounds,
//                                collected or not (a .heapprofile for Chrome's DevTools)
//   BENCH_SQL=<statement>        run on the bench database once the server has migrated it (to try a
//                                storage setting, say); BENCH_KEEP_DB=1 keeps the database afterwards
// The machine's speed drifts by 10-20% between runs: compare versions in alternating runs.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import pg from 'pg';
import { buildBatches, mulberry32 } from './ingestion.ts';
import { pgBackendPids, psql } from './lib.ts';
import { loadConfig } from '../server/src/config.ts';
import { startServer } from '../server/src/server.ts';
import { createLogger } from '../server/src/logger.ts';
import { projectForPublicKey } from '../server/src/store/projects.ts';
import { createEventValidator } from '../server/src/ingestion/events.ts';
import { applyBatch } from '../server/src/ingestion/pipeline.ts';

const ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'tally_bench_statements';
const N = Number(process.env.BENCH_EVENTS ?? 10_000),
  ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const tokenised = process.env.BENCH_TOKENISED === '1';

// wall time per statement: prepared statements by name, others by their first words
const timing = new Map<string, { ms: number; calls: number }>();
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const a0 = args[0] as string | { name?: string; text?: string };
  const name =
    typeof a0 === 'object' && a0?.name ? a0.name : (typeof a0 === 'string' ? a0 : (a0?.text ?? '')).slice(0, 30).replace(/\s+/g, ' ');
  const t = performance.now();
  const r = query.apply(this, args);
  if (r instanceof Promise) {
    r.then(
      () => {
        const e = timing.get(name) ?? { ms: 0, calls: 0 };
        e.ms += performance.now() - t;
        e.calls++;
        timing.set(name, e);
      },
      () => {},
    );
  }
  return r;
} as typeof pg.Client.prototype.query;

/** user+system CPU seconds of each thread of this process by name (several of one name summed), from /proc */
const threadSeconds = () => {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      const f = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) / 100);
    } catch {
      /* gone */
    }
  }
  return out;
};

/** user+system CPU seconds of these processes, from /proc */
const cpuSeconds = (pids: number[]) =>
  pids.reduce((s, p) => {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return s + (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      return s;
    }
  }, 0);

psql(ADMIN, `drop database if exists ${DB}`);
psql(ADMIN, `create database ${DB}`);
const url = ADMIN.replace(/\/[^/]*$/, `/${DB}`);
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-statements', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-statements' };
const srv = await startServer(
  loadConfig({ ...process.env, ...keys, DATABASE_URL: url, PORT: '0', TALLY_EVAL_CONCURRENCY: '0' }),
  createLogger('error'),
  { host: '127.0.0.1' },
);
try {
  if (process.env.BENCH_SQL) psql(url, process.env.BENCH_SQL);
  const projectId = (await projectForPublicKey(srv.db.em(), keys.TALLY_INIT_PUBLIC_KEY))!;
  const validate = createEventValidator();
  const backends = () => pgBackendPids(url);
  console.log(
    `${N.toLocaleString('en-US')} ${tokenised ? 'text-only (tokenised)' : 'usage-provided'} events per round in batches of 100, one batch at a time; round 0 warms up`,
  );
  const allocProfile = process.env.BENCH_ALLOC_PROFILE;
  const inspector = allocProfile ? new Session() : null;
  inspector?.connect();
  for (let round = 0; round <= ROUNDS; round++) {
    if (round === 1)
      await inspector?.post('HeapProfiler.startSampling', {
        samplingInterval: 16384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    const batches = buildBatches(N, tokenised, `s${round}x${Date.now().toString(36)}`, 0, mulberry32(42 + round), Date.now() - 86_400_000);
    const pids = backends();
    const pg0 = cpuSeconds(pids),
      threads0 = threadSeconds(),
      cpu0 = process.cpuUsage(),
      t0 = performance.now();
    for (const b of batches) {
      const events = (JSON.parse(b.body) as { batch: unknown[] }).batch.map((raw) => {
        const c = validate(raw);
        if (!c.ok) throw new Error(`bench event refused: ${JSON.stringify(c.issues)}`);
        return c.event;
      });
      await applyBatch(srv.db.em(), srv.services, projectId, events);
    }
    const cpu = process.cpuUsage(cpu0),
      ms = performance.now() - t0,
      pgCpu = cpuSeconds(pids) - pg0;
    const byThread = [...threadSeconds()]
      .map(([k, v]) => [k, v - (threads0.get(k) ?? 0)] as const)
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1]);
    if (round === 0) {
      timing.clear();
      continue;
    }
    console.log(
      `round ${round}: ${(ms / 1000).toFixed(2)} s  this process ${((cpu.user + cpu.system) / N).toFixed(1)} µs/event${tokenised ? ' (tokenizer worker included)' : ''}  PostgreSQL ${((1e6 * pgCpu) / N).toFixed(1)} µs/event;  by thread: ${byThread.map(([k, v]) => `${k} ${((1e6 * v) / N).toFixed(0)}`).join(', ')} µs/event`,
    );
  }
  if (inspector) {
    const { profile } = await inspector.post('HeapProfiler.stopSampling');
    writeFileSync(allocProfile!, JSON.stringify(profile));
    const bytes = (n: { selfSize: number; children: unknown[] }): number =>
      n.selfSize + n.children.reduce((s: number, c) => s + bytes(c as typeof n), 0);
    console.log(`allocated ${(bytes(profile.head) / (N * ROUNDS) / 1024).toFixed(1)} KB per event (sampled, ${allocProfile})`);
    inspector.disconnect();
  }
  console.log('wall time per statement (round trip included):');
  for (const [name, { ms, calls }] of [...timing].sort((a, b) => b[1].ms - a[1].ms).slice(0, 10)) {
    console.log(
      `  ${name.padEnd(32)} ${String(calls).padStart(5)} calls  ${((1000 * ms) / calls).toFixed(0).padStart(6)} µs/call  ${((1000 * ms) / (N * ROUNDS)).toFixed(1).padStart(6)} µs/event`,
    );
  }
} finally {
  await srv.close();
  if (!process.env.BENCH_KEEP_DB) psql(ADMIN, `drop database if exists ${DB}`);
}
