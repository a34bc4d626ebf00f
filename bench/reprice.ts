// Repricing a month of generations (issue 25): BENCH_REPRICE_ROWS generations (default 1,000,000)
// over 30 days of 10 models, each priced by a project definition; every definition is then
// replaced at a price 10% higher and one job reprices the month, so every generation changes
// (the worst case: each is written again with its roll-ups). Ingestion runs meanwhile (batches of
// 100 generation-create events, 2 in flight); its events/s during the job beside its events/s
// for 10 s before it, same server, same run. Target: <= 60 s on these 2 cores.
import { freePort, psql, startChild, waitHealthy, type Child } from './lib.ts';
import { rollupBackfillSql } from './metrics.ts';

const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'tally_bench_reprice';
const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-bench-reprice', TALLY_INIT_SECRET_KEY: 'sk-lf-bench-reprice' };
const auth = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;
const MODELS = Array.from({ length: 10 }, (_, i) => ({ name: `bench-model-${i}`, input: (i + 1) * 1e-7, output: (i + 1) * 4e-7 }));

function seed(projectId: string, modelIds: string[], rows: number, end: Date): string {
  const names = `array[${MODELS.map((m) => `'${m.name}'`).join(', ')}]`;
  const ids = `array[${modelIds.map((m) => `'${m}'`).join(', ')}]`;
  const inP = `array[${MODELS.map((m) => m.input).join(', ')}]::numeric[]`;
  const outP = `array[${MODELS.map((m) => m.output).join(', ')}]::numeric[]`;
  return `
select setseed(0.5);
insert into observations (project_id, id, trace_id, type, name, environment, level, start_time, end_time, model, model_id,
  provided_usage_details, usage_details, cost_details, input_usage, output_usage, total_usage, input_cost, output_cost, total_cost,
  cost_status, usage_pricing_tier_id, usage_pricing_tier_name, revision)
select '${projectId}', 'rp-' || g, 'rp-trace-' || (g / 8), 'GENERATION', 'call', 'production', 'DEFAULT', st, st + interval '800 ms',
  (${names})[m], (${ids})[m],
  jsonb_build_object('input', inp, 'output', outp), jsonb_build_object('input', inp, 'output', outp, 'total', inp + outp),
  jsonb_build_object('input', inp * (${inP})[m], 'output', outp * (${outP})[m], 'total', inp * (${inP})[m] + outp * (${outP})[m]),
  inp, outp, inp + outp, inp * (${inP})[m], outp * (${outP})[m], inp * (${inP})[m] + outp * (${outP})[m],
  'inferred', (${ids})[m] || '_tier_default', 'Standard', 1
from (select g, 1 + (g % 10) as m, 100 + (g % 900) as inp, 10 + (g % 300) as outp,
        timestamptz '${end.toISOString()}' - interval '30 days' * ((${rows} - g + 0.5) / ${rows}) as st
      from generate_series(1, ${rows}) g) s;`;
}

async function api(base: string, path: string, init: RequestInit = {}) {
  const r = await fetch(base + path, { ...init, headers: { authorization: auth, 'content-type': 'application/json' } });
  const body = (await r.json()) as Record<string, unknown>;
  if (r.status >= 300) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

export async function run(): Promise<string[]> {
  const rows = Number(process.env.BENCH_REPRICE_ROWS ?? 1_000_000);
  try {
    psql(PG_ADMIN, `drop database if exists ${DB} with (force)`);
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
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      TALLY_EVAL_CONCURRENCY: '0',
    });
    const base = `http://127.0.0.1:${port}/api/public`;
    await waitHealthy(`${base}/health`);
    const projectId = psql(url, `select project_id from api_keys where public_key = '${keys.TALLY_INIT_PUBLIC_KEY}'`);
    const define = async (suffix: string, factor: number) => {
      const out: string[] = [];
      for (const m of MODELS) {
        const body = {
          modelName: `${m.name} ${suffix}`,
          matchPattern: `^${m.name}$`,
          unit: 'TOKENS',
          inputPrice: m.input * factor,
          outputPrice: m.output * factor,
        };
        out.push((await api(base, '/models', { method: 'POST', body: JSON.stringify(body) })).id as string);
      }
      return out;
    };
    const first = await define('v1', 1);
    const end = new Date();
    let t = performance.now();
    psql(url, seed(projectId, first, rows, end));
    psql(url, rollupBackfillSql('Migration20261122000008ObservationHourly', 'observation_hourly'));
    psql(url, rollupBackfillSql('Migration20261122000015ObservationDaily', 'observation_daily'));
    psql(url, 'vacuum analyze observations');
    const seedS = (performance.now() - t) / 1000;
    // the seeding blocked this event loop (psql runs synchronously) while the server closed the idle
    // keep-alive sockets: let their close be seen before fetch picks one of them again
    await new Promise((r) => setTimeout(r, 200));

    // ingestion load: generation-create batches of new generations, 2 in flight, counted per phase
    let sent = 0;
    let loading = true;
    let n = 0;
    const load = Promise.all(
      [0, 1].map(async () => {
        while (loading) {
          const batch = Array.from({ length: 100 }, () => {
            const at = new Date().toISOString();
            const id = `load-${n++}`;
            return {
              id: `e-${id}`,
              timestamp: at,
              type: 'generation-create',
              body: { id, model: MODELS[n % 10]!.name, startTime: at, usageDetails: { input: 500, output: 50 } },
            };
          });
          await api(base, '/ingestion', { method: 'POST', body: JSON.stringify({ batch }) });
          sent += 100;
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 2_000)); // warm-up
    let s0 = sent;
    t = performance.now();
    await new Promise((r) => setTimeout(r, 10_000));
    const before = (sent - s0) / ((performance.now() - t) / 1000);

    for (const id of first) await api(base, `/models/${id}`, { method: 'DELETE' });
    await define('v2', 1.1);
    s0 = sent;
    t = performance.now();
    const from = new Date(end.getTime() - 31 * 86_400_000).toISOString();
    const job = await api(base, '/models/reprice', {
      method: 'POST',
      body: JSON.stringify({ fromTimestamp: from, toTimestamp: end.toISOString() }),
    });
    let done: Record<string, unknown>;
    for (;;) {
      done = await api(base, `/models/reprice/${job.id}`);
      if (done.status === 'succeeded' || done.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const jobS = (performance.now() - t) / 1000;
    const during = (sent - s0) / jobS;
    loading = false;
    await load;
    if (done.status !== 'succeeded') throw new Error(`the reprice job failed: ${done.error}`);
    const changed = Number(done.generationsChanged);
    return [
      `${rows.toLocaleString('en')} generations over 30 days, 10 models, every definition replaced at +10% (seeded in ${seedS.toFixed(0)} s):`,
      `  reprice job      ${changed.toLocaleString('en')} of ${Number(done.generationsScanned).toLocaleString('en')} generations changed in ${jobS.toFixed(1)} s = ${Math.round(changed / jobS).toLocaleString('en')} generations/s; cost ${Number(done.costBefore).toFixed(2)} -> ${Number(done.costAfter).toFixed(2)} USD (target <= 60 s: ${jobS <= 60 ? 'met' : 'NOT met'})`,
      `  ingestion        ${Math.round(before).toLocaleString('en')} events/s for 10 s before the job (baseline), ${Math.round(during).toLocaleString('en')} events/s during it = ${(during / before).toFixed(2)}x`,
    ];
  } finally {
    await child?.stop();
    try {
      psql(PG_ADMIN, `drop database if exists ${DB} with (force)`);
    } catch {
      /* best effort */
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) for (const l of await run()) console.log(l);
