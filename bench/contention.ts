// Contention probe: concurrent writers updating the same observations.
//
// Starts the server in this process, then CONTENTION_WRITERS (8) clients each send, one after
// the other, batches of CONTENTION_BATCH (10) generation-update / span-update events on ids
// drawn from the same CONTENTION_ROWS (50) observations, for CONTENTION_SECONDS (30). Every
// CONTENTION_TRACE_EVERY-th batch (default 0: none) also changes the trace of its first
// observation (a trace-create), so the copy of trace fields onto stored observations runs alongside. Every 10th batch is "late": its
// events carry timestamps 20 s older than the others, as an SDK's retried batch would.
//
// Prints batches sent, errors by status, batch latency p50/p99 and the server's retries,
// then checks every stored field against the event with the latest timestamp that set it
// among the events acknowledged with 201.
//
//   node bench/contention.ts                   PostgreSQL: a fresh database tally_bench_contention
//                                              (admin URL BENCH_PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_DB=pglite node bench/contention.ts   embedded PGlite in memory (one connection: writers queue)
import { loadConfig } from '../server/src/config.ts';
import { contentionCounters } from '../server/src/ingestion/pipeline.ts';
import { createLogger } from '../server/src/logger.ts';
import { startServer } from '../server/src/server.ts';
import { addKeyPair, createProject } from '../server/src/store/projects.ts';
import { fmt, percentile, psql } from './lib.ts';

const SECONDS = Number(process.env.CONTENTION_SECONDS ?? 30);
const WRITERS = Number(process.env.CONTENTION_WRITERS ?? 8);
const ROWS = Number(process.env.CONTENTION_ROWS ?? 50);
const BATCH = Number(process.env.CONTENTION_BATCH ?? 10);
const TRACE_EVERY = Number(process.env.CONTENTION_TRACE_EVERY ?? 0);
const TRACES = 5;
const PG = (process.env.BENCH_DB ?? 'postgresql') !== 'pglite';
const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'tally_bench_contention';
if (!(SECONDS > 0 && WRITERS >= 1 && ROWS >= BATCH && BATCH >= 1 && TRACE_EVERY >= 0)) throw new Error('bad CONTENTION_* settings');

let databaseUrl = '';
if (PG) {
  psql(PG_ADMIN, `drop database if exists ${DB_NAME}`);
  psql(PG_ADMIN, `create database ${DB_NAME}`);
  databaseUrl = PG_ADMIN.replace(/\/[^/]*$/, `/${DB_NAME}`);
}
const config = loadConfig({
  ...process.env,
  PORT: '0',
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'fatal',
  TALLY_INIT_PUBLIC_KEY: '',
  TALLY_INIT_SECRET_KEY: '',
});
config.dataDir = 'memory://';
const server = await startServer(config, createLogger(config.logLevel), { host: '127.0.0.1' });
const keys = await addKeyPair(server.db.em(), await createProject(server.db.em(), 'contention'));
const auth = `Basic ${Buffer.from(`${keys.publicKey}:${keys.secretKey}`).toString('base64')}`;
const url = `${server.url}/api/public/ingestion`;

const ids = Array.from({ length: ROWS }, (_, i) => `obs-${String(i).padStart(3, '0')}`);
const isGeneration = (i: number) => i % 2 === 0;
const traceOf = (i: number) => `trace-${i % TRACES}`;

// every event gets its own timestamp (T0 + 10 ms × a global sequence; late ones 20 s earlier,
// offset by 5 ms so they never tie), so the latest one per field is well defined
const T0 = Date.UTC(2026, 0, 1);
let seq = 0;

type Field = 'output' | 'statusMessage' | 'endTime' | 'usageDetails';
interface Sent {
  ts: number;
  value: unknown;
}
/** per observation and field: the acknowledged event with the latest timestamp */
const latest = new Map<string, Sent>();

function buildBatch(writer: number, n: number) {
  const late = n % 10 === 9;
  const picked = new Set<number>();
  while (picked.size < BATCH) picked.add(Math.floor(Math.random() * ROWS));
  const events: { id: string; timestamp: string; type: string; body: Record<string, unknown> }[] = [];
  const sets: [string, Field, Sent][] = [];
  for (const i of picked) {
    const s = seq++;
    const ts = T0 + s * 10 - (late ? 20_000 - 5 : 0);
    const tag = `w${writer}-b${n}-s${s}`;
    const body: Record<string, unknown> = { id: ids[i], traceId: traceOf(i) };
    const fields: Field[] = ['output', 'statusMessage', 'endTime', ...(isGeneration(i) ? ['usageDetails' as const] : [])].filter(
      () => Math.random() < 0.6,
    ) as Field[];
    if (!fields.length) fields.push('output');
    for (const f of fields) {
      const value = f === 'endTime' ? new Date(ts + 1000).toISOString() : f === 'usageDetails' ? { input: s, output: 1 } : tag;
      body[f] = value;
      sets.push([ids[i]!, f, { ts, value }]);
    }
    events.push({
      id: `evt-${tag}`,
      timestamp: new Date(ts).toISOString(),
      type: isGeneration(i) ? 'generation-update' : 'span-update',
      body,
    });
  }
  if (TRACE_EVERY > 0 && n % TRACE_EVERY === 0) {
    const first = [...picked][0]!;
    const s = seq++;
    events.push({
      id: `evt-trace-w${writer}-b${n}-s${s}`,
      timestamp: new Date(T0 + s * 10).toISOString(),
      type: 'trace-create',
      body: { id: traceOf(first), userId: `user-${s}` },
    });
  }
  return { body: JSON.stringify({ batch: events }), sets };
}

const latencies: number[] = [];
const statuses = new Map<string, number>();
const count = (k: string) => statuses.set(k, (statuses.get(k) ?? 0) + 1);
let batches = 0;
const before = { ...contentionCounters };
const deadline = Date.now() + SECONDS * 1000;

async function writer(w: number) {
  for (let n = 0; Date.now() < deadline; n++) {
    const { body, sets } = buildBatch(w, n);
    const t = performance.now();
    const r = await fetch(url, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body });
    const text = await r.text();
    latencies.push(performance.now() - t);
    batches++;
    if (r.status !== 207) {
      count(
        `${r.status}${r.headers.get('retry-after') ? ` (Retry-After ${r.headers.get('retry-after')})` : ''}: ${JSON.parse(text).message}`,
      );
      continue;
    }
    const res = JSON.parse(text) as { errors: { status: number }[] };
    if (res.errors.length) for (const e of res.errors) count(`207 with a ${e.status} event`);
    else count('207, no errors');
    for (const [id, f, sent] of sets) {
      const k = `${id} ${f}`;
      if ((latest.get(k)?.ts ?? -Infinity) < sent.ts) latest.set(k, sent);
    }
  }
}

const t = performance.now();
await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
const ms = performance.now() - t;
latencies.sort((a, b) => a - b);

// the stored state against the rule "each field holds the value of its latest event"
let checked = 0;
const wrong: string[] = [];
for (const id of ids) {
  const r = await fetch(`${server.url}/api/public/observations/${id}`, { headers: { authorization: auth } });
  if (r.status !== 200) {
    wrong.push(`${id}: GET answered ${r.status}`);
    continue;
  }
  const o = (await r.json()) as Record<string, any>;
  for (const f of ['output', 'statusMessage', 'endTime', 'usageDetails'] as Field[]) {
    const want = latest.get(`${id} ${f}`);
    if (!want) continue;
    checked++;
    const got = f === 'usageDetails' ? o.usageDetails?.input : f === 'endTime' ? o.endTime && new Date(o.endTime).toISOString() : o[f];
    const expected = f === 'usageDetails' ? (want.value as { input: number }).input : want.value;
    if (got !== expected) wrong.push(`${id}.${f}: ${JSON.stringify(got)}, latest event ${JSON.stringify(expected)}`);
  }
}

const errors = [...statuses].filter(([k]) => k !== '207, no errors').reduce((s, [, n]) => s + n, 0);
console.log(
  `contention probe, ${PG ? 'PostgreSQL' : 'PGlite'}: ${WRITERS} writers, ${BATCH} updates per batch on ${ROWS} shared observations (${TRACES} traces), ${TRACE_EVERY ? `a trace change every ${TRACE_EVERY} batches` : 'no trace changes'}, ${(ms / 1000).toFixed(1)} s`,
);
console.log(`  batches         ${batches} (${Math.round((batches / ms) * 1000)}/s), ${errors} with an error`);
for (const [k, n] of [...statuses].sort()) console.log(`    ${String(n).padStart(6)}  ${k}`);
console.log(
  `  batch latency   p50 ${fmt(percentile(latencies, 50))}  p99 ${fmt(percentile(latencies, 99))}  max ${fmt(latencies.at(-1)!)}`,
);
console.log(
  `  server retries  ${contentionCounters.retries - before.retries} batches applied again after a conflict, ${contentionCounters.gaveUp - before.gaveUp} given up (503)`,
);
console.log(`  final state     ${checked - wrong.length} of ${checked} fields hold the value of their latest-timestamp event`);
for (const w of wrong.slice(0, 5)) console.log(`                  ${w}`);
if (wrong.length > 5) console.log(`                  … and ${wrong.length - 5} more`);

await server.close();
if (PG)
  try {
    psql(PG_ADMIN, `drop database if exists ${DB_NAME}`);
  } catch {
    /* best effort */
  }
