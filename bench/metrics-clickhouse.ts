// The metrics bench's second half: the same observations answered from ClickHouse (embedded, chdb).
// A second server on the bench's PostgreSQL database with TALLY_CLICKHOUSE_URL=chdb: turns the
// change feed on, which queues every seeded row once; its exporter ships them (the time it takes
// is the export figure), then each query class is timed over HTTP on both servers, interleaved,
// and the answers must agree row for row. Targets (issue 23): every class <= 300 ms p50 on
// ClickHouse, >= 10x faster than PostgreSQL for the classes PostgreSQL's roll-ups cannot serve,
// roll-up classes <= 50 ms on both; bytes per observation on both. BENCH_METRICS_CH_OPTIMIZE=1 times the
// store with its parts merged (a store in service, for its older data) rather than just exported.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openClickHouse } from '../server/src/analytics/clickhouse.ts';
import { parseClickHouseTarget } from '../server/src/domain/analytics/target.ts';
import type { MetricsQueryInput } from '../server/src/domain/metrics/index.ts';
import { type Child, cpuSeconds, fmt, freePort, percentile, psql, startChild, waitHealthy } from './lib.ts';

export interface ClickHouseCase<C> {
  name: string;
  query: MetricsQueryInput;
  /** PostgreSQL's roll-ups answer it */
  rollup: boolean;
  /** PostgreSQL's answer, canonical */
  answer: C[];
  canon(rows: Record<string, unknown>[]): C[];
  /** the PostgreSQL server's p50 over HTTP, this run */
  postgresP50: number;
}

export interface ClickHouseBenchOptions<C> {
  dbUrl: string;
  env: Record<string, string>;
  auth: string;
  runs: number;
  rows: number;
  projectId: string;
  cases: ClickHouseCase<C>[];
  difference(a: C[], b: C[]): string | null;
  isFiller(r: Record<string, unknown>): boolean;
}

export async function clickhouseSection<C>(o: ClickHouseBenchOptions<C>): Promise<string[]> {
  const lines: string[] = [];
  // BENCH_METRICS_CH_DIR: the embedded engine's directory, kept after the run (with BENCH_METRICS_KEEP_DB
  // and BENCH_METRICS_REUSE_DB a second run finds both copies in step and skips the export)
  const keptDir = process.env.BENCH_METRICS_CH_DIR;
  if (keptDir) mkdirSync(keptDir, { recursive: true });
  const dir = keptDir ?? mkdtempSync(join(tmpdir(), 'tally-bench-metrics-ch-'));
  // background merges after a bulk export: a store in service has merged its parts, a fresh one has
  // hundreds, and FINAL reads merge them on every query. The exporter merges each day partition a
  // drained backlog left (analytics-exporter.ts), in the server's process (the embedded engine): the
  // classes are timed once that process is quiet (below 5% of a core over 10 s), or after
  // BENCH_METRICS_CH_SETTLE_S at most. On 2 shared cores the merges of 11 M rows over 31 days took
  // 60-90 s after the drain one night, and were not done 180 s after it on a slower one.
  const settleS = Number(process.env.BENCH_METRICS_CH_SETTLE_S ?? 900);
  let child: Child | null = null;
  try {
    const port = await freePort();
    const start = () =>
      startChild('server/src/main.ts', {
        ...o.env,
        DATABASE_URL: o.dbUrl,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        TALLY_EVAL_CONCURRENCY: '0',
        TALLY_CLICKHOUSE_URL: `chdb:${dir}`,
      });
    child = start();
    const base = `http://127.0.0.1:${port}/api/public`;
    // turning the feed on queues every stored row once, before the server answers (about 4 minutes for 11 M rows)
    await waitHealthy(`${base}/health`, 120_000 + o.rows / 20);
    const lag = async () => ((await (await fetch(`${base}/health`)).json()) as { analytics: { lagRows: number } }).analytics.lagRows;
    const queued = await lag();
    const t0 = performance.now();
    while ((await lag()) > 0) await new Promise((r) => setTimeout(r, 200));
    const exportS = (performance.now() - t0) / 1000;
    let settledS = 0;
    if (queued > 0) {
      const pid = child.proc.pid!;
      for (let before = cpuSeconds([pid]); settledS < settleS; ) {
        await new Promise((r) => setTimeout(r, 10_000));
        settledS += 10;
        const now = cpuSeconds([pid]);
        if (now - before < 0.5) break;
        before = now;
      }
    }
    // BENCH_METRICS_CH_OPTIMIZE=1: the parts merged as a store in service has its older data (one
    // OPTIMIZE … FINAL per table, the server stopped: the embedded engine is one process's)
    let optimized = '';
    if (process.env.BENCH_METRICS_CH_OPTIMIZE === '1') {
      await child.stop();
      const t1 = performance.now();
      const a = openClickHouse(parseClickHouseTarget(`chdb:${dir}`, undefined, process.cwd())!);
      for (const table of ['observations', 'observation_hourly', 'observation_daily'])
        await a.client.command({ query: `OPTIMIZE TABLE ${a.database}.${table} FINAL` });
      await a.client.close();
      optimized = `; parts merged by OPTIMIZE … FINAL in ${((performance.now() - t1) / 1000).toFixed(0)} s`;
      child = start();
      await waitHealthy(`${base}/health`, 120_000);
    }
    const get = async (q: MetricsQueryInput) => {
      const r = await fetch(`${base}/v2/metrics?query=${encodeURIComponent(JSON.stringify(q))}`, { headers: { authorization: o.auth } });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`ClickHouse server: GET /v2/metrics answered ${r.status}: ${text.slice(0, 300)}`);
      return (JSON.parse(text) as { data: Record<string, unknown>[] }).data;
    };
    const pgBytes = Number(psql(o.dbUrl, "select pg_total_relation_size('observations')"));
    const allRows = Number(psql(o.dbUrl, 'select count(*) from observations'));
    lines.push(
      `GET /api/public/v2/metrics, the same observations in embedded ClickHouse (chdb, FINAL reads), a second server on the same PostgreSQL:`,
    );
    lines.push(
      `  export           the feed queued ${queued.toLocaleString('en-US')} rows when turned on; shipped in ${exportS.toFixed(1)} s (${Math.round(queued / Math.max(exportS, 0.001)).toLocaleString('en-US')} rows/s); then ${settledS} s until the server was quiet (its merges done; at most ${settleS} s) before timing${optimized}`,
    );
    const storageAt = lines.length;
    const atScale = allRows >= 10_000_000;
    const problems: string[] = [];
    let met = 0;
    for (const c of o.cases) {
      const rows = await get(c.query);
      const d = o.difference(c.canon(rows.filter((r) => !o.isFiller(r))), c.answer);
      if (d) problems.push(`${c.name}: ClickHouse's answer differs from PostgreSQL's: ${d}`);
      for (let i = 0; i < 2; i++) await get(c.query);
      const ms: number[] = [];
      for (let i = 0; i < o.runs; i++) {
        const t = performance.now();
        await get(c.query);
        ms.push(performance.now() - t);
      }
      ms.sort((x, y) => x - y);
      const p50 = percentile(ms, 50);
      const speedup = c.postgresP50 / p50;
      // issue 23 sets the speed-up at 10,000,000 observations, where the row store's scans take
      // seconds; at the bench's default million they take a tenth of that, and only the 300 ms is judged
      const target = c.rollup
        ? '<= 50 ms on both'
        : atScale
          ? '<= 300 ms and >= 10x PostgreSQL'
          : '<= 300 ms; the 10x is judged at 10M rows';
      const ok = c.rollup ? p50 <= 50 && c.postgresP50 <= 50 : p50 <= 300 && (!atScale || speedup >= 10);
      if (ok) met++;
      lines.push(
        `  ${c.name.padEnd(42)} ClickHouse p50 ${fmt(p50).padStart(8)}  PostgreSQL p50 ${fmt(c.postgresP50).padStart(8)}  ${speedup.toFixed(1)}x  (target ${target}: ${ok ? 'met' : 'MISSED'})`,
      );
    }
    lines.push(
      `  targets          ${met} of ${o.cases.length} met${atScale ? '' : ` (the >= 10x speed-up not judged: ${allRows.toLocaleString('en-US')} rows, BENCH_METRICS_ROWS=10000000 for issue 23's size)`}; answers ${problems.length ? 'DIFFER' : 'equal for every class'}`,
    );
    if (problems.length) lines.push(...problems.map((p) => `  ${p}`));
    // the store's active parts, read once the server has stopped (the embedded engine is one
    // process's): the directory also holds parts merged away and not yet deleted (ClickHouse keeps
    // them 8 minutes), twice the size right after the merges of a bulk export
    await child.stop();
    child = null;
    const a = openClickHouse(parseClickHouseTarget(`chdb:${dir}`, undefined, process.cwd())!);
    const rs = await a.client.query({
      query: `SELECT toString(sum(bytes_on_disk)) AS b, toString(count()) AS parts FROM system.parts WHERE database = {d:String} AND active`,
      query_params: { d: a.database },
      format: 'JSONEachRow',
    });
    const [{ b, parts }] = (await rs.json()) as { b: string; parts: string }[];
    await a.client.close();
    const chBytes = Number(b);
    lines.splice(
      storageAt,
      0,
      `  storage          ClickHouse ${(chBytes / 2 ** 20).toFixed(0)} MB in ${parts} active parts = ${Math.round(chBytes / allRows)} bytes per observation (roll-ups included); PostgreSQL observations with indexes and TOAST ${(pgBytes / 2 ** 20).toFixed(0)} MB = ${Math.round(pgBytes / allRows)} bytes per observation`,
    );
  } catch (e) {
    lines.push(`  ClickHouse half failed: ${(e as Error).message.slice(0, 500)}`);
  } finally {
    await child?.stop();
    if (!keptDir) rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}
