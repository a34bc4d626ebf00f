// The figures of README.md's "Metrics benchmark": GET /api/public/v2/metrics on PostgreSQL with 1,000,000 observations of one
// project over 30 days, each query's p50 next to the fastest hand-written SQL over the base table
// (observations only, no roll-up) for the same answer, measured in the same run, answers checked
// equal. Knobs: BENCH_METRICS_ROWS (default 1000000), BENCH_METRICS_RUNS (default 20),
// BENCH_METRICS_KEEP_DB=1 (leave the database for a look with psql), BENCH_METRICS_REUSE_DB=1 (time a kept
// database again; without it a run drops tally_bench_metrics first, a kept one included), and the
// ClickHouse half's BENCH_METRICS_CH_DIR, BENCH_METRICS_CH_SETTLE_S, BENCH_METRICS_CH_OPTIMIZE (metrics-clickhouse.ts).
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { prepareMetrics, type MetricsQueryInput } from '../server/src/domain/metrics/index.ts';
import { join } from 'node:path';
import { fmt, freePort, percentile, psql, ROOT, startChild, waitHealthy, type Child } from './lib.ts';
import { type ClickHouseCase, clickhouseSection } from './metrics-clickhouse.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'tally_bench_metrics';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-metrics', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-metrics-secret' };
const auth = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;
const OTHER_PROJECT = 'bench-other-project';
const DAY = 86_400_000;

// 10 models with list prices per token (input, output); the last one has no price (its cost is null)
const MODELS: [string, number | null, number | null][] = [
  ['gpt-4o', 2.5e-6, 1e-5],
  ['gpt-4o-mini', 1.5e-7, 6e-7],
  ['claude-sonnet-4-5', 3e-6, 1.5e-5],
  ['claude-3-5-haiku', 8e-7, 4e-6],
  ['gemini-2.5-pro', 1.25e-6, 1e-5],
  ['gemini-2.0-flash', 1e-7, 4e-7],
  ['o3-mini', 1.1e-6, 4.4e-6],
  ['gpt-4.1', 2e-6, 8e-6],
  ['claude-opus-4', 1.5e-5, 7.5e-5],
  ['in-house-llm', null, null],
];
// 20 names: the first 14 are generations, the last 6 spans (no model, usage or cost)
const NAMES = [
  'chat-completion',
  'summarize',
  'classify-intent',
  'extract-entities',
  'rewrite-query',
  'answer-question',
  'translate',
  'generate-title',
  'moderate',
  'rerank',
  'plan-steps',
  'tool-call',
  'critique',
  'final-answer',
  'retrieve-documents',
  'embed-query',
  'vector-search',
  'http-request',
  'parse-output',
  'agent-loop',
];
const GENERATION_NAMES = 14;

const arr = (xs: (string | number | null)[], type: string) =>
  `array[${xs.map((x) => (x === null ? 'null' : typeof x === 'number' ? String(x) : `'${x}'`)).join(', ')}]::${type}[]`;

/**
 * `rows` observations of one project, start_time uniform over [end - 30 days, end) and rising with
 * the row number, as ingestion stores them (so the heap is in time order, as it is in use). Names are
 * skewed (the first ones are the busiest); each generation name has a main model (75%), a second
 * one (20%) and gpt-4o-mini as fallback (5%); environments production/staging/development
 * 80/15/5%; ~5,000 users (skewed), 8 observations per trace, 20 traces per session; latency
 * log-uniform 50 ms..30 s; usage and cost numeric with 9 decimals, usage_details/cost_details
 * holding the same numbers; a few hundred bytes of input/output/metadata.
 */
export function seedSql(projectId: string, rows: number, end: Date, idPrefix: string): string {
  return `
select setseed(${idPrefix === 'a' ? 0.42 : 0.17});
insert into observations (project_id, id, trace_id, type, name, environment, level, start_time, end_time, completion_start_time,
  model, input, output, metadata, usage_details, cost_details, input_usage, output_usage, total_usage, input_cost, output_cost, total_cost,
  cost_status, trace_name, user_id, session_id, release, trace_version, tags)
select '${projectId}', '${idPrefix}-obs-' || g, '${idPrefix}-trace-' || (g / 8), case when gen then 'GENERATION' else 'SPAN' end,
  (${arr(NAMES, 'text')})[n + 1], env, case when r_level < 0.02 then 'ERROR' else 'DEFAULT' end,
  st, st + lat, case when gen then st + lat * 0.3 end,
  case when gen then (${arr(
    MODELS.map((m) => m[0]),
    'text',
  )})[m + 1] end,
  case when gen then jsonb_build_array(jsonb_build_object('role', 'user', 'content', repeat(md5(g::text), 6))) else jsonb_build_object('query', md5(g::text)) end,
  case when gen then jsonb_build_object('role', 'assistant', 'content', repeat(md5((g + 1)::text), 3)) end,
  jsonb_build_object('request_id', md5((g * 7)::text), 'region', 'eu-west-1'),
  case when gen then jsonb_build_object('input', inp, 'output', outp, 'total', inp + outp) else '{}' end,
  case when ic is null then '{}' else jsonb_build_object('input', ic, 'output', oc, 'total', ic + oc) end,
  coalesce(inp, 0), coalesce(outp, 0), coalesce(inp + outp, 0), ic, oc, ic + oc,
  case when not gen then 'none' when ic is null then 'unpriced' else 'inferred' end,
  'trace-' || (${arr(NAMES, 'text')})[n + 1], 'user-' || u, '${idPrefix}-session-' || (g / 160), 'v1.' || (g % 7), '3', case when g % 5 = 0 then '{beta}'::text[] else '{}' end
from (
  select g, n, gen, m, st, lat, env, r_level, u, inp, outp,
    round(inp * (${arr(
      MODELS.map((x) => x[1]),
      'numeric',
    )})[m + 1], 9) as ic,
    round(outp * (${arr(
      MODELS.map((x) => x[2]),
      'numeric',
    )})[m + 1], 9) as oc
  from (
    select g, n, n < ${GENERATION_NAMES} as gen,
      case when r_model < 0.75 then n % 10 when r_model < 0.95 then (n + 3) % 10 else 1 end as m,
      timestamptz '${end.toISOString()}' - interval '30 days' * ((${rows} - g + random()) / ${rows}) as st,
      interval '1 millisecond' * round(exp(ln(50) + random() * ln(600))) as lat,
      case when r_env < 0.8 then 'production' when r_env < 0.95 then 'staging' else 'development' end as env,
      r_level, floor(5000 * r_user * r_user)::int as u,
      case when n < ${GENERATION_NAMES} then 50 + floor(8000 * r_in * r_in)::int end as inp,
      case when n < ${GENERATION_NAMES} then 10 + floor(1500 * r_out)::int end as outp
    from (select g, floor(${NAMES.length} * power(random(), 1.6))::int as n, random() as r_model, random() as r_env, random() as r_level,
            random() as r_user, random() as r_in, random() as r_out
          from generate_series(1, ${rows}) g) r
  ) x
) y`;
}

/** the backfill of the migration that created a roll-up table, as written there */
export function rollupBackfillSql(migration: string, table: string): string {
  const text = readFileSync(`${ROOT}server/src/db/migrations/${migration}.ts`, 'utf8');
  const m = new RegExp(`this\\.addSql\\(\`(insert into ${table}[\\s\\S]*?)\`\\)`).exec(text);
  if (!m) throw new Error(`the backfill insert of ${migration}.ts was not found`);
  return m[1]!;
}

/** rows where the daily roll-up differs from the hourly one summed per day */
const DAILY_CHECK = `
with h as (select project_id, date_trunc('day', hour, 'UTC') as d, type, name, environment, model, sum(count) as n, sum(total_cost) as c, sum(total_cost_count) as cc,
             sum(latency_ms) as l, sum(input_usage) as i from observation_hourly group by 1, 2, 3, 4, 5, 6),
     d as (select project_id, day, type, name, environment, model, count as n, total_cost as c, total_cost_count as cc, latency_ms as l, input_usage as i from observation_daily)
select (select count(*) from (select * from h except all select * from d) x) + (select count(*) from (select * from d except all select * from h) y)`;

/** per project, day and model, the roll-up's sums against the same sums straight from observations: rows that differ */
const ROLLUP_CHECK = `
with r as (select project_id, date_trunc('day', hour, 'UTC') as d, model, sum(count) as n, sum(total_cost) as c, sum(total_cost_count) as cc,
             sum(latency_ms) as l, sum(input_usage) as i, sum(output_usage) as o from observation_hourly group by 1, 2, 3),
     b as (select project_id, date_trunc('day', start_time, 'UTC') as d, model, count(*) as n, coalesce(sum(total_cost), 0) as c, count(total_cost) as cc,
             coalesce(sum(extract(epoch from (end_time - start_time)) * 1000), 0) as l, sum(input_usage) as i, sum(output_usage) as o from observations group by 1, 2, 3)
select (select count(*) from (select * from r except all select * from b) x) + (select count(*) from (select * from b except all select * from r) y)`;

// Kysely only to turn Tally's compiled statements into text + parameters (nothing runs through it)
const compiler = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

type Value = number | null;
/** a row of an answer as compared: its keys (dimensions, bucket) as one string, its numbers */
interface Canon {
  key: string;
  values: Value[];
}
type TallyRow = Record<string, unknown>;
type PgRow = Record<string, unknown>;
const n = (v: unknown): Value => (v === null || v === undefined ? null : Number(v));
const day = (v: unknown) => (v as Date).toISOString().slice(0, 10);
const hour = (v: unknown) => (v as Date).toISOString().replace(/\.000Z$/, 'Z');

interface Baseline {
  label: string;
  sql: string;
}
interface Case {
  name: string;
  target: string;
  /** the most Tally's p50 may be, as a multiple of the baseline's; and in ms, when the issue sets one */
  maxRatio: number;
  maxMs?: number;
  query: MetricsQueryInput;
  /** hand-written SQL over observations only ($1 project, $2 from, $3 to); the fastest of them is the baseline */
  baselines: Baseline[];
  tally(rows: TallyRow[]): Canon[];
  base(rows: PgRow[]): Canon[];
}

const WHERE = 'project_id = $1 and start_time >= $2 and start_time <= $3';
/** date_bin with an origin on a Monday before any stored time: the same buckets as date_trunc(…, 'UTC') for minute/hour/day/week */
const ORIGIN = `timestamptz '0001-01-01 00:00:00+00'`;

export function cases(from30: string, from7: string, to: string): Case[] {
  const v2 = (q: Omit<MetricsQueryInput, 'view' | 'fromTimestamp' | 'toTimestamp'>, from = from30): MetricsQueryInput => ({
    view: 'observations',
    fromTimestamp: from,
    toTimestamp: to,
    ...q,
  });
  return [
    {
      name: 'daily cost by model, 30 days',
      target: '<= 50 ms and <= 1.0x',
      maxRatio: 1,
      maxMs: 50,
      // row_limit: v2's default (100) would cut 30 days x 10 models short
      query: v2({
        dimensions: [{ field: 'providedModelName' }],
        metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
        timeDimension: { granularity: 'day' },
        config: { row_limit: 1000 },
      }),
      baselines: [
        {
          label: 'group by date_trunc',
          sql: `select model, date_trunc('day', start_time, 'UTC') as t, sum(total_cost) as v from observations where ${WHERE} group by 1, 2 order by 2, 1 limit 1000`,
        },
        {
          label: 'group by date_bin',
          sql: `select model, date_bin('1 day', start_time, ${ORIGIN}) as t, sum(total_cost) as v from observations where ${WHERE} group by 1, 2 order by 2, 1 limit 1000`,
        },
      ],
      tally: (rows) => rows.map((r) => ({ key: `${r.providedModelName}|${r.time_dimension}`, values: [n(r.sum_totalCost)] })),
      base: (rows) => rows.map((r) => ({ key: `${r.model}|${day(r.t)}`, values: [n(r.v)] })),
    },
    {
      name: 'cost by model and user, top 50',
      target: '<= 2x',
      maxRatio: 2,
      query: v2({
        dimensions: [{ field: 'providedModelName' }, { field: 'userId' }],
        metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
        orderBy: [{ field: 'sum_totalCost', direction: 'desc' }],
        config: { row_limit: 50 },
      }),
      // null sums (models without a price, spans) last, as Tally and Langfuse order them
      baselines: [
        {
          label: 'group by, top-N sort',
          sql: `select model, user_id, sum(total_cost) as v from observations where ${WHERE} group by 1, 2 order by 3 desc nulls last, 1, 2 limit 50`,
        },
      ],
      tally: (rows) => rows.map((r) => ({ key: `${r.providedModelName}|${r.userId}`, values: [n(r.sum_totalCost)] })),
      base: (rows) => rows.map((r) => ({ key: `${r.model}|${r.user_id}`, values: [n(r.v)] })),
    },
    {
      name: 'p95 latency by name per hour, 7 days',
      target: '<= 2x',
      maxRatio: 2,
      // 20 names x 169 hours: v2 answers at most 1,000 rows (row_limit's maximum), the first 50 hours
      query: v2(
        {
          dimensions: [{ field: 'name' }],
          metrics: [{ measure: 'latency', aggregation: 'p95' }],
          timeDimension: { granularity: 'hour' },
          config: { row_limit: 1000 },
        },
        from7,
      ),
      baselines: [
        {
          label: 'percentile_cont of extract(epoch)',
          sql: `select name, date_trunc('hour', start_time, 'UTC') as t, percentile_cont(0.95) within group (order by extract(epoch from (end_time - start_time)) * 1000) as v from observations where ${WHERE} group by 1, 2 order by 2, 1 limit 1000`,
        },
        {
          label: 'percentile_cont of date_part (double), date_bin',
          sql: `select name, date_bin('1 hour', start_time, ${ORIGIN}) as t, percentile_cont(0.95) within group (order by date_part('epoch', end_time - start_time) * 1000) as v from observations where ${WHERE} group by 1, 2 order by 2, 1 limit 1000`,
        },
      ],
      tally: (rows) => rows.map((r) => ({ key: `${r.name}|${r.time_dimension}`, values: [n(r.p95_latency)] })),
      base: (rows) => rows.map((r) => ({ key: `${r.name}|${hour(r.t)}`, values: [n(r.v)] })),
    },
    {
      name: 'count by environment, 30 days',
      target: '<= 2x',
      maxRatio: 2,
      query: v2({ dimensions: [{ field: 'environment' }], metrics: [{ measure: 'count', aggregation: 'count' }] }),
      baselines: [
        {
          label: 'count(*) group by',
          sql: `select environment, count(*) as v from observations where ${WHERE} group by 1 order by 2 desc nulls last, 1`,
        },
      ],
      tally: (rows) => rows.map((r) => ({ key: String(r.environment), values: [n(r.count_count)] })),
      base: (rows) => rows.map((r) => ({ key: String(r.environment), values: [n(r.v)] })),
    },
    {
      name: 'histogram of totalCost (10 bins), 30 days',
      target: '<= 2x',
      maxRatio: 2,
      query: v2({ metrics: [{ measure: 'totalCost', aggregation: 'histogram' }], config: { bins: 10 } }),
      baselines: [
        {
          label: 'min/max, then width_bucket (two scans)',
          sql: `
          with g as (select min(total_cost) as lo, max(total_cost) as hi from observations where ${WHERE} and total_cost is not null)
          select case when hi = lo then lo else lo + (hi - lo) * (bin - 1) / 10 end as lower, case when hi = lo then hi else lo + (hi - lo) * bin / 10 end as upper, n
          from (select case when g.hi = g.lo then 1 else least(width_bucket(o.total_cost, g.lo, g.hi, 10), 10) end as bin, count(*) as n
                from observations o, g where o.${WHERE.replaceAll(' start_time', ' o.start_time')} and o.total_cost is not null group by 1) b, g order by bin`,
        },
        {
          label: 'one scan into a materialized CTE',
          sql: `
          with v as materialized (select total_cost as x from observations where ${WHERE} and total_cost is not null),
               g as (select min(x) as lo, max(x) as hi from v)
          select case when hi = lo then lo else lo + (hi - lo) * (bin - 1) / 10 end as lower, case when hi = lo then hi else lo + (hi - lo) * bin / 10 end as upper, count(*) as n
          from (select g.lo, g.hi, case when g.hi = g.lo then 1 else least(width_bucket(v.x, g.lo, g.hi, 10), 10) end as bin from v, g) b
          group by lo, hi, bin order by bin`,
        },
      ],
      tally: (rows) => rows.flatMap((r) => (r.histogram_totalCost as number[][]).map((b, i) => ({ key: `bin ${i + 1}`, values: b }))),
      base: (rows) => rows.map((r, i) => ({ key: `bin ${i + 1}`, values: [n(r.lower), n(r.upper), n(r.n)] })),
    },
  ];
}

/** the first difference between two answers (numbers equal to 1e-9 relative), or null */
function difference(a: Canon[], b: Canon[]): string | null {
  if (a.length !== b.length) return `${a.length} rows against ${b.length}`;
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x.key !== y.key) return `row ${i}: ${x.key} against ${y.key}`;
    for (let k = 0; k < x.values.length; k++) {
      const [u, v] = [x.values[k]!, y.values[k]!];
      if (u === null || v === null ? u !== v : Math.abs(u - v) > 1e-9 * Math.max(Math.abs(u), Math.abs(v)))
        return `row ${i} (${x.key}): ${u} against ${v}`;
    }
  }
  return null;
}

/** a row gap filling added (every dimension '' and every metric 0): not in a hand-written answer */
const isFiller = (r: TallyRow) =>
  Object.entries(r).every(([k, v]) => k === 'time_dimension' || v === '' || v === 0 || (Array.isArray(v) && !v.length));

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const executionMs = (plan: string[]) => plan.find((l) => l.startsWith('Execution Time'))?.replace('Execution Time: ', 'executed in ') ?? '';

/** plan nodes of EXPLAIN ANALYZE, one line each: the node, its relation or index, its actual time and rows */
function planNodes(plan: string[]): string[] {
  return plan
    .filter((l) => /^\s*(->\s*)?[A-Z][A-Za-z ]+.*\(actual/.test(l))
    .map((l) =>
      l
        .replace(
          /\(actual time=[\d.]+\.\.([\d.]+) rows=(\d+) loops=(\d+)\)/,
          (_, ms, rows, loops) => `(${Number(ms).toFixed(1)} ms, ${rows} rows${loops === '1' ? '' : ` x${loops}`})`,
        )
        .replace(/\s+$/, ''),
    );
}

export async function run(): Promise<string[]> {
  const lines: string[] = [];
  const rows = Number(process.env.BENCH_METRICS_ROWS ?? 1_000_000);
  const runs = Number(process.env.BENCH_METRICS_RUNS ?? 20);
  if (!(rows >= 1000) || !(runs >= 1)) throw new Error(`bad BENCH_METRICS_ROWS (${rows}) or BENCH_METRICS_RUNS (${runs})`);
  // BENCH_METRICS_REUSE_DB=1: the database a kept run left (BENCH_METRICS_KEEP_DB), seeded already
  const reuse = process.env.BENCH_METRICS_REUSE_DB === '1';
  try {
    if (!reuse) {
      psql(PG_ADMIN, `drop database if exists ${DB_NAME}`);
      psql(PG_ADMIN, `create database ${DB_NAME}`);
    }
  } catch {
    lines.push('PostgreSQL not reachable: metrics figures skipped');
    return lines;
  }
  const dbUrl = PG_ADMIN.replace(/\/[^/]*$/, `/${DB_NAME}`);
  let child: Child | null = null;
  const client = new pg.Client({ connectionString: dbUrl });
  let connected = false;
  try {
    // the server runs the migrations and creates the project of the key pair
    const port = await freePort();
    child = startChild('server/src/main.ts', { ...keys, DATABASE_URL: dbUrl, PORT: String(port), LOG_LEVEL: 'warn' });
    const base = `http://127.0.0.1:${port}/api/public`;
    const exited = new Promise<never>((_, reject) =>
      child!.proc.once('exit', (code) => reject(new Error(`server exited (${code}) during the metrics bench`))),
    );
    exited.catch(() => {});
    await Promise.race([waitHealthy(`${base}/health`), exited]);
    const projectId = psql(dbUrl, `select project_id from api_keys where public_key = '${keys.TALLY_INIT_PUBLIC_KEY}'`);
    if (!projectId) throw new Error('the project of the bench key pair was not created');

    // seed: observations straight into the table, then the roll-up as the migration's backfill fills it
    const end = new Date();
    const otherRows = Math.max(1000, Math.round(rows / 10));
    let t = performance.now();
    if (!reuse) {
      psql(dbUrl, `insert into projects (id, name) values ('${OTHER_PROJECT}', 'other')`);
      psql(dbUrl, seedSql(projectId, rows, end, 'a'));
      psql(dbUrl, seedSql(OTHER_PROJECT, otherRows, end, 'b'));
    }
    const seedMs = performance.now() - t;
    t = performance.now();
    if (!reuse) {
      psql(dbUrl, 'truncate observation_hourly, observation_daily');
      psql(dbUrl, rollupBackfillSql('Migration20261122000008ObservationHourly', 'observation_hourly'));
      psql(dbUrl, rollupBackfillSql('Migration20261122000015ObservationDaily', 'observation_daily'));
    }
    const rollupMs = performance.now() - t;
    t = performance.now();
    // what autovacuum does to a table after a bulk load (statistics, visibility map)
    psql(dbUrl, 'vacuum analyze observations');
    psql(dbUrl, 'vacuum analyze observation_hourly');
    psql(dbUrl, 'vacuum analyze observation_daily');
    const vacuumMs = performance.now() - t;
    const rollupDiff = Number(psql(dbUrl, ROLLUP_CHECK));
    if (rollupDiff)
      throw new Error(`observation_hourly differs from a direct aggregate of observations in ${rollupDiff} (project, day, model) rows`);
    const dailyDiff = Number(psql(dbUrl, DAILY_CHECK));
    if (dailyDiff) throw new Error(`observation_daily differs from observation_hourly summed per day in ${dailyDiff} rows`);
    const sizes = psql(
      dbUrl,
      `select string_agg(relname || ' ' || pg_size_pretty(pg_relation_size(oid)), ', ' order by relname) from pg_class
      where relname in ('observations', 'observation_hourly', 'observation_daily') or relname in (select indexname from pg_indexes where tablename in ('observations', 'observation_hourly', 'observation_daily'))`,
    );
    const counts = psql(
      dbUrl,
      `select (select count(*) from observations where project_id = '${projectId}') || ' ' || (select count(*) from observation_hourly where project_id = '${projectId}') || ' ' || (select count(*) from observation_daily where project_id = '${projectId}')`,
    )
      .split(' ')
      .map(Number);
    const shape = psql(
      dbUrl,
      `select count(distinct model) || ' models, ' || count(distinct name) || ' names, ' || count(distinct environment) || ' environments, ' ||
      count(distinct type) || ' types, ' || count(distinct user_id) || ' users, ' || round(100.0 * count(total_cost) / count(*)) || '% with a cost' from observations where project_id = '${projectId}'`,
    );

    // the windows a dashboard sends: from rounded down (to the day, to the hour for 7 days), to = now
    const now = Date.now();
    const from30 = new Date(Math.floor((now - 30 * DAY) / DAY) * DAY).toISOString();
    const from7 = new Date(Math.floor((now - 7 * DAY) / 3_600_000) * 3_600_000).toISOString();
    const to = new Date(now).toISOString();

    lines.push(
      `GET /api/public/v2/metrics, PostgreSQL, ${rows.toLocaleString('en-US')} observations of one project over 30 days (+${otherRows.toLocaleString('en-US')} of another project):`,
    );
    lines.push(
      `  data             ${shape}; observation_hourly holds ${counts[1]!.toLocaleString('en-US')} rows of the project (= the migration's backfill, checked against a direct aggregate), observation_daily ${counts[2]!.toLocaleString('en-US')} (checked against the hourly rows)`,
    );
    lines.push(
      `  seeding          ${(seedMs / 1000).toFixed(1)} s insert…select generate_series, roll-up ${(rollupMs / 1000).toFixed(1)} s, vacuum analyze ${(vacuumMs / 1000).toFixed(1)} s; sizes: ${sizes}`,
    );
    lines.push(
      `  window           30 days: ${from30} .. ${to} (from rounded down to the day, to = now; covers every row of the project); 7 days: ${from7} .. ${to}`,
    );
    lines.push(
      `  machine          ${cpus().length} cores, load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} before timing (shared with other work)`,
    );
    lines.push(
      `  timing           p50 of ${runs} runs after 2 warm-up runs, Tally and baseline interleaved; Tally = HTTP GET on the server child (response read and parsed),`,
    );
    lines.push(
      `                   "SQL" = Tally's compiled statements run on a pg connection; baseline = the fastest of the hand-written statements over observations (pg, bind parameters, warm connection)`,
    );

    await client.connect();
    connected = true;
    const get = async (q: MetricsQueryInput): Promise<TallyRow[]> => {
      const r = await fetch(`${base}/v2/metrics?query=${encodeURIComponent(JSON.stringify(q))}`, { headers: { authorization: auth } });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`GET /v2/metrics answered ${r.status}: ${text.slice(0, 300)}`);
      return (JSON.parse(text) as { data: TallyRow[] }).data;
    };
    const params = (from: string) => [projectId, from, to];
    /** % of the project's rows in the window, % of the table's rows that are the project's */
    const shares = (from: string) =>
      psql(
        dbUrl,
        `select round(100.0 * count(*) filter (where project_id = '${projectId}' and start_time >= '${from}' and start_time <= '${to}')
        / nullif(count(*) filter (where project_id = '${projectId}'), 0)) || ' ' || round(100.0 * count(*) filter (where project_id = '${projectId}') / count(*)) from observations`,
      ).split(' ');
    const explains: string[] = [];
    const randomPageCost = psql(dbUrl, 'show random_page_cost');
    let met = 0;
    const problems: string[] = [];
    let seqScans = 0;
    const all = cases(from30, from7, to);
    const forClickHouse: ClickHouseCase<Canon>[] = [];
    for (const c of all) {
      const prepared = prepareMetrics(c.query, projectId, { version: 'v2' });
      const statements = [prepared.compiled.main, ...prepared.compiled.histograms.map((h) => h.query)].map((s) => s.compile(compiler));
      const engine = async () => {
        for (const s of statements) await client.query(s.sql, s.parameters as unknown[]);
      };
      const baseParams = params(c.query.fromTimestamp);

      // the answers agree: Tally's against every hand-written statement
      const tallyRows = await get(c.query);
      const fillers = tallyRows.filter(isFiller).length;
      const tallyAnswer = c.tally(tallyRows.filter((r) => !isFiller(r)));
      for (const b of c.baselines) {
        const d = difference(tallyAnswer, c.base((await client.query(b.sql, baseParams)).rows));
        if (d) problems.push(`${c.name}: Tally's answer differs from "${b.label}": ${d}`);
      }

      // warm-up, then the fastest hand-written statement (median of 3) is the baseline
      for (let i = 0; i < 2; i++) {
        await get(c.query);
        await engine();
        for (const b of c.baselines) await client.query(b.sql, baseParams);
      }
      let baseline = c.baselines[0]!;
      if (c.baselines.length > 1) {
        let best = Infinity;
        for (const b of c.baselines) {
          const ms = [];
          for (let i = 0; i < 3; i++) ms.push(await time(() => client.query(b.sql, baseParams)));
          const med = percentile(
            ms.sort((x, y) => x - y),
            50,
          );
          if (med < best) [best, baseline] = [med, b];
        }
      }
      const http: number[] = [],
        sqlMs: number[] = [],
        baseMs: number[] = [];
      for (let i = 0; i < runs; i++) {
        http.push(await time(() => get(c.query)));
        sqlMs.push(await time(engine));
        baseMs.push(await time(() => client.query(baseline.sql, baseParams)));
      }
      for (const xs of [http, sqlMs, baseMs]) xs.sort((x, y) => x - y);
      const [tp, sp, bp] = [percentile(http, 50), percentile(sqlMs, 50), percentile(baseMs, 50)];
      forClickHouse.push({
        name: c.name,
        query: c.query,
        // a class whose every statement PostgreSQL's roll-ups answer (a histogram's bins come from observations)
        rollup: Boolean(prepared.plan.rollup) && statements.length === 1,
        answer: tallyAnswer,
        canon: (r) => c.tally(r),
        postgresP50: tp,
      });
      const ratio = tp / bp;
      const ok = ratio <= c.maxRatio && (c.maxMs === undefined || tp <= c.maxMs);
      if (ok) met++;
      lines.push(
        `  ${c.name.padEnd(42)} Tally p50 ${fmt(tp).padStart(8)}  baseline p50 ${fmt(bp).padStart(8)}  ratio ${ratio.toFixed(2)}  (target ${c.target}: ${ok ? 'met' : 'MISSED'})`,
      );
      const nulls = tallyAnswer.filter((r) => r.values.includes(null)).length;
      lines.push(
        `  ${''.padEnd(42)} Tally's SQL alone p50 ${fmt(sp)}, ${[prepared.plan.rollup ? (prepared.plan.rollup.days ? 'daily roll-up + hourly roll-up + edge hours from observations' : 'hourly roll-up + edge hours from observations') : 'observations', ...(statements.length > 1 ? ['bins from observations'] : [])].join(', ')}; baseline: ${baseline.label}; ${tallyAnswer.length} rows equal${fillers ? ` (+${fillers} empty buckets filled)` : ''}${nulls ? `, ${nulls} of them with a null metric` : ''}`,
      );

      // EXPLAIN ANALYZE of Tally's statements
      for (const [i, s] of statements.entries()) {
        const plan = (await client.query(`explain (analyze, costs off, buffers off) ${s.sql}`, s.parameters as unknown[])).rows.map(
          (r: PgRow) => String(r['QUERY PLAN']),
        );
        const seq = plan.filter((l) => /Seq Scan on observations\b/.test(l)).length;
        seqScans += seq;
        explains.push(
          `  ${c.name}${statements.length > 1 ? (i ? ' (histogram statement)' : ' (main statement)') : ''}: ${seq ? 'SEQ SCAN on observations' : 'no seq scan on observations'}, ${executionMs(plan)}`,
        );
        for (const l of planNodes(plan)) explains.push(`      ${l.length > 150 ? `${l.slice(0, 147)}...` : l}`);
        if (seq) {
          // the plan PostgreSQL would take instead, through the (project_id, start_time) index
          await client.query('begin');
          await client.query('set local enable_seqscan = off');
          const alt = (await client.query(`explain (analyze, costs off, buffers off) ${s.sql}`, s.parameters as unknown[])).rows.map(
            (r: PgRow) => String(r['QUERY PLAN']),
          );
          await client.query('rollback');
          const scan =
            planNodes(alt)
              .find((l) => /Scan .*on observations\b/.test(l))
              ?.trim()
              .replace(/^->\s*/, '') ?? '?';
          const [windowShare, projectShare] = shares(c.query.fromTimestamp);
          const [seqMs, altMs] = [plan, alt].map((p) => Number(/([\d.]+) ms/.exec(executionMs(p))?.[1]));
          explains.push(
            `      the window holds ${windowShare}% of the project's rows, which are ${projectShare}% of the table's; with seq scans disabled: ${scan}, ${executionMs(alt)}:`,
          );
          explains.push(
            seqMs <= altMs
              ? `      the seq scan is the faster plan here (it reads each page once, in order; the index path reads the same pages and the index)`
              : `      the index path is faster here; PostgreSQL's cost model (random_page_cost ${randomPageCost}) prefers the seq scan for this share of the table`,
          );
          if (!/Only Scan/.test(scan))
            explains.push(`      (no index-only path: the statement needs text columns, which observations_metrics_idx does not carry)`);
        }
      }
    }
    lines.push(`  targets          ${met} of ${all.length} met`);
    lines.push(
      `  EXPLAIN ANALYZE of Tally's statements (${seqScans ? `${seqScans} seq scan(s) on observations` : 'no seq scan on observations in any'}):`,
    );
    lines.push(...explains);
    if (existsSync(join(ROOT, 'engines/chdb/node_modules/chdb')))
      lines.push(
        ...(await clickhouseSection({
          dbUrl,
          env: keys,
          auth,
          runs,
          rows,
          projectId,
          cases: forClickHouse,
          difference,
          isFiller,
        })),
      );
    else lines.push('  ClickHouse half skipped: the embedded engine is not installed (make engines)');
    if (problems.length) throw new Error(`metrics bench: answers differ:\n  ${problems.join('\n  ')}\n${lines.join('\n')}`);
  } finally {
    if (connected) await client.end();
    if (child) await child.stop();
    if (!process.env.BENCH_METRICS_KEEP_DB)
      try {
        psql(PG_ADMIN, `drop database if exists ${DB_NAME}`);
      } catch {
        /* best effort */
      }
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) for (const line of await run()) console.log(line);
