// Spend alerts against ingestion (issue 26): BENCH_ALERTS (default 100) alerts, each fanned out per
// user (the top 1,000, the most an alert may ask for, of BENCH_ALERT_USERS (5,000) by cost over 24 h)
// and evaluated every minute, on PostgreSQL with BENCH_ALERT_ROWS (default 300,000) generations of
// the last 24 hours seeded, a fake webhook receiver on loopback. Ingestion (batches of 100
// generations with their trace, 4 in flight) runs for BENCH_ALERT_ROUND_S seconds (default 60)
// with the alerts disabled and enabled, alternating, BENCH_ALERT_ROUNDS times each (default 2);
// enabling makes every alert due at once, so each enabled round holds a minute's evaluations of
// all of them. Target: events/s with the alerts at least 0.95 of without (cost <= 5%).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, psql, startChild, waitHealthy, type Child } from './lib.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'tally_bench_alerts';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-alerts', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-alerts-secret' };
const auth = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;

function seed(projectId: string, rows: number, users: number): string {
  return `
select setseed(0.3);
insert into observations (project_id, id, trace_id, type, name, environment, level, start_time, end_time, model,
  usage_details, cost_details, input_usage, output_usage, total_usage, total_cost, cost_status, user_id, revision)
select '${projectId}', 'al-' || g, 'al-trace-' || (g / 8), 'GENERATION', 'call', 'production', 'DEFAULT', st, st + interval '800 ms', 'gpt-4o-mini',
  '{"input": 100, "output": 20, "total": 120}', jsonb_build_object('total', c), 100, 20, 120, c, 'ingested', 'user-' || u, 1
from (select g, now() - interval '24 hours' * random() as st, floor(${users} * power(random(), 2))::int as u,
        round((0.0001 + random() * 0.01)::numeric, 6) as c
      from generate_series(1, ${rows}) g) s;`;
}

let sent = 0;
/** ingestion for `seconds`: batches of 100 generations (users spread over `users`), `inFlight` at a time; events/s */
async function ingestFor(base: string, seconds: number, users: number, inFlight = 4): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let events = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        const n = sent++;
        const now = new Date().toISOString();
        const traceId = `ing-t-${n}`;
        const batch: unknown[] = [
          { id: `ing-te-${n}`, timestamp: now, type: 'trace-create', body: { id: traceId, userId: `user-${n % users}` } },
        ];
        for (let k = 0; k < 100; k++)
          batch.push({
            id: `ing-e-${n}-${k}`,
            timestamp: now,
            type: 'generation-create',
            body: { id: `ing-g-${n}-${k}`, traceId, name: 'call', model: 'gpt-4o-mini', startTime: now, costDetails: { total: 0.000001 } },
          });
        const r = await fetch(`${base}/ingestion`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify({ batch }),
        });
        if (r.status !== 207) throw new Error(`ingestion answered ${r.status}`);
        await r.arrayBuffer();
        events += 101;
      }
    }),
  );
  return events / seconds;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<string[]> {
  const alerts = Number(process.env.BENCH_ALERTS ?? 100);
  const rows = Number(process.env.BENCH_ALERT_ROWS ?? 300_000);
  const users = Number(process.env.BENCH_ALERT_USERS ?? 5_000);
  const roundS = Number(process.env.BENCH_ALERT_ROUND_S ?? 60);
  const rounds = Number(process.env.BENCH_ALERT_ROUNDS ?? 2);
  try {
    psql(PG_ADMIN, `drop database if exists ${DB} with (force)`);
    psql(PG_ADMIN, `create database ${DB}`);
  } catch {
    return ['PostgreSQL not reachable: skipped'];
  }
  const url = PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`);
  let deliveries = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      deliveries++;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  let child: Child | null = null;
  try {
    const port = await freePort();
    child = startChild('server/src/main.ts', {
      ...keys,
      DATABASE_URL: url,
      PORT: String(port),
      ENCRYPTION_KEY: 'ab'.repeat(32),
      TALLY_LLM_ALLOWED_HOSTS: '127.0.0.1',
      TALLY_EVAL_CONCURRENCY: '0',
    });
    const base = `http://127.0.0.1:${port}/api/public`;
    await waitHealthy(`${base}/health`);
    const projectId = psql(url, `select project_id from api_keys where public_key = '${keys.TALLY_INIT_PUBLIC_KEY}'`);
    const t0 = performance.now();
    psql(url, seed(projectId, rows, users));
    psql(url, 'vacuum analyze observations');
    const seedS = (performance.now() - t0) / 1000;
    for (let i = 0; i < alerts; i++) {
      const r = await fetch(`${base}/alerts`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `bench alert ${i}`,
          query: { view: 'observations', metric: { measure: 'totalCost', aggregation: 'sum' } },
          groupBy: { field: 'userId', topN: Math.min(users, 1_000) },
          windowMinutes: 1440,
          // thresholds spread so that the busiest users cross some alerts (a few percent of the groups)
          condition: { operator: 'gt', warning: 2 + i / 10, alert: 3 + i / 5 },
          intervalSeconds: 60,
          webhook: { url: hook, secret: 'whsec-bench-0123456789' },
          enabled: false,
        }),
      });
      if (r.status !== 201) throw new Error(`alerts answered ${r.status}: ${await r.text()}`);
    }
    const off: number[] = [];
    const on: number[] = [];
    const evaluated: number[] = [];
    await ingestFor(base, 5, users); // warm-up
    for (let round = 0; round < rounds; round++) {
      psql(url, `update alerts set enabled = false`);
      off.push(await ingestFor(base, roundS, users));
      psql(url, `update alerts set enabled = true, next_eval_at = now()`);
      const from = new Date().toISOString();
      on.push(await ingestFor(base, roundS, users));
      evaluated.push(
        Number(psql(url, `select count(distinct (alert_id, evaluated_at)) from alert_groups where evaluated_at >= '${from}'`)),
      );
    }
    psql(url, `update alerts set enabled = false`);
    const groups = Number(psql(url, `select count(*) from alert_groups`));
    const ratio = median(on) / median(off);
    return [
      `${alerts} alerts, each per user (the top ${Math.min(users, 1_000)} of ${users} users by cost over 24 h), every 60 s; ${rows.toLocaleString('en-US')} generations of the last 24 h seeded in ${seedS.toFixed(1)} s; ingestion ${roundS} s per round, alternating:`,
      `  ingestion        without alerts ${off.map((x) => x.toFixed(0)).join(' / ')} events/s, with ${on.map((x) => x.toFixed(0)).join(' / ')} events/s`,
      `  evaluations      ${evaluated.join(' / ')} alert evaluations per enabled round; ${groups.toLocaleString('en-US')} groups tracked; ${deliveries} webhook deliveries`,
      `  ratio            ${ratio.toFixed(3)} (medians; target >= 0.95: ${ratio >= 0.95 ? 'met' : 'NOT met'})`,
    ];
  } finally {
    await child?.stop();
    receiver.close();
    if (!process.env.BENCH_ALERTS_KEEP_DB) psql(PG_ADMIN, `drop database if exists ${DB} with (force)`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) for (const l of await run()) console.log(l);
