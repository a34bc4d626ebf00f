// Evaluation figures on PostgreSQL: (1) how long after ingestion 1,000 generations matching an
// enabled rule are all scored, with a fake gateway on loopback answering each judge call after
// 50 ms and the default TALLY_EVAL_CONCURRENCY; (2) what one enabled rule at sampling 0.1 costs
// ingestion: the same usage-provided batches sent with no rule and with the rule, alternating,
// on one server. Knobs: BENCH_EVAL_GENERATIONS (default 1000), BENCH_EVAL_INGEST_EVENTS (default
// 20000 per round), BENCH_EVAL_ROUNDS (default 11).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, psql, startChild, waitHealthy, type Child } from './lib.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'tally_bench_evaluation';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-eval', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-eval-secret' };
const auth = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;
const GATEWAY_DELAY_MS = 50;

/** a chat-completions gateway that answers every call with an extract tool call after `delayMs` */
async function fakeGateway(delayMs: () => number): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const reply = JSON.stringify({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        finish_reason: 'stop',
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't', type: 'function', function: { name: 'extract', arguments: '{"score":"0.8","reasoning":"fine"}' } }],
        },
      },
    ],
    usage: { prompt_tokens: 120, completion_tokens: 20, total_tokens: 140 },
  });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(reply);
      }, delayMs());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function api(base: string, method: string, path: string, body?: unknown) {
  const r = await fetch(base + path, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** `count` generation-create events in batches of 100 (each with its trace), usage provided */
function batches(prefix: string, count: number, name: string): string[] {
  const out: string[] = [];
  const t0 = Date.now() - 3_600_000;
  for (let i = 0; i < count; i += 100) {
    const traceId = `${prefix}-t-${i / 100}`;
    const events: unknown[] = [
      {
        id: `${prefix}-te-${i / 100}`,
        timestamp: new Date(t0 + i).toISOString(),
        type: 'trace-create',
        body: { id: traceId, name: 'bench' },
      },
    ];
    for (let k = i; k < Math.min(count, i + 100); k++) {
      const ts = new Date(t0 + k * 10).toISOString();
      events.push({
        id: `${prefix}-e-${k}`,
        timestamp: ts,
        type: 'generation-create',
        body: {
          id: `${prefix}-g-${k}`,
          traceId,
          name,
          model: 'gpt-4o-mini',
          startTime: ts,
          endTime: ts,
          input: { question: `question ${k}` },
          output: { role: 'assistant', content: `answer ${k}` },
          usageDetails: { input: 100 + (k % 50), output: 20 + (k % 7) },
        },
      });
    }
    out.push(JSON.stringify({ batch: events }));
  }
  return out;
}

async function send(base: string, bodies: string[], inFlight = 4): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const r = await fetch(`${base}/ingestion`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body,
        });
        if (r.status !== 207) throw new Error(`ingestion answered ${r.status}`);
        await r.arrayBuffer();
      }
    }),
  );
  return performance.now() - started;
}

export async function run(): Promise<string[]> {
  const lines: string[] = [];
  const generations = Number(process.env.BENCH_EVAL_GENERATIONS ?? 1000);
  const ingestEvents = Number(process.env.BENCH_EVAL_INGEST_EVENTS ?? 20_000);
  const rounds = Number(process.env.BENCH_EVAL_ROUNDS ?? 11);
  try {
    psql(PG_ADMIN, `drop database if exists ${DB_NAME}`);
    psql(PG_ADMIN, `create database ${DB_NAME}`);
  } catch {
    return ['PostgreSQL not reachable: evaluation figures skipped'];
  }
  const dbUrl = PG_ADMIN.replace(/\/[^/]*$/, `/${DB_NAME}`);
  let delay = GATEWAY_DELAY_MS;
  const gateway = await fakeGateway(() => delay);
  let child: Child | null = null;
  try {
    const port = await freePort();
    child = startChild('server/src/main.ts', {
      ...keys,
      DATABASE_URL: dbUrl,
      PORT: String(port),
      ENCRYPTION_KEY: 'cd'.repeat(32),
      TALLY_LLM_ALLOWED_HOSTS: '127.0.0.1',
    });
    const base = `http://127.0.0.1:${port}/api/public`;
    await waitHealthy(`${base}/health`);
    await api(base, 'PUT', '/llm-connections', {
      provider: 'bench-gateway',
      adapter: 'openai',
      secretKey: 'sk-bench-gateway',
      baseURL: `${gateway.url}/v1`,
    });
    await api(base, 'POST', '/unstable/evaluators', {
      name: 'bench-judge',
      prompt: 'Question: {{q}}\nAnswer: {{a}}\nScore it.',
      modelConfig: { provider: 'bench-gateway', model: 'gpt-4o-mini' },
      outputDefinition: {
        dataType: 'NUMERIC',
        reasoning: { description: 'Why.' },
        score: { description: '0 to 1', minValue: 0, maxValue: 1 },
      },
      mapping: [
        { variable: 'q', source: 'input', jsonPath: '$.question' },
        { variable: 'a', source: 'output', jsonPath: '$.content' },
      ],
    });
    const rule = await api(base, 'POST', '/unstable/evaluation-rules', {
      name: 'bench-all-judged',
      enabled: true,
      sampling: 1,
      target: 'observation',
      filter: [{ column: 'name', type: 'stringOptions', operator: 'any of', value: ['judged'] }],
      evaluators: [{ evaluator: { name: 'bench-judge' } }],
    });

    // (1) time to score every matching generation
    const started = performance.now();
    const ingestMs = await send(base, batches('judged', generations, 'judged'));
    let completed = 0;
    for (;;) {
      completed = Number(psql(dbUrl, `select count(*) from evaluation_jobs where rule_id = '${rule.id}' and status = 'COMPLETED'`));
      const failed = Number(
        psql(dbUrl, `select count(*) from evaluation_jobs where rule_id = '${rule.id}' and status in ('ERROR', 'CANCELLED')`),
      );
      if (completed + failed >= generations || performance.now() - started > 120_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const totalMs = performance.now() - started;
    const scores = Number(psql(dbUrl, `select count(*) from scores where source = 'EVAL' and name = 'bench-judge'`));
    const sinceIngest = (totalMs - ingestMs) / 1000;
    lines.push(
      `LLM-as-a-judge on PostgreSQL, fake gateway on loopback answering in ${GATEWAY_DELAY_MS} ms, default TALLY_EVAL_CONCURRENCY:`,
    );
    lines.push(
      `  scored           ${completed} of ${generations} generations (${scores} EVAL scores), all within ${sinceIngest.toFixed(1)} s of the end of ingestion (ingestion took ${(ingestMs / 1000).toFixed(1)} s)   (target <= 30 s: ${completed === generations && sinceIngest <= 30 ? 'met' : 'NOT met'})`,
    );
    lines.push(
      `  throughput       ${(completed / (totalMs / 1000)).toFixed(0)} judge calls/s end to end; the gateway saw ${gateway.calls()} calls`,
    );

    // (2) ingestion with and without one rule at sampling 0.1 (its jobs answered at once, so they do not pile up)
    delay = 0;
    await api(base, 'PATCH', `/unstable/evaluation-rules/${rule.id}`, { enabled: false });
    const sampled = await api(base, 'POST', '/unstable/evaluation-rules', {
      name: 'bench-sampled',
      enabled: false,
      sampling: 0.1,
      target: 'observation',
      filter: [],
      evaluators: [{ evaluator: { name: 'bench-judge' } }],
    });
    // one unmeasured run first: the server's one-time work as its tables grow (the ANALYZE after
    // its first 10,000 rows, store/planner-stats.ts) and V8's warm-up would otherwise land in the
    // first measured run, always one without the rule
    await send(base, batches('warm-up', ingestEvents, 'chat'));
    const rates: Record<'without' | 'with', number[]> = { without: [], with: [] };
    for (let r = 0; r < rounds; r++) {
      for (const mode of (r % 2 ? ['with', 'without'] : ['without', 'with']) as ('with' | 'without')[]) {
        await api(base, 'PATCH', `/unstable/evaluation-rules/${sampled.id}`, { enabled: mode === 'with' });
        const ms = await send(base, batches(`r${r}-${mode}`, ingestEvents, 'chat'));
        rates[mode].push(ingestEvents / (ms / 1000));
      }
    }
    // jobs the worker had not admitted by the end of the runs (one batch's a second while ingestion is busy)
    const inIntake = () =>
      Number(psql(dbUrl, `select count(*) from evaluation_intake, json_array_elements(jobs) j where j->>1 = '${sampled.id}'`));
    const intake = inIntake();
    // the deferred work: the intake's jobs admitted once ingestion eases (the worker's idle polls)
    const easedAt = performance.now();
    let admitted = false;
    while (performance.now() - easedAt < 120_000) {
      if (Number(psql(dbUrl, 'select count(*) from evaluation_intake')) === 0) {
        admitted = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const admitSeconds = (performance.now() - easedAt) / 1000;
    const jobs = inIntake() + Number(psql(dbUrl, `select count(*) from evaluation_jobs where rule_id = '${sampled.id}'`));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const without = median(rates.without),
      withRule = median(rates.with);
    // each round's two runs are adjacent in time: their ratio cancels the drift across rounds (the
    // rates climb as the tables and V8 warm up, and a shared machine's load comes and goes), which
    // the ratio of the two medians does not; the target is judged on the median of these
    const paired = median(rates.with.map((w, i) => w / rates.without[i]!));
    lines.push(`  ingestion cost   ${ingestEvents} usage-provided generations per run, ${rounds} runs each, alternating; median events/s:`);
    lines.push(
      `                   no rule ${without.toFixed(0)}, one rule at sampling 0.1 ${withRule.toFixed(0)} (${jobs} jobs enqueued, ${((100 * jobs) / (rounds * ingestEvents)).toFixed(1)}%, ${intake} of them in the intake when the runs ended): ratio of the medians ${(withRule / without).toFixed(3)}`,
    );
    lines.push(
      `                   the intake's jobs were all admitted ${admitted ? `${admitSeconds.toFixed(1)} s after the last run (the worker waits about a second for ingestion to count as eased)` : 'NOT within 120 s of the last run'}`,
    );
    lines.push(
      `                   median of the ${rounds} rounds' ratios (with / without, adjacent runs) ${paired.toFixed(3)}   (target >= 0.95: ${paired >= 0.95 ? 'met' : 'NOT met'})`,
    );
    lines.push(
      `                   runs: no rule ${rates.without.map((x) => x.toFixed(0)).join(', ')}; with the rule ${rates.with.map((x) => x.toFixed(0)).join(', ')}`,
    );
  } finally {
    await child?.stop();
    await gateway.close();
    try {
      psql(PG_ADMIN, `drop database if exists ${DB_NAME}`);
    } catch {
      /* left for a look */
    }
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) for (const line of await run()) console.log(line);
