// GET /api/public/traces at the metrics bench's scale: 1,000,000 observations (BENCH_TRACES_ROWS)
// seeded as the metrics bench seeds them, and their traces (one per 8 observations, with the first
// observation's user, session, name and environment). Each case asks for the page of 50 newest
// traces with one filter, over HTTP, interleaved, BENCH_TRACES_RUNS times (default 30). Baseline,
// the same run: GET /api/public/observations, 50 newest of the same user. Target (issue 24): p50 <= 50 ms.
import { type Child, fmt, freePort, percentile, psql, startChild, waitHealthy } from './lib.ts';
import { seedSql } from './metrics.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'tally_bench_traces';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-traces', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-traces' };
const auth = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;

export async function run(): Promise<string[]> {
  const rows = Number(process.env.BENCH_TRACES_ROWS ?? 1_000_000);
  const runs = Number(process.env.BENCH_TRACES_RUNS ?? 30);
  try {
    psql(PG_ADMIN, `drop database if exists ${DB}`);
    psql(PG_ADMIN, `create database ${DB}`);
  } catch {
    return ['PostgreSQL not reachable: skipped'];
  }
  const url = PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`);
  let child: Child | null = null;
  try {
    const port = await freePort();
    child = startChild('server/src/main.ts', {
      ...keys,
      DATABASE_URL: url,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      TALLY_EVAL_CONCURRENCY: '0',
    });
    const base = `http://127.0.0.1:${port}/api/public`;
    await waitHealthy(`${base}/health`);
    const projectId = psql(url, `select project_id from api_keys where public_key = '${keys.TALLY_INIT_PUBLIC_KEY}'`);
    const t0 = performance.now();
    psql(url, seedSql(projectId, rows, new Date(), 'a'));
    psql(
      url,
      `insert into traces (project_id, id, timestamp, name, user_id, session_id, release, version, environment, tags, public, created_at, updated_at)
       select distinct on (trace_id) project_id, trace_id, start_time, trace_name, user_id, session_id, 'r1', trace_version, environment, tags, false, start_time, start_time
       from observations where project_id = '${projectId}' order by trace_id, start_time`,
    );
    psql(url, 'vacuum analyze traces');
    psql(url, 'vacuum analyze observations');
    const traces = Number(psql(url, 'select count(*) from traces'));
    const seedS = (performance.now() - t0) / 1000;
    // psql blocked this event loop while the server closed idle keep-alive sockets: let fetch see that
    await new Promise((r) => setTimeout(r, 200));
    // a frequent user, a middling one, a name, the main environment
    const busyUser = psql(url, `select user_id from traces group by user_id order by count(*) desc limit 1`);
    const rareUser = psql(url, `select user_id from traces group by user_id having count(*) between 5 and 50 limit 1`);
    const name = psql(url, `select name from traces group by name order by count(*) desc offset 3 limit 1`);
    const cases: [string, string][] = [
      [`userId (${busyUser}, the busiest)`, `/traces?limit=50&userId=${encodeURIComponent(busyUser)}`],
      [`userId (${rareUser}, a few traces)`, `/traces?limit=50&userId=${encodeURIComponent(rareUser)}`],
      [`name (${name})`, `/traces?limit=50&name=${encodeURIComponent(name)}`],
      ['environment=production', '/traces?limit=50&environment=production'],
      ['tags=beta', '/traces?limit=50&tags=beta'],
      ['no filter', '/traces?limit=50'],
      ['baseline: GET /observations, same busiest user', `/observations?limit=50&userId=${encodeURIComponent(busyUser)}`],
    ];
    const times = cases.map(() => [] as number[]);
    for (let r = 0; r < runs + 2; r++)
      for (const [i, [, path]] of cases.entries()) {
        const s = performance.now();
        const res = await fetch(base + path, { headers: { authorization: auth } });
        const body = await res.text();
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${body.slice(0, 200)}`);
        if (r >= 2) times[i]!.push(performance.now() - s); // two warm-up rounds
      }
    const p50 = times.map((t) =>
      percentile(
        [...t].sort((a, b) => a - b),
        50,
      ),
    );
    const baseline = p50.at(-1)!;
    const lines = [
      `${traces.toLocaleString('en')} traces over ${rows.toLocaleString('en')} observations (seeded in ${seedS.toFixed(0)} s); page of 50 newest, p50 of ${runs} over HTTP:`,
    ];
    for (const [i, [label]] of cases.entries()) {
      const ratio =
        i < cases.length - 1
          ? `  ${(p50[i]! / baseline).toFixed(2)}x the baseline   target <= 50 ms: ${p50[i]! <= 50 ? 'met' : 'NOT met'}`
          : '';
      lines.push(
        `  ${label.padEnd(52)} p50 ${fmt(p50[i]!).padStart(8)}  p95 ${fmt(
          percentile(
            [...times[i]!].sort((a, b) => a - b),
            95,
          ),
        ).padStart(8)}${ratio}`,
      );
    }
    return lines;
  } finally {
    await child?.stop();
    try {
      // BENCH_TRACES_KEEP_DB=1: left for a look with psql
      if (!process.env.BENCH_TRACES_KEEP_DB) psql(PG_ADMIN, `drop database if exists ${DB}`);
    } catch {
      /* best effort */
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) for (const l of await run()) console.log(l);
