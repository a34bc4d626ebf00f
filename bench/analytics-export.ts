// The change feed to ClickHouse under ingestion load: a server on a fresh PostgreSQL database with
// the embedded engine (TALLY_CLICKHOUSE_URL=chdb:), BENCH_EXPORT_EVENTS generation-create events
// (default 100,000) in batches of 100, 4 in flight, while GET /health's analytics lag is sampled
// every 100 ms. Baseline: the same load on the same PostgreSQL without ClickHouse, in this run.
// Targets (issue 23): lag p95 <= 2 s under load; exporter throughput >= 2x the ingestion rate.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, freePort, percentile, psql, ROOT, startChild, waitHealthy } from './lib.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'tally_bench_export';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-export', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-export' };
const auth = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;
const BATCH = 100;

function batches(total: number, runId: string): string[] {
  const out: string[] = [];
  const t0 = Date.now() - 3_600_000;
  for (let b = 0; b < total / BATCH; b++) {
    const batch = Array.from({ length: BATCH }, (_, i) => {
      const n = b * BATCH + i;
      const at = new Date(t0 + n).toISOString();
      return {
        id: `${runId}-e${n}`,
        timestamp: at,
        type: 'generation-create',
        body: {
          id: `${runId}-g${n}`,
          traceId: `${runId}-t${n % 1000}`,
          name: `op-${n % 20}`,
          model: n % 2 ? 'gpt-4o-mini' : 'claude-sonnet-4-5',
          startTime: at,
          endTime: new Date(t0 + n + 800).toISOString(),
          userId: `u${n % 500}`,
          usageDetails: { input: 100 + (n % 900), output: 10 + (n % 300) },
        },
      };
    });
    out.push(JSON.stringify({ batch }));
  }
  return out;
}

interface Phase {
  seconds: number;
  eventsPerSecond: number;
  lags: number[];
  drainSeconds: number;
  lagAtEnd: number;
}

/**
 * mode `outage`: ClickHouse unreachable while the load runs (every change stays queued), then a
 * second start with the embedded engine drains the backlog alone: the exporter's own rate
 */
async function phase(mode: 'baseline' | 'live' | 'outage', total: number): Promise<Phase> {
  const withClickHouse = mode !== 'baseline';
  psql(PG_ADMIN, `drop database if exists ${DB}`);
  psql(PG_ADMIN, `create database ${DB}`);
  const chDir = mkdtempSync(join(tmpdir(), 'tally-bench-ch-'));
  const port = await freePort();
  let child: Child | null = null;
  try {
    // the outage's drain is the exporter's steady rate: ClickHouse's schema is made first, by a
    // start that exports one event (creating it took 0.5 s of a 7 s drain when the drain's start did it)
    if (mode === 'outage') await prepareSchema(chDir);
    child = startChild('server/src/main.ts', {
      ...keys,
      DATABASE_URL: PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`),
      PORT: String(port),
      TALLY_EVAL_CONCURRENCY: '0',
      ...(mode === 'live' ? { TALLY_CLICKHOUSE_URL: `chdb:${chDir}` } : {}),
      // nothing listens on port 9 of loopback: every export fails and the feed keeps the changes
      ...(mode === 'outage' ? { TALLY_CLICKHOUSE_URL: 'http://127.0.0.1:9/tally', LOG_LEVEL: 'fatal' } : {}),
    });
    const base = `http://127.0.0.1:${port}/api/public`;
    await waitHealthy(`${base}/health`);
    const lagNow = async () => {
      const r = await fetch(`${base}/health`);
      return ((await r.json()) as { analytics: { lagRows?: number; lagSeconds?: number } }).analytics;
    };
    const bodies = batches(total, `x${Date.now().toString(36)}`);
    const lags: number[] = [];
    let loading = true;
    const sampler = (async () => {
      while (loading) {
        if (withClickHouse) lags.push((await lagNow()).lagSeconds ?? 0);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
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
    const seconds = (performance.now() - started) / 1000;
    loading = false;
    await sampler;
    let lagAtEnd = withClickHouse ? ((await lagNow()).lagRows ?? 0) : 0;
    if (mode === 'outage') {
      await child.stop();
      child = startChild('server/src/main.ts', {
        ...keys,
        DATABASE_URL: PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`),
        PORT: String(port),
        TALLY_EVAL_CONCURRENCY: '0',
        TALLY_CLICKHOUSE_URL: `chdb:${chDir}`,
      });
      await waitHealthy(`${base}/health`);
      lagAtEnd = (await lagNow()).lagRows ?? 0;
    }
    const drainStart = performance.now();
    if (withClickHouse) while (((await lagNow()).lagRows ?? 0) > 0) await new Promise((r) => setTimeout(r, 50));
    return { seconds, eventsPerSecond: total / seconds, lags, drainSeconds: (performance.now() - drainStart) / 1000, lagAtEnd };
  } finally {
    await child?.stop();
    rmSync(chDir, { recursive: true, force: true });
    try {
      psql(PG_ADMIN, `drop database if exists ${DB}`);
    } catch {
      /* best effort */
    }
  }
}

/** a start with the embedded engine at `chDir` that exports one event (its schema migrated), then stops */
async function prepareSchema(chDir: string): Promise<void> {
  const port = await freePort();
  const child = startChild('server/src/main.ts', {
    ...keys,
    DATABASE_URL: PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`),
    PORT: String(port),
    TALLY_EVAL_CONCURRENCY: '0',
    TALLY_CLICKHOUSE_URL: `chdb:${chDir}`,
  });
  try {
    const base = `http://127.0.0.1:${port}/api/public`;
    await waitHealthy(`${base}/health`);
    const r = await fetch(`${base}/ingestion`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: batches(BATCH, `s${Date.now().toString(36)}`)[0]!,
    });
    if (r.status !== 207) throw new Error(`ingestion answered ${r.status}`);
    for (;;) {
      const h = (await (await fetch(`${base}/health`)).json()) as { analytics: { lagRows?: number } };
      if (h.analytics.lagRows === 0) break;
      await new Promise((res) => setTimeout(res, 50));
    }
  } finally {
    await child.stop();
  }
}

export async function run(): Promise<string[]> {
  if (!existsSync(join(ROOT, 'engines/chdb/node_modules/chdb')))
    return ['the embedded ClickHouse engine is not installed (make engines): skipped'];
  try {
    psql(PG_ADMIN, 'select 1');
  } catch {
    return ['PostgreSQL not reachable: skipped'];
  }
  const total = Number(process.env.BENCH_EXPORT_EVENTS ?? 100_000);
  const baseline = await phase('baseline', total);
  const ch = await phase('live', total);
  const outage = await phase('outage', total);
  const sorted = [...ch.lags].sort((a, b) => a - b);
  const p95 = percentile(sorted, 95);
  // the exporter alone: a backlog of every event, drained after the outage
  const exportRate = outage.lagAtEnd / outage.drainSeconds;
  const lines = [
    `PostgreSQL + embedded ClickHouse (chdb), ${total.toLocaleString('en')} generation-create events in batches of ${BATCH}, 4 in flight:`,
    `  ingestion        without ClickHouse ${Math.round(baseline.eventsPerSecond).toLocaleString('en')} events/s (baseline)   with the feed ${Math.round(ch.eventsPerSecond).toLocaleString('en')} events/s   ratio ${(ch.eventsPerSecond / baseline.eventsPerSecond).toFixed(2)}`,
    `  export lag       p50 ${percentile(sorted, 50).toFixed(2)} s  p95 ${p95.toFixed(2)} s  max ${(sorted.at(-1) ?? 0).toFixed(2)} s over ${sorted.length} samples (target p95 <= 2 s: ${p95 <= 2 ? 'met' : 'NOT met'})`,
    `  after the load   ${ch.lagAtEnd.toLocaleString('en')} changes left, drained in ${ch.drainSeconds.toFixed(1)} s`,
    `  outage           ClickHouse unreachable during the load: ingestion ${Math.round(outage.eventsPerSecond).toLocaleString('en')} events/s, ${outage.lagAtEnd.toLocaleString('en')} changes queued; after a restart with the engine, drained in ${outage.drainSeconds.toFixed(1)} s`,
    `  exporter         ${Math.round(exportRate).toLocaleString('en')} rows/s draining alone (schema in place) = ${(exportRate / baseline.eventsPerSecond).toFixed(2)}x the ingestion rate without ClickHouse (target >= 2x: ${exportRate >= 2 * baseline.eventsPerSecond ? 'met' : 'NOT met'})`,
  ];
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) for (const l of await run()) console.log(l);
