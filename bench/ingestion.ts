// Issue 3 figures: POST /api/public/ingestion throughput and batch latency against PostgreSQL,
// with a baseline measured in the same run: COPY of the same number of rows, with roughly the
// same columns, into a bare table (primary key only).
//
// Phase 1 sends generation-create events with usage provided (half as a chat-completions usage
// object, half as flat usageDetails), phase 2 BENCH_TOKENISED_EVENTS (default 10,000) with no usage
// but input/output text on a tokenizer model (o200k_base, cl100k_base and the legacy Claude
// vocabulary), so the server tokenises them in its worker threads. Its token throughput is compared
// with the inline counting rate (same events, same code, this process, no worker hop) × the
// server's tokenizer threads, measured in the same run, and beside it the ceiling the machine
// allows at all: the ratio if every core were busy for the whole phase at the CPU per event the
// phase used (server, PostgreSQL, this load generator). Every batch is 100 generations plus the
// trace-create of its own trace. Knobs: BENCH_EVENTS (default 200000), BENCH_CONCURRENCY
// (POSTs in flight, default 4), BENCH_CPU_PROF=<dir> (writes a --cpu-prof profile of the server).
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism } from 'node:os';
import { fmt, freePort, memory, percentile, pgBackendPids, psql, startChild, waitHealthy, type Child, cpuSeconds } from './lib.ts';
import { defaultTokenizerThreads } from '../server/src/config.ts';
import { inferUsage, type TokenizerRef } from '../server/src/domain/tokenizers/index.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'tally_bench_ingestion';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-ingest', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-ingest-secret' };
const auth = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;
const BATCH = 100; // generations per batch (each batch also carries one trace-create)
const TOKENISED_EVENTS = 10_000;

// managed models by name; weights sum to 1. Tokenised events use the tokenizer models only.
const USAGE_MODELS: [string, number][] = [
  ['gpt-4o', 0.2],
  ['gpt-4o-mini', 0.2],
  ['claude-sonnet-4-5', 0.15],
  ['claude-3-5-haiku', 0.1],
  ['gemini-2.5-pro', 0.15],
  ['gemini-2.0-flash', 0.1],
  ['o3-mini', 0.1],
];
const TOKENISED_MODELS = ['gpt-4o', 'gpt-4', 'claude-sonnet-4-5'];
const TIERED = 'gemini-2.5-pro'; // 20% of its events go above 200,000 input tokens
const REASONING = new Set(['o3-mini', 'gemini-2.5-pro']);

/** psql fed on stdin (COPY … FROM STDIN); resolves with the wall time of the whole psql run */
function psqlStdin(url: string, sql: string, input: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const p = spawn('psql', [url, '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql], { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    p.stderr!.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve(performance.now() - t) : reject(new Error(`psql exited ${code}: ${err}`))));
    p.stdin!.end(input);
  });
}

export function mulberry32(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the of and to in is that for it as with was on be by this are from at or an have not which but ' +
  'model usage tokens cost input output trace observation generation latency prompt completion ' +
  'pricing tier cache read write naïve café données größe 日本語 {"role":"user"} 42 3.14 2026-11-22 ' +
  'https://example.com/a?b=c def main(): return x + 1 const y = await f(z); SELECT * FROM t WHERE id = $1'
).split(' ');

interface Row {
  id: string;
  traceId: string;
  name: string;
  start: string;
  end: string;
  model: string;
  usage: Record<string, number>;
}
interface Batch {
  body: string;
  events: number;
  rows: Row[];
  texts: { model: string; input: string; output: string }[];
}

export function buildBatches(count: number, tokenised: boolean, runId: string, first: number, rnd: () => number, t0: number): Batch[] {
  const pick = (): string => {
    if (tokenised) return TOKENISED_MODELS[Math.floor(rnd() * TOKENISED_MODELS.length)]!;
    let x = rnd();
    for (const [m, w] of USAGE_MODELS) if ((x -= w) < 0) return m;
    return USAGE_MODELS[0]![0];
  };
  const text = (words: number) => {
    const p: string[] = [];
    for (let i = 0; i < words; i++) p.push(WORDS[Math.floor(rnd() * WORDS.length)]!);
    return p.join(' ');
  };
  const batches: Batch[] = [];
  for (let i = first; i < first + count; ) {
    const n = Math.min(BATCH, first + count - i);
    const b = i / BATCH;
    const traceId = `${runId}-trace-${b}`;
    const ts = new Date(t0 + i * 10).toISOString();
    const events: unknown[] = [
      {
        id: `${runId}-evt-trace-${b}`,
        timestamp: ts,
        type: 'trace-create',
        body: {
          id: traceId,
          name: 'bench-request',
          userId: `user-${b % 97}`,
          sessionId: `session-${b % 1009}`,
          tags: ['bench'],
          release: 'v1',
        },
      },
    ];
    const rows: Row[] = [];
    const texts: Batch['texts'] = [];
    for (let k = 0; k < n; k++, i++) {
      const model = pick();
      const start = new Date(t0 + i * 10),
        end = new Date(start.getTime() + 200 + Math.floor(rnd() * 3000));
      const body: Record<string, unknown> = {
        id: `${runId}-gen-${i}`,
        traceId,
        name: 'chat-completion',
        model,
        startTime: start.toISOString(),
        completionStartTime: new Date(start.getTime() + 150).toISOString(),
        endTime: end.toISOString(),
      };
      let usage: Record<string, number> = {};
      if (tokenised) {
        body.input = text(150 + Math.floor(rnd() * 300));
        body.output = text(50 + Math.floor(rnd() * 150));
        texts.push({ model, input: body.input as string, output: body.output as string });
      } else {
        const big = model === TIERED && rnd() < 0.2;
        const input = big ? 200_001 + Math.floor(rnd() * 200_000) : 50 + Math.floor(rnd() * 5000);
        const cached = rnd() < 0.5 ? Math.floor(rnd() * input * 0.5) : 0;
        const output = 10 + Math.floor(rnd() * 2000);
        const reasoning = REASONING.has(model) ? Math.floor(rnd() * 1500) : 0;
        if (i % 2 === 0) {
          // chat-completions usage object: detail counts are included in prompt/completion tokens
          body.usageDetails = {
            prompt_tokens: input + cached,
            completion_tokens: output + reasoning,
            total_tokens: input + cached + output + reasoning,
            prompt_tokens_details: { cached_tokens: cached },
            completion_tokens_details: { reasoning_tokens: reasoning },
          };
          usage = {
            input,
            output,
            input_cached_tokens: cached,
            output_reasoning_tokens: reasoning,
            total: input + cached + output + reasoning,
          };
        } else {
          body.usageDetails = { input, output, input_cached_tokens: cached };
          usage = { input, output, input_cached_tokens: cached, total: input + output + cached };
        }
      }
      events.push({ id: `${runId}-evt-gen-${i}`, timestamp: start.toISOString(), type: 'generation-create', body });
      rows.push({
        id: body.id as string,
        traceId,
        name: 'chat-completion',
        start: start.toISOString(),
        end: end.toISOString(),
        model,
        usage,
      });
    }
    batches.push({ body: JSON.stringify({ batch: events }), events: n, rows, texts });
  }
  return batches;
}

interface PhaseResult {
  events: number;
  ms: number;
  latencies: number[];
  warnings: number;
  warningTexts: Set<string>;
}

// node:http with keep-alive sockets rather than fetch: undici's fetch cost this process ~25-40 µs of
// CPU per event (2.5-4 ms per 100-event batch), on the same 2 cores as the server it measures.
function post(agent: Agent, url: URL, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { authorization: auth, 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function send(url: string, batches: Batch[], bodies: Buffer[], concurrency: number): Promise<PhaseResult> {
  const latencies: number[] = [];
  let next = 0,
    warnings = 0;
  const warningTexts = new Set<string>();
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const worker = async () => {
    while (next < batches.length) {
      const i = next++;
      const b = batches[i]!;
      const t = performance.now();
      const r = await post(agent, target, bodies[i]!);
      latencies.push(performance.now() - t);
      if (r.status !== 207) throw new Error(`ingestion answered ${r.status}: ${r.text.slice(0, 500)}`);
      const res = JSON.parse(r.text) as { successes: { warnings?: string[] }[]; errors: unknown[] };
      if (res.errors.length || res.successes.length !== b.events + 1)
        throw new Error(
          `ingestion batch: ${res.successes.length} successes, ${res.errors.length} errors (expected ${b.events + 1}, 0): ${JSON.stringify(res.errors.slice(0, 3))}`,
        );
      for (const s of res.successes)
        if (s.warnings?.length) {
          warnings++;
          for (const w of s.warnings) warningTexts.add(w.replace(/\d+/g, 'N'));
        }
    }
  };
  const t = performance.now();
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return {
    events: batches.reduce((s, b) => s + b.events, 0),
    ms: performance.now() - t,
    latencies: latencies.sort((a, b) => a - b),
    warnings,
    warningTexts,
  };
}

/** user+system CPU seconds per thread of a process, by thread id and name */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
        const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        out.set(`${name}#${tid}`, (Number(f[11]) + Number(f[12])) / 100);
      } catch {
        /* gone */
      }
    }
  } catch {
    /* gone */
  }
  return out;
}

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
const num = (n: number) => n.toLocaleString('en-US');

export async function run(opts: { events?: number } = {}): Promise<string[]> {
  const lines: string[] = [];
  const total = opts.events ?? Number(process.env.BENCH_EVENTS ?? 200_000);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
  if (!(total >= BATCH) || !(concurrency >= 1)) throw new Error(`bad BENCH_EVENTS (${total}) or BENCH_CONCURRENCY (${concurrency})`);
  const tokenisedWanted = Number(process.env.BENCH_TOKENISED_EVENTS ?? TOKENISED_EVENTS);
  const tokenisedCount = Math.min(Math.round(tokenisedWanted / BATCH) * BATCH || BATCH, total - BATCH);
  if (!(tokenisedCount >= BATCH))
    throw new Error(`BENCH_EVENTS (${total}) leaves no room for a usage phase and ${tokenisedWanted} tokenised events`);
  const tokenizerThreads = process.env.TALLY_TOKENIZER_THREADS ? Number(process.env.TALLY_TOKENIZER_THREADS) : defaultTokenizerThreads();
  const usageCount = total - tokenisedCount;

  try {
    psql(PG_ADMIN, `drop database if exists ${DB_NAME}`);
    psql(PG_ADMIN, `create database ${DB_NAME}`);
  } catch {
    lines.push('PostgreSQL not reachable: ingestion figures skipped');
    return lines;
  }
  const dbUrl = PG_ADMIN.replace(/\/[^/]*$/, `/${DB_NAME}`);
  let child: Child | null = null;
  try {
    const port = await freePort();
    const prof = process.env.BENCH_CPU_PROF;
    child = startChild('server/src/main.ts', {
      ...keys,
      DATABASE_URL: dbUrl,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...(prof ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${prof}`.trim() } : {}),
    });
    const base = `http://127.0.0.1:${port}/api/public`;
    const exited = new Promise<never>((_, reject) =>
      child!.proc.once('exit', (code) => reject(new Error(`server exited (${code}) during the ingestion bench`))),
    );
    exited.catch(() => {});
    await Promise.race([waitHealthy(`${base}/health`), exited]);

    // the models the events name must be managed models of this server
    const names = new Set<string>();
    const tokenizerOf = new Map<string, TokenizerRef>();
    for (let page = 1; ; page++) {
      const r = await fetch(`${base}/models?limit=100&page=${page}`, { headers: { authorization: auth } });
      if (r.status !== 200) throw new Error(`GET /models answered ${r.status}`);
      const j = (await r.json()) as {
        data: { modelName: string; tokenizerId: string | null; tokenizerConfig: unknown }[];
        meta: { totalPages: number };
      };
      for (const m of j.data) {
        names.add(m.modelName);
        tokenizerOf.set(m.modelName, { tokenizerId: m.tokenizerId, tokenizerConfig: m.tokenizerConfig });
      }
      if (page >= j.meta.totalPages) break;
    }
    const missing = [...USAGE_MODELS.map(([m]) => m), ...TOKENISED_MODELS].filter((m) => !names.has(m));
    if (missing.length) throw new Error(`models not in the managed list: ${missing.join(', ')}`);

    // pre-generate every request body before timing anything
    const runId = `b${Date.now().toString(36)}`;
    const rnd = mulberry32(42);
    const t0 = Date.now() - 86_400_000;
    const usageBatches = buildBatches(usageCount, false, runId, 0, rnd, t0);
    const tokenBatches = buildBatches(tokenisedCount, true, runId, usageCount, rnd, t0);
    const bytes = [...usageBatches, ...tokenBatches].reduce((s, b) => s + b.body.length, 0);
    const usageBodies = usageBatches.map((b) => Buffer.from(b.body)),
      tokenBodies = tokenBatches.map((b) => Buffer.from(b.body));

    const url = `${base}/ingestion`;
    const cpuBefore = { server: cpuSeconds([child.proc.pid!]), pg: cpuSeconds(pgBackendPids(dbUrl)) };
    const loadUsage0 = process.cpuUsage();
    const usage = await send(url, usageBatches, usageBodies, concurrency);
    const loadUsageUs = process.cpuUsage(loadUsage0);
    const cpuAfter = { server: cpuSeconds([child.proc.pid!]), pg: cpuSeconds(pgBackendPids(dbUrl)) };
    const memUsage = memory(child.proc.pid!);
    const threadsBefore = threadCpu(child.proc.pid!);
    const pgBefore = cpuSeconds(pgBackendPids(dbUrl));
    const serverBefore = cpuSeconds([child.proc.pid!]),
      loadBefore = process.cpuUsage();
    const tok = await send(url, tokenBatches, tokenBodies, concurrency);
    const loadTokUs = process.cpuUsage(loadBefore),
      serverTok = cpuSeconds([child.proc.pid!]) - serverBefore;
    const pgTok = cpuSeconds(pgBackendPids(dbUrl)) - pgBefore;
    const threadsTok = [...threadCpu(child.proc.pid!)]
      .map(([k, v]) => [k.replace(/#\d+$/, ''), v - (threadsBefore.get(k) ?? 0)] as const)
      .filter(([, v]) => v >= 0.2)
      .sort((a, b) => b[1] - a[1]);
    const mem = memory(child.proc.pid!);
    const cpuTok = cpuSeconds([child.proc.pid!]);
    const all = [...usage.latencies, ...tok.latencies].sort((a, b) => a - b);
    const allMs = usage.ms + tok.ms;

    // sanity: every generation stored, priced, tiered and tokenised where expected
    const q = (sql: string) => psql(dbUrl, sql);
    const [rows, nullCost, zeroCost, tiered, tokenisedOk] = q(
      `select count(*), count(*) filter (where total_cost is null), count(*) filter (where total_cost = 0),
              count(*) filter (where usage_pricing_tier_name like 'Large%'),
              count(*) filter (where id like '%-gen-%' and input is not null and input_usage > 0 and output_usage > 0)
         from observations where type = 'GENERATION'`,
    )
      .split('|')
      .map(Number);
    const [tokTokens, tokIn, tokOut] = q(
      `select coalesce(sum(input_usage + output_usage), 0), coalesce(sum(input_usage), 0), coalesce(sum(output_usage), 0) from observations where type = 'GENERATION' and input is not null`,
    )
      .split('|')
      .map(Number);
    const sample = q(
      `select model || ' ' || input_usage || '/' || output_usage || ' $' || round(total_cost, 6) from observations where type = 'GENERATION' order by random() limit 3`,
    ).split('\n');
    const statuses = q(
      `select string_agg(cost_status || '=' || n, ' ') from (select cost_status, count(*) n from observations group by 1 order by 1) s`,
    );
    const traces = Number(q('select count(*) from traces'));
    const problems: string[] = [];
    if (rows !== total) problems.push(`observations has ${rows} generations, expected ${total}`);
    if (traces !== usageBatches.length + tokenBatches.length)
      problems.push(`traces has ${traces} rows, expected ${usageBatches.length + tokenBatches.length}`);
    if (nullCost || zeroCost) problems.push(`${nullCost} generations without cost, ${zeroCost} with cost 0`);
    const bigContext = usageBatches.reduce((n, b) => n + b.rows.filter((r) => r.model === TIERED && r.usage.input! > 200_000).length, 0);
    if (tiered !== bigContext) problems.push(`${tiered} generations priced with the large-context tier, expected ${bigContext}`);
    if (tokenisedOk !== tokenisedCount) problems.push(`${tokenisedOk} of ${tokenisedCount} text-only generations tokenised`);

    await child.stop();
    child = null;

    // inline counting rate: the same events' input/output counted here, one thread, no worker hop
    // (the encoders are warm after the first pass; the best of two is taken, as the server's
    // workers are warm after their first events). Its counts must equal what the server stored.
    const inline = [0, 1].map(() => {
      let tokens = 0;
      const t = performance.now();
      for (const b of tokenBatches)
        for (const e of b.texts) {
          const u = inferUsage(tokenizerOf.get(e.model)!, e.input, e.output);
          tokens += (u?.input ?? 0) + (u?.output ?? 0);
        }
      return { tokens, ms: performance.now() - t };
    });
    const inlineBest = inline.reduce((a, b) => (b.ms < a.ms ? b : a));
    if (inlineBest.tokens !== tokTokens)
      problems.push(`server stored ${tokTokens} tokenised tokens, inline count gives ${inlineBest.tokens}`);

    // baseline: COPY the very rows Tally stored (every column of observations) into a bare
    // table with the same columns and no keys or indexes
    psql(dbUrl, 'create table copy_baseline (like observations)');
    const csv = execFileSync('psql', [dbUrl, '-X', '-q', '-c', 'copy observations to stdout with (format csv)'], {
      encoding: 'utf8',
      maxBuffer: 2 ** 31 - 1,
    });
    const copyMs = await psqlStdin(dbUrl, 'copy copy_baseline from stdin with (format csv)', csv);
    const copied = Number(q('select count(*) from copy_baseline'));
    const COLUMNS = Number(q(`select count(*) from information_schema.columns where table_name = 'observations'`));
    if (copied !== total) problems.push(`COPY stored ${copied} rows, expected ${total}`);

    const tallyRate = rate(total, allMs),
      copyRate = rate(total, copyMs),
      usageRate = rate(usage.events, usage.ms);
    lines.push(
      `POST /api/public/ingestion, PostgreSQL, ${num(total)} generation-create events in ${usageBatches.length + tokenBatches.length} batches of ${BATCH} (+1 trace-create each), ${concurrency} in flight, ${(bytes / 1e6).toFixed(1)} MB of JSON:`,
    );
    lines.push(
      `  usage provided   ${num(usage.events).padStart(9)} events  ${(usage.ms / 1000).toFixed(1)} s  ${num(usageRate).padStart(7)} events/s   (target >= 10,000)`,
    );
    lines.push(
      `  tokenised        ${num(tok.events).padStart(9)} events  ${(tok.ms / 1000).toFixed(1)} s  ${num(rate(tok.events, tok.ms)).padStart(7)} events/s   (no usage, input/output text on ${TOKENISED_MODELS.join('/')}; slowest batch ${fmt(tok.latencies.at(-1)!)}, p50 ${fmt(percentile(tok.latencies, 50))})`,
    );
    const tokRate = rate(tokTokens, tok.ms),
      inlineRate = rate(inlineBest.tokens, inlineBest.ms);
    lines.push(
      `  tokenised tokens ${num(tokTokens).padStart(9)} tokens (${num(tokIn)} in, ${num(tokOut)} out)  ${num(tokRate).padStart(9)} tokens/s;  inline counting ${num(inlineRate)} tokens/s (first pass ${num(rate(inline[0]!.tokens, inline[0]!.ms))}) × ${tokenizerThreads} worker thread(s) = ${num(inlineRate * tokenizerThreads)}`,
    );
    lines.push(
      `  tokenised ratio  ${((100 * tokRate) / (inlineRate * tokenizerThreads)).toFixed(0)}% of inline rate × threads   (the 70% target is retired by issue 28: its ceiling on these cores is below it, see the next lines; server CPU in the phase ${(cpuTok - cpuAfter.server).toFixed(1)} s for ${(tok.ms / 1000).toFixed(1)} s wall, 2 cores shared with PostgreSQL and the load generator)`,
    );
    // what the machine allows at all: every core busy for the whole phase, at the CPU per event measured
    const perEvent = {
      server: serverTok / tok.events,
      pg: pgTok / tok.events,
      load: (loadTokUs.user + loadTokUs.system) / 1e6 / tok.events,
    };
    const ceilingEvents = availableParallelism() / (perEvent.server + perEvent.pg + perEvent.load);
    const ceilingRatio = (ceilingEvents * (tokTokens / tok.events)) / (inlineRate * tokenizerThreads);
    lines.push(
      `                   ceiling: ${availableParallelism()} cores fully busy would give ${num(Math.round(ceilingEvents))} events/s = ${(100 * ceilingRatio).toFixed(0)}% (CPU per tokenised event: server ${(1e6 * perEvent.server).toFixed(0)} µs, PostgreSQL ${(1e6 * perEvent.pg).toFixed(0)} µs, load generator ${(1e6 * perEvent.load).toFixed(0)} µs)`,
    );
    // the same with PostgreSQL and the load generator on cores of their own, as in a deployment
    // with a separate database: the server's threads alone on these cores, where the tokenizer
    // threads can use one core each at most (an estimate from the CPU measured, not a run)
    const workerSeconds = threadsTok.filter(([k]) => k === 'WorkerThread').reduce((a, [, v]) => a + v, 0);
    const aloneEvents = Math.min(
      availableParallelism() / perEvent.server,
      workerSeconds > 0 ? tokenizerThreads / (workerSeconds / tok.events) : Infinity,
    );
    const aloneRatio = (aloneEvents * (tokTokens / tok.events)) / (inlineRate * tokenizerThreads);
    lines.push(
      `                   without PostgreSQL and the load generator on these cores (estimate from the same CPU figures): ${num(Math.round(aloneEvents))} events/s = ${(100 * aloneRatio).toFixed(0)}% (tokenizer worker ${((1e6 * workerSeconds) / tok.events).toFixed(0)} µs per event)`,
    );
    lines.push(
      `                   CPU in the tokenised phase by server thread: ${threadsTok.map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ')}; PostgreSQL backends ${pgTok.toFixed(1)} s`,
    );
    lines.push(
      `  all              ${num(total).padStart(9)} events  ${(allMs / 1000).toFixed(1)} s  ${num(tallyRate).padStart(7)} events/s`,
    );
    lines.push(
      `  batch latency    p50 ${fmt(percentile(all, 50))}  p99 ${fmt(percentile(all, 99))}  (usage phase p50 ${fmt(percentile(usage.latencies, 50))} p99 ${fmt(percentile(usage.latencies, 99))})`,
    );
    lines.push(
      `  CPU per event    server ${((1e6 * (cpuAfter.server - cpuBefore.server)) / usage.events).toFixed(0)} µs, PostgreSQL backends ${((1e6 * (cpuAfter.pg - cpuBefore.pg)) / usage.events).toFixed(0)} µs, load generator ${((loadUsageUs.user + loadUsageUs.system) / usage.events).toFixed(0)} µs  (usage phase, from /proc; the 2 cores are shared)`,
    );
    lines.push(
      `  server memory    peak RSS ${mem.hwm.toFixed(0)} MB, RSS at end ${mem.rss.toFixed(0)} MB  (after the usage phase: peak ${memUsage.hwm.toFixed(0)} MB, RSS ${memUsage.rss.toFixed(0)} MB)   (target peak <= 300 MB through both phases, issue 28: ${mem.hwm <= 300 ? 'met' : 'MISSED'})`,
    );
    lines.push(
      `  baseline         COPY of the same ${num(copied)} rows (all ${COLUMNS} columns of observations, ${(csv.length / 1e6).toFixed(1)} MB CSV) into a bare table via psql: ${(copyMs / 1000).toFixed(2)} s  ${num(copyRate)} rows/s`,
    );
    lines.push(
      `  ratio            Tally events/s / COPY rows/s = ${(tallyRate / copyRate).toFixed(2)} (all), ${(usageRate / copyRate).toFixed(2)} (usage provided)   (target >= 0.2)`,
    );
    lines.push(
      `  sanity           ${num(rows)} generations stored, ${nullCost} without cost, ${num(tiered)} on the >200K tier, ${num(tokenisedOk)} tokenised; cost_status ${statuses}; ${usage.warnings + tok.warnings} events with warnings`,
    );
    lines.push(`                   sample: ${sample.join('; ')}`);
    for (const w of new Set([...usage.warningTexts, ...tok.warningTexts])) lines.push(`                   warning seen: ${w}`);
    if (problems.length) throw new Error(`ingestion bench sanity check failed:\n  ${problems.join('\n  ')}\n${lines.join('\n')}`);
  } finally {
    if (child) await child.stop();
    try {
      psql(PG_ADMIN, `drop database if exists ${DB_NAME}`);
    } catch {
      /* best effort */
    }
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) for (const line of await run()) console.log(line);
