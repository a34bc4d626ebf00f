// Tally's tables in ClickHouse: the same rows and column names as PostgreSQL's observations,
// traces and scores (the metrics compiler names columns once for both engines), plus `_version`
// (the change feed's sequence number of the change exported) and `_deleted`. ReplacingMergeTree
// keeps the highest version of a row and reads with FINAL drop deleted ones, so an export sent
// twice, or out of order, leaves one row per id.

export interface ChColumn {
  name: string;
  type: string;
  /** how a PostgreSQL value becomes this column's JSONEachRow value */
  from: 'text' | 'time' | 'json' | 'number' | 'decimal' | 'array' | 'usageMap' | 'costMap' | 'bool';
}

const c = (name: string, type: string, from: ChColumn['from']): ChColumn => ({ name, type, from });
// microseconds, as PostgreSQL's timestamptz keeps them (OTel spans carry them; latencies and window edges depend on them)
const TIME = "DateTime64(6, 'UTC')";
// PostgreSQL keeps costs as numeric; 18 decimals hold every digit a price × units product has
const COST = 'Decimal(38, 18)';

export const OBSERVATION_COLUMNS: ChColumn[] = [
  c('project_id', 'String', 'text'),
  c('id', 'String', 'text'),
  c('trace_id', 'Nullable(String)', 'text'),
  c('parent_observation_id', 'Nullable(String)', 'text'),
  c('type', 'LowCardinality(String)', 'text'),
  c('name', 'Nullable(String)', 'text'),
  c('environment', 'LowCardinality(String)', 'text'),
  c('level', 'LowCardinality(String)', 'text'),
  c('status_message', 'Nullable(String)', 'text'),
  c('version', 'Nullable(String)', 'text'),
  c('start_time', TIME, 'time'),
  c('end_time', `Nullable(${TIME})`, 'time'),
  c('completion_start_time', `Nullable(${TIME})`, 'time'),
  c('model', 'Nullable(String)', 'text'),
  c('model_parameters', 'Nullable(String)', 'json'),
  c('input', 'Nullable(String)', 'json'),
  c('output', 'Nullable(String)', 'json'),
  c('metadata', 'Nullable(String)', 'json'),
  c('prompt_name', 'Nullable(String)', 'text'),
  c('prompt_version', 'Nullable(Int32)', 'number'),
  c('provided_usage_details', 'Nullable(String)', 'json'),
  c('provided_cost_details', 'Nullable(String)', 'json'),
  c('usage_details', 'Map(LowCardinality(String), UInt64)', 'usageMap'),
  c('cost_details', `Map(LowCardinality(String), ${COST})`, 'costMap'),
  c('input_usage', 'UInt64', 'number'),
  c('output_usage', 'UInt64', 'number'),
  c('total_usage', 'UInt64', 'number'),
  c('input_cost', `Nullable(${COST})`, 'decimal'),
  c('output_cost', `Nullable(${COST})`, 'decimal'),
  c('total_cost', `Nullable(${COST})`, 'decimal'),
  c('model_id', 'Nullable(String)', 'text'),
  c('usage_pricing_tier_id', 'Nullable(String)', 'text'),
  c('usage_pricing_tier_name', 'Nullable(String)', 'text'),
  c('prices_used', 'Nullable(String)', 'json'),
  c('cost_status', 'LowCardinality(String)', 'text'),
  c('unpriced_usage_keys', 'Array(String)', 'array'),
  c('usage_priced_as', 'Nullable(String)', 'json'),
  c('trace_name', 'Nullable(String)', 'text'),
  c('user_id', 'Nullable(String)', 'text'),
  c('session_id', 'Nullable(String)', 'text'),
  c('release', 'Nullable(String)', 'text'),
  c('trace_version', 'Nullable(String)', 'text'),
  c('tags', 'Array(String)', 'array'),
  c('created_at', TIME, 'time'),
  c('updated_at', TIME, 'time'),
];

export const TRACE_COLUMNS: ChColumn[] = [
  c('project_id', 'String', 'text'),
  c('id', 'String', 'text'),
  c('timestamp', TIME, 'time'),
  c('name', 'Nullable(String)', 'text'),
  c('user_id', 'Nullable(String)', 'text'),
  c('session_id', 'Nullable(String)', 'text'),
  c('release', 'Nullable(String)', 'text'),
  c('version', 'Nullable(String)', 'text'),
  c('external_id', 'Nullable(String)', 'text'),
  c('environment', 'LowCardinality(String)', 'text'),
  c('tags', 'Array(String)', 'array'),
  c('public', 'Bool', 'bool'),
  c('input', 'Nullable(String)', 'json'),
  c('output', 'Nullable(String)', 'json'),
  c('metadata', 'Nullable(String)', 'json'),
  c('created_at', TIME, 'time'),
  c('updated_at', TIME, 'time'),
];

export const SCORE_COLUMNS: ChColumn[] = [
  c('project_id', 'String', 'text'),
  c('id', 'String', 'text'),
  c('timestamp', TIME, 'time'),
  c('name', 'String', 'text'),
  c('value', 'Nullable(Float64)', 'number'),
  c('string_value', 'Nullable(String)', 'text'),
  c('data_type', 'LowCardinality(String)', 'text'),
  c('source', 'LowCardinality(String)', 'text'),
  c('trace_id', 'Nullable(String)', 'text'),
  c('observation_id', 'Nullable(String)', 'text'),
  c('session_id', 'Nullable(String)', 'text'),
  c('dataset_run_id', 'Nullable(String)', 'text'),
  c('config_id', 'Nullable(String)', 'text'),
  c('comment', 'Nullable(String)', 'text'),
  c('metadata', 'Nullable(String)', 'json'),
  c('environment', 'LowCardinality(String)', 'text'),
  c('queue_id', 'Nullable(String)', 'text'),
  c('execution_trace_id', 'Nullable(String)', 'text'),
  c('author_user_id', 'Nullable(String)', 'text'),
  c('created_at', TIME, 'time'),
  c('updated_at', TIME, 'time'),
];

/**
 * the change feed's one-letter entity names, the table each is exported to and its key. Observations
 * are kept in hour order (ClickHouse migration 2): a window reads its hours only, and the roll-ups
 * recompute an hour from its own rows. A row whose start moves to another hour gets a new key: the
 * exporter tombstones its old copy (the change carries the old start time). A bloom filter on the
 * id keeps reads by id from scanning the project. Partitioned by UTC day (ClickHouse migration 4):
 * parts of different days never overlap, so a FINAL read merges within a day only. Exported in
 * change order, parts of one partition-less table all spanned both ends of the key (each project's
 * rows of their hours), and FINAL cost 390 ms of a 570 ms scan of 7.6 M rows; by day, about 10%.
 */
export const EXPORTED = {
  o: {
    table: 'observations',
    columns: OBSERVATION_COLUMNS,
    orderBy: '(project_id, toStartOfHour(start_time), id)',
    indexes: ['INDEX id_bloom id TYPE bloom_filter(0.001) GRANULARITY 1'],
    partitionBy: 'toDate(start_time)',
  },
  t: { table: 'traces', columns: TRACE_COLUMNS, orderBy: '(project_id, id)', indexes: [], partitionBy: undefined },
  s: { table: 'scores', columns: SCORE_COLUMNS, orderBy: '(project_id, id)', indexes: [], partitionBy: undefined },
} as const;
export type ExportedEntity = keyof typeof EXPORTED;
