// Stage 4 of the metrics engine on ClickHouse: runs the statements of the ClickHouse dialect
// (domain/metrics/compile-clickhouse.ts) with their values as query parameters, and hands the
// shape stage the rows PostgreSQL's statements would have given (domain/metrics/clickhouse-rows.ts).
import {
  clickHouseDialect,
  clickHouseRows,
  type ClickHouseMetrics,
  type ClickHouseStatement,
  type ExecutedMetrics,
  type HistogramRow,
  type MetricsStore,
} from '../domain/metrics/index.ts';
import type { Analytics } from './clickhouse.ts';

async function run(a: Analytics, s: ClickHouseStatement) {
  const rs = await a.client.query({ query: s.sql, query_params: s.params, format: 'JSONEachRow' });
  return clickHouseRows(s.rows, await rs.json<Record<string, unknown>>());
}

export async function executeClickHouseMetrics(a: Analytics, compiled: ClickHouseMetrics): Promise<ExecutedMetrics> {
  // at once: a histogram query's main statement (its groups, often from the roll-ups) need not wait
  // for the histogram's scan
  const [rows, ...binned] = await Promise.all([run(a, compiled.main), ...compiled.histograms.map((h) => run(a, h.query))]);
  return { rows: rows!, histograms: compiled.histograms.map((h, i) => ({ alias: h.alias, rows: binned[i] as HistogramRow[] })) };
}

/** the metrics engine's store when ClickHouse is configured: its dialect over Tally's database there, and its execute stage */
export const clickHouseMetricsStore = (a: Analytics): MetricsStore<ClickHouseMetrics> => ({
  // a cluster's Distributed table does not name its shards' partitions
  dialect: clickHouseDialect(a.database, { dayPartitions: a.cluster === null }),
  execute: (compiled) => executeClickHouseMetrics(a, compiled),
});
