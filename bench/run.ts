// `make bench`: prints every benchmark's figures with the baseline measured in the same run.
import { run as startupAndModels } from './startup-and-models.ts';
import { run as ingestion } from './ingestion.ts';
import { run as memory } from './memory.ts';
import { run as idle } from './idle.ts';
import { run as hostileMemory } from './hostile-memory.ts';
import { run as metrics } from './metrics.ts';
import { run as tokenizers } from './tokenizers.ts';
import { run as evaluation } from './evaluation.ts';
import { run as analyticsExport } from './analytics-export.ts';
import { run as traceList } from './trace-list.ts';
import { run as reprice } from './reprice.ts';
import { run as alerts } from './alerts.ts';

console.log('== start-up and Models API ==');
for (const line of await startupAndModels()) console.log(line);

console.log('== token counting per vocabulary, Tally vs js-tiktoken (BENCH_TOKENIZER_MB, default 2) ==');
for (const line of await tokenizers()) console.log(line);

console.log('== ingestion (BENCH_EVENTS, default 200000) ==');
for (const line of await ingestion()) console.log(line);

console.log('== server memory on both databases (BENCH_MEMORY_EVENTS, default 20000) ==');
for (const line of await memory()) console.log(line);

console.log('== idle CPU (BENCH_IDLE_SECONDS, default 30) ==');
for (const line of await idle()) console.log(line);

console.log('== server memory while refusing hostile bodies, against normal load (target: within 100 MB) ==');
for (const line of await hostileMemory()) console.log(line);

console.log('== metrics queries on 1,000,000 observations (BENCH_METRICS_ROWS, BENCH_METRICS_RUNS) ==');
for (const line of await metrics()) console.log(line);

console.log('== GET /api/public/traces, page of 50 newest with one filter (BENCH_TRACES_ROWS, default 1000000 observations) ==');
for (const line of await traceList()) console.log(line);

console.log('== reprice job over a month of generations, ingestion running (BENCH_REPRICE_ROWS, default 1000000) ==');
for (const line of await reprice()) console.log(line);

console.log(
  '== spend alerts against ingestion (BENCH_ALERTS, BENCH_ALERT_ROWS, BENCH_ALERT_USERS, BENCH_ALERT_ROUND_S, BENCH_ALERT_ROUNDS) ==',
);
for (const line of await alerts()) console.log(line);

console.log(
  '== LLM-as-a-judge: time to score, and what one rule costs ingestion (BENCH_EVAL_GENERATIONS, BENCH_EVAL_INGEST_EVENTS, BENCH_EVAL_ROUNDS) ==',
);
for (const line of await evaluation()) console.log(line);

console.log('== change feed to ClickHouse (embedded) under ingestion load (BENCH_EXPORT_EVENTS, default 100000) ==');
for (const line of await analyticsExport()) console.log(line);
