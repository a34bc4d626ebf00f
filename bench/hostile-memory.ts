// Issue 20, item 3: the server's peak RSS while it refuses hostile bodies, against its peak under
// normal ingestion load, each in a fresh server process (server/src/main.ts) on the embedded
// database and, when reachable, on PostgreSQL. Peaks are VmHWM from /proc/<pid>/status,
// reset (clear_refs) once the started server has settled, so start-up's own peak is left out.
//
// Normal: BENCH_HOSTILE_NORMAL_EVENTS (default 20,000) generation-create events with usage in
// batches of 100, 4 in flight, then 20 list pages. Hostile: BENCH_HOSTILE_CONCURRENCY (default
// 12) requests in flight over loopback, BENCH_HOSTILE_ROUNDS (default 6) of each kind below, for
// at most BENCH_HOSTILE_SECONDS (default 180): 50 MB bodies with and without Content-Length to
// the JSON ingestion endpoint and to the OTLP endpoint, gzip and brotli bombs (about 1 MB
// inflating to BENCH_HOSTILE_BOMB_MB, default 1024), and deeply nested JSON (4 MB of `[[[…` in an
// ingestion event and in an explain body, 30 MB of it as an OTLP/JSON body, and 8 MB of it as the
// JSON text of an OTLP span attribute). Refusing means a 4xx, a 207 with every event refused, or
// a 503 with Retry-After (the budget for buffered bodies pushing back, server/src/http/body.ts).
// After the hostile peak is read, a small batch and one legitimately large OTLP export (24 MB of
// JSON, gzipped) must still be taken; that export's own peak is printed for information, outside
// the comparison. Then both loads go to one process, the hostile requests right after the
// normal ones, for information: the read buffers of every body, refused or not, are freed only
// when V8 collects (about every 64 MB of them), which adds some 100 MB on top of whatever the
// process holds, however small the budget for bodies. The span attribute case is measured apart,
// in a process of its own: that JSON is the OTLP mapping's to handle, not the body parser's.
// BENCH_HOSTILE_ONLY (a regular expression over the kinds' names) and BENCH_HOSTILE_DB (pglite or
// postgresql) narrow a run down.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as zc, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import { freePort, memory, percentile, startChild, waitHealthy, type Child } from './lib.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'tally_bench_hostile';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-hostile', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-hostile-secret' };
const auth = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;
const BATCH = 100;
const TARGET_MB = 100;
const INGESTION = '/api/public/ingestion';
const OTEL = '/api/public/otel/v1/traces';
const MB = 1024 * 1024;

const env = (k: string, d: number) => Number(process.env[k] ?? d);

function batch(run: string, b: number): string {
  const events: unknown[] = [
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
      },
    });
  }
  return JSON.stringify({ batch: events });
}

interface Sent {
  status: number | string;
  ms: number;
  text: string;
}

/**
 * One POST over its own connection. `body` is written in 1 MB slices with backpressure; without
 * `length` it goes chunked. An answer before the body is written stops the writing.
 */
function send(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  opts: { chunked?: boolean; timeoutMs?: number } = {},
): Promise<Sent> {
  const started = performance.now();
  return new Promise((resolve) => {
    let done = false;
    let text = '';
    const finish = (status: number | string) => {
      if (done) return;
      done = true;
      resolve({ status, ms: performance.now() - started, text });
    };
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { authorization: auth, ...headers, ...(opts.chunked ? {} : { 'content-length': String(body.length) }) },
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (d) => {
          if (text.length < 4096) text += d;
        });
        res.on('end', () => finish(res.statusCode!));
        res.on('error', () => finish(res.statusCode!));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish('timeout');
    }, opts.timeoutMs ?? 120_000);
    req.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? 'error'));
    req.on('close', () => clearTimeout(timer));
    req.on('response', () => {
      /* answered: stop writing */ stopped = true;
    });
    let stopped = false;
    let at = 0;
    const pump = () => {
      while (!stopped && at < body.length) {
        const slice = body.subarray(at, Math.min(body.length, at + MB));
        at += slice.length;
        if (!req.write(slice)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

/** a compressed stream of `prefix` then `mb` MB of `fill`, compressed by `make` */
async function bomb(make: () => NodeJS.ReadWriteStream, prefix: string, fill: string, mb: number): Promise<Buffer> {
  const z = make();
  const out: Buffer[] = [];
  z.on('data', (d: Buffer) => out.push(d));
  const ended = new Promise((r) => z.on('end', r));
  const chunk = Buffer.alloc(MB, fill);
  const write = (b: Buffer) =>
    new Promise<void>((r) => {
      if (z.write(b)) r();
      else z.once('drain', () => r());
    });
  await write(Buffer.from(prefix));
  for (let i = 0; i < mb; i++) await write(chunk);
  z.end();
  await ended;
  return Buffer.concat(out);
}

/** `accept`: answers beside a 4xx, a 503 (the body budget pushing back) and a 207 with every event refused that count as refusing it */
export interface Kind {
  name: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  chunked?: boolean;
  accept?: number[] /** measured in a process of its own, outside the comparison: why */;
  apart?: string;
}

/** the hostile requests; `bombMb`: what each compression bomb inflates to */
export async function hostileKinds(bombMb = env('BENCH_HOSTILE_BOMB_MB', 1024)): Promise<Kind[]> {
  const big = Buffer.alloc(50 * MB, 'a');
  big.write('{"batch":[{"id":"x","type":"span-create","timestamp":"2026-01-01T00:00:00Z","body":{"input":"');
  const json = { 'content-type': 'application/json' };
  const gzipJson = { ...json, 'content-encoding': 'gzip' };
  const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const ingestionPrefix = '{"batch":[{"id":"x","type":"span-create","timestamp":"2026-01-01T00:00:00Z","body":{"id":"bomb","input":"';
  const otelPrefix = '{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"';
  const span = (attr: string) =>
    JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: `${'0'.repeat(31)}1`,
                  spanId: `${'0'.repeat(15)}1`,
                  name: 'deep',
                  startTimeUnixNano: '1767225600000000000',
                  endTimeUnixNano: '1767225601000000000',
                  attributes: [{ key: 'langfuse.observation.input', value: { stringValue: attr } }],
                },
              ],
            },
          ],
        },
      ],
    });
  return [
    { name: 'ingestion 50 MB, Content-Length', path: INGESTION, headers: json, body: big },
    { name: 'ingestion 50 MB, chunked', path: INGESTION, headers: json, body: big, chunked: true },
    { name: 'OTLP 50 MB, Content-Length', path: OTEL, headers: json, body: big },
    { name: 'OTLP 50 MB, chunked', path: OTEL, headers: json, body: big, chunked: true },
    {
      name: `ingestion gzip bomb (${bombMb} MB)`,
      path: INGESTION,
      headers: gzipJson,
      body: await bomb(() => createGzip({ level: 9 }), ingestionPrefix, 'a', bombMb),
    },
    {
      name: `OTLP gzip bomb (${bombMb} MB)`,
      path: OTEL,
      headers: gzipJson,
      body: await bomb(() => createGzip({ level: 9 }), otelPrefix, 'a', bombMb),
    },
    {
      name: `OTLP brotli bomb (${bombMb} MB)`,
      path: OTEL,
      headers: { ...json, 'content-encoding': 'br' },
      body: await bomb(() => createBrotliCompress({ params: { [zc.BROTLI_PARAM_QUALITY]: 5 } }), otelPrefix, 'a', bombMb),
    },
    {
      name: 'ingestion event nested 4 MB deep',
      path: INGESTION,
      headers: json,
      body: Buffer.from(
        `{"batch":[{"id":"deep","type":"span-create","timestamp":"2026-01-01T00:00:00Z","body":{"id":"deep","input":${nest(2 * MB)}}}]}`,
      ),
    },
    {
      name: 'explain body nested 4 MB deep',
      path: '/api/public/models/explain',
      headers: json,
      body: Buffer.from(`{"model":"gpt-4o","metadata":${nest(2 * MB)}}`),
    },
    // an export whose resourceSpans hold no spans: answered 200 with nothing stored
    {
      name: 'OTLP/JSON nested 30 MB deep',
      path: OTEL,
      headers: gzipJson,
      body: gzipSync(`{"resourceSpans":${nest(15 * MB)}}`),
      accept: [200],
    },
    // nesting inside a string: the OTLP mapping's to handle, not the body parser's (measured apart; 200 with the span in partialSuccess, or kept as text)
    {
      name: 'OTLP attribute JSON nested 8 MB deep',
      path: OTEL,
      headers: gzipJson,
      body: gzipSync(span(nest(4 * MB))),
      apart: "nested JSON text inside a span attribute: the OTLP mapping's to handle (ingestion/otel/map.ts), not the body parser's",
      accept: [200],
    },
  ];
}

/** a legitimate OTLP/JSON export of about `mb` MB: 200-span exports of large prompts */
function largeExport(mb: number): Buffer {
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(Math.ceil((mb * MB) / 400 / 45));
  const spans = Array.from({ length: 400 }, (_, i) => ({
    traceId: 'a'.repeat(30) + String(i % 100).padStart(2, '0'),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: `llm-${i}`,
    startTimeUnixNano: '1767225600000000000',
    endTimeUnixNano: '1767225601000000000',
    attributes: [
      { key: 'langfuse.observation.type', value: { stringValue: 'generation' } },
      { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o-mini' } },
      { key: 'gen_ai.prompt', value: { stringValue: `${i} ${text}` } },
      { key: 'gen_ai.usage.input_tokens', value: { intValue: 1000 } },
      { key: 'gen_ai.usage.output_tokens', value: { intValue: 100 } },
    ],
  }));
  return Buffer.from(
    JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] },
          scopeSpans: [{ scope: { name: 'bench' }, spans }],
        },
      ],
    }),
  );
}

/** a server process; stopped with SIGTERM, and SIGKILL if it has not exited 10 s later */
export function server(env: Record<string, string>): Child {
  const child = startChild('server/src/main.ts', { ...keys, LOG_LEVEL: 'warn', ...env });
  return {
    proc: child.proc,
    stop: async () => {
      const kill = setTimeout(() => child.proc.kill('SIGKILL'), 10_000);
      await child.stop();
      clearTimeout(kill);
    },
  };
}

export async function fresh(label: string, port: number, dbEnv: Record<string, string>): Promise<Child & { idle: number }> {
  const child = server({ PORT: String(port), ...dbEnv });
  try {
    await waitHealthy(`http://127.0.0.1:${port}/api/public/health`);
  } catch (e) {
    await child.stop();
    throw new Error(`${label}: ${(e as Error).message}`);
  }
  await new Promise((r) => setTimeout(r, 3000)); // start-up garbage collected
  // the peak from here on: start-up (PGlite's initialisation, the managed models) peaks on its own
  writeFileSync(`/proc/${child.proc.pid}/clear_refs`, '5');
  return { ...child, idle: memory(child.proc.pid!).rss };
}

/** normal ingestion load on a running server: `events` generations with usage in batches, 4 in flight, then 20 list pages; events/s */
export async function normalLoad(port: number, events = env('BENCH_HOSTILE_NORMAL_EVENTS', 20_000)): Promise<number> {
  const run = `n${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  let next = 0;
  const worker = async () => {
    for (let b = next++; b < events / BATCH; b = next++) {
      const r = await fetch(`http://127.0.0.1:${port}${INGESTION}`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: batch(run, b),
      });
      const j = (await r.json()) as { errors?: unknown[] };
      if (r.status !== 207 || j.errors?.length) throw new Error(`normal load: batch ${b} answered ${r.status}`);
    }
  };
  const started = performance.now();
  await Promise.all([worker(), worker(), worker(), worker()]);
  const rate = events / ((performance.now() - started) / 1000);
  for (let page = 1; page <= 20; page++)
    await (
      await fetch(`http://127.0.0.1:${port}/api/public/observations?limit=100&page=${page}`, { headers: { authorization: auth } })
    ).json();
  return rate;
}

/** the peak of a fresh server under normal ingestion load */
export async function normalPeak(
  port: number,
  dbEnv: Record<string, string>,
  events?: number,
): Promise<{ hwm: number; rate: number; idle: number }> {
  const child = await fresh('normal', port, dbEnv);
  try {
    const rate = await normalLoad(port, events);
    return { hwm: memory(child.proc.pid!).hwm, rate, idle: child.idle };
  } finally {
    await child.stop();
  }
}

export interface HostileResult {
  hwm: number;
  idle: number;
  lines: string[];
  ok: boolean;
  largeExport: string;
}

/**
 * `kinds` sent to a running server (process `pid`), BENCH_HOSTILE_CONCURRENCY in flight; `hwm` is
 * its peak when the last is answered. With `after`, a small batch and a large export must then be taken.
 */
export async function hostileLoad(port: number, pid: number, kinds: Kind[], after = true): Promise<Omit<HostileResult, 'idle'>> {
  const concurrency = env('BENCH_HOSTILE_CONCURRENCY', 12);
  const rounds = env('BENCH_HOSTILE_ROUNDS', 6);
  const until = performance.now() + env('BENCH_HOSTILE_SECONDS', 180) * 1000;
  // interleaved: every kind is in flight alongside the others
  const queue: Kind[] = [];
  for (let r = 0; r < rounds; r++) queue.push(...kinds);
  const results = new Map<string, Sent[]>(kinds.map((k) => [k.name, []]));
  let peakRss = 0;
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, memory(pid).rss);
    } catch {
      /* exited */
    }
  }, 50);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < queue.length && performance.now() < until; i = next++) {
        const k = queue[i]!;
        const r = await send(port, k.path, k.headers, k.body, { chunked: k.chunked });
        results.get(k.name)!.push(r);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const hwm = memory(pid).hwm;
  const lines = [
    `    ${queue.length} requests (${kinds.length} kinds × ${rounds}), ${concurrency} in flight, ${seconds.toFixed(1)} s; answers and time to answer per kind:`,
  ];
  let ok = true;
  for (const [name, rs] of results) {
    const statuses = new Map<string, number>();
    for (const r of rs) statuses.set(String(r.status), (statuses.get(String(r.status)) ?? 0) + 1);
    const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
    // refused: a 4xx, a 503 (the budget for bodies pushing back), or the ingestion endpoint's 207 with every event refused
    const kind = kinds.find((k) => k.name === name)!;
    if (
      rs.some(
        (r) =>
          !(typeof r.status === 'number' && ((r.status >= 400 && r.status < 500) || r.status === 503 || kind.accept?.includes(r.status))) &&
          !(r.status === 207 && r.text.includes('"successes":[]')),
      )
    )
      ok = false;
    lines.push(
      `      ${name.padEnd(40)} ${[...statuses]
        .map(([s, n]) => `${n}× ${s}`)
        .join(', ')
        .padEnd(16)} p50 ${Math.round(percentile(ms, 50))} ms, max ${Math.round(ms.at(-1) ?? NaN)} ms`,
    );
  }
  lines.push(`    RSS sampled every 50 ms peaked at ${peakRss.toFixed(0)} MB`);
  if (!after) return { hwm, lines, ok, largeExport: '' };
  // still serving: a small batch, then one large legitimate OTLP export
  const small = await send(
    port,
    INGESTION,
    { 'content-type': 'application/json' },
    Buffer.from(batch(`after${Date.now().toString(36)}`, 0)),
  );
  if (small.status !== 207) ok = false;
  const big = largeExport(24);
  const gz = gzipSync(big);
  const before = memory(pid).hwm;
  const exp = await send(port, OTEL, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gz);
  if (exp.status !== 200 || exp.text !== '{}') ok = false;
  const largeExport_ = `    then a batch of ${BATCH + 1} events: ${small.status}; a ${(big.length / MB).toFixed(1)} MB OTLP/JSON export (${(gz.length / MB).toFixed(1)} MB gzipped, 400 spans): ${exp.status} in ${Math.round(exp.ms)} ms, ${exp.text.slice(0, 80)}; peak after it ${memory(pid).hwm.toFixed(0)} MB (was ${before.toFixed(0)} MB)`;
  return { hwm, lines, ok, largeExport: largeExport_ };
}

/** the peak of a fresh server sent `kinds` */
export async function hostilePeak(port: number, dbEnv: Record<string, string>, kinds: Kind[], after = true): Promise<HostileResult> {
  const child = await fresh('hostile', port, dbEnv);
  try {
    return { ...(await hostileLoad(port, child.proc.pid!, kinds, after)), idle: child.idle };
  } finally {
    await child.stop();
  }
}

async function measure(label: string, dbEnv: Record<string, string>, kinds: Kind[]): Promise<string[]> {
  const port = await freePort();
  // the first start creates the database (PGlite's initdb, migrations): not measured
  const first = server({ PORT: String(port), ...dbEnv });
  try {
    await waitHealthy(`http://127.0.0.1:${port}/api/public/health`);
  } finally {
    await first.stop();
  }
  const normal = await normalPeak(port, dbEnv);
  const hostile = await hostilePeak(
    port,
    dbEnv,
    kinds.filter((k) => !k.apart),
  );
  const diff = hostile.hwm - normal.hwm;
  // the same load on one process: the hostile requests right after the normal load
  const one = await fresh('same process', port, dbEnv);
  let same: string;
  try {
    await normalLoad(port);
    const n = memory(one.proc.pid!).hwm;
    const h = await hostileLoad(
      port,
      one.proc.pid!,
      kinds.filter((k) => !k.apart),
      false,
    );
    same = `    one process, the hostile requests right after the normal load: normal peak ${n.toFixed(0)} MB, then ${h.hwm.toFixed(0)} MB (${h.hwm - n >= 0 ? '+' : ''}${(h.hwm - n).toFixed(0)} MB)${h.ok ? '' : ', some answers not as expected'}`;
  } finally {
    await one.stop();
  }
  const apart: string[] = [];
  for (const k of kinds.filter((k) => k.apart)) {
    const alone = await hostilePeak(port, dbEnv, [k], false);
    const d = alone.hwm - normal.hwm;
    apart.push(
      `    apart (${k.apart}): ${k.name}, ${env('BENCH_HOSTILE_ROUNDS', 6)} at once in a fresh process: peak ${alone.hwm.toFixed(0)} MB, ${d >= 0 ? '+' : ''}${d.toFixed(0)} MB against the normal peak;${alone.lines.at(-2)!.replace(/^\s+\S+ .*?\s{2,}/, ' ')}`,
    );
  }
  return [
    `  ${label}: normal peak ${normal.hwm.toFixed(0)} MB (idle ${normal.idle.toFixed(0)}, ${Math.round(normal.rate).toLocaleString('en-US')} events/s)   hostile peak ${hostile.hwm.toFixed(0)} MB (idle ${hostile.idle.toFixed(0)})   difference ${diff >= 0 ? '+' : ''}${diff.toFixed(0)} MB   target ≤ +${TARGET_MB} MB: ${diff <= TARGET_MB ? 'met' : 'NOT MET'}${hostile.ok ? '' : '   (some answers were not the expected 4xx, or the server stopped taking legitimate requests)'}`,
    ...hostile.lines,
    hostile.largeExport,
    same,
    ...apart,
  ];
}

export async function run(): Promise<string[]> {
  // BENCH_HOSTILE_ONLY: a regular expression choosing kinds by name; BENCH_HOSTILE_DB: pglite or postgresql only
  const only = process.env.BENCH_HOSTILE_ONLY ? new RegExp(process.env.BENCH_HOSTILE_ONLY, 'i') : null;
  const kinds = (await hostileKinds()).filter((k) => !only || only.test(k.name));
  const db = process.env.BENCH_HOSTILE_DB ?? 'both';
  const lines = [
    `server peak RSS (VmHWM), each phase in a fresh server process: normal load, ${env('BENCH_HOSTILE_NORMAL_EVENTS', 20_000).toLocaleString('en-US')} generation-create events with usage in batches of ${BATCH}, 4 in flight; hostile load, bodies refused:`,
  ];
  if (db !== 'postgresql') {
    const dir = mkdtempSync(join(tmpdir(), 'tally-bench-hostile-'));
    try {
      lines.push(...(await measure('PGlite', { DATABASE_URL: '', TALLY_DATA_DIR: dir }, kinds)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (db === 'pglite') return lines;
  try {
    execFileSync('psql', [PG_ADMIN, '-X', '-q', '-c', `drop database if exists ${DB_NAME}`, '-c', `create database ${DB_NAME}`], {
      stdio: 'ignore',
    });
  } catch {
    lines.push('  PostgreSQL not reachable: its figures skipped');
    return lines;
  }
  try {
    lines.push(...(await measure('PostgreSQL', { DATABASE_URL: PG_ADMIN.replace(/\/[^/]*$/, `/${DB_NAME}`) }, kinds)));
  } finally {
    execFileSync('psql', [PG_ADMIN, '-X', '-q', '-c', `drop database if exists ${DB_NAME}`], { stdio: 'ignore' });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) for (const line of await run()) console.log(line);
