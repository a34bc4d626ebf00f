// The views of the metrics API as data: every dimension and measure with what it computes, its
// type and its flags, in one place. The parser validates names against these tables, the
// compiler renders their expressions (compile.ts: the only place they become SQL), the schema
// endpoint lists them, so a new dimension is one entry here.
//
// Expressions (expressions.ts) read columns of the view's own table, of a relation (`tr` the
// score's trace, `ob` the score's observation) or of a related subquery.
import { MetricsAggregationValues, type ScoreDataType } from '../../../../generated/enums.ts';
import { col, LATENCY_MS, msBetween, NULL, ONE, type Expr } from './expressions.ts';
import { ROLLUP_SUMS, type RollupKey, type RollupSum } from './rollup.ts';

export type DimensionType = 'string' | 'number' | 'boolean' | 'string[]';
export type MeasureType = 'integer' | 'decimal' | 'number' | 'string';
export type ViewName = 'observations' | 'traces' | 'scores-numeric' | 'scores-categorical' | 'scores-boolean';
/** views only Tally's own queries name (INTERNAL_VIEWS) */
export type InternalViewName = 'trace-observations';
export type Relation = 'tr' | 'ob';

export interface Dimension {
  expr: Expr;
  type: DimensionType;
  highCardinality?: boolean;
  hidden?: boolean;
  /** a join the expression needs */
  relation?: Relation;
  /** why Tally cannot answer it (a query naming it gets a 400 with this) */
  unavailable?: string;
  /** one row per key of a usage/cost map: the dimension is the key, the paired measure its value */
  pairExpand?: 'cost' | 'usage';
  /** the roll-up key holding it, when the roll-ups are keyed by it */
  rollup?: RollupKey;
}

export interface Measure {
  /** the value per row of the view, aggregated by the caller's aggregation */
  expr: Expr;
  type: MeasureType;
  relation?: Relation;
  unavailable?: string;
  /** the pairExpand dimension it needs (added automatically) */
  requiresDimension?: 'costType' | 'usageType';
  /** its sum in the roll-ups, for the additive aggregations */
  rollup?: RollupSum;
}

/** a joined table: `<table> <relation>` on the same project, its id the base row's `key` */
export interface Join {
  table: 'traces' | 'observations';
  key: 'trace_id' | 'observation_id';
}

export interface View {
  name: ViewName | InternalViewName;
  /** the table the view reads, under `alias` */
  table: 'observations' | 'traces' | 'scores';
  /** the alias whose project_id scopes the query */
  alias: 'o' | 's' | 't';
  /** the time column, and the name a `datetime` filter may use for it (besides the column's own) */
  time: string;
  timeColumn: string;
  /** condition every row of the view meets: its `column` is one of `values` (score data types) */
  segment?: { column: string; values: readonly string[] };
  /** left joins by relation */
  relations?: Partial<Record<Relation, Join>>;
  /** an inner join every query of the view makes, under the alias `as`: the view's rows are the pairs */
  join?: Join & { as: string };
  dimensions: Record<string, Dimension>;
  measures: Record<string, Measure>;
  /** columns a filter may name besides the dimensions, the time column and metadata */
  filterColumns?: Record<string, { expr: Expr; type: 'datetime' }>;
  /** the jsonb column a `metadata` filter reads */
  metadata: string;
  /** the jsonb map columns a pairExpand dimension walks */
  pairExpand?: { cost: string; usage: string };
}

/** a lookup table without a prototype: a caller's `constructor` or `__proto__` names nothing */
const table = <T>(entries: Record<string, T>): Record<string, T> => Object.assign(Object.create(null) as Record<string, T>, entries);

const NOT_RECORDED_TOOLS = 'tool definitions and tool calls are not recorded';
const NOT_RECORDED_EXPERIMENTS = 'experiments (dataset runs) are not recorded';
const PAIR_KEY: Expr = { kind: 'pair', part: 'key' };
const PAIR_VALUE: Expr = { kind: 'cast', of: { kind: 'pair', part: 'value' }, to: 'numeric' };

const observationDimensions: Record<string, Dimension> = table({
  id: { expr: col('id'), type: 'string', highCardinality: true, hidden: true },
  traceId: { expr: col('trace_id'), type: 'string', highCardinality: true },
  environment: { expr: col('environment'), type: 'string', rollup: 'environment' },
  parentObservationId: { expr: col('parent_observation_id'), type: 'string', highCardinality: true, hidden: true },
  isRootObservation: { expr: { kind: 'isNull', of: col('parent_observation_id') }, type: 'boolean', hidden: true },
  type: { expr: col('type'), type: 'string', rollup: 'type' },
  name: { expr: col('name'), type: 'string', rollup: 'name' },
  level: { expr: col('level'), type: 'string' },
  version: { expr: col('version'), type: 'string' },
  userId: { expr: col('user_id'), type: 'string', highCardinality: true, rollup: 'user_id' },
  sessionId: { expr: col('session_id'), type: 'string', highCardinality: true },
  tags: { expr: col('tags'), type: 'string[]' },
  release: { expr: col('release'), type: 'string' },
  traceName: { expr: col('trace_name'), type: 'string' },
  traceRelease: { expr: col('release'), type: 'string' },
  traceVersion: { expr: col('trace_version'), type: 'string' },
  providedModelName: { expr: col('model'), type: 'string', rollup: 'model' },
  promptName: { expr: col('prompt_name'), type: 'string' },
  promptVersion: { expr: { kind: 'cast', of: col('prompt_version'), to: 'text' }, type: 'string' },
  startTimeMonth: { expr: { kind: 'calendar', of: col('start_time'), unit: 'month' }, type: 'string' },
  toolNames: { expr: NULL, type: 'string[]', unavailable: NOT_RECORDED_TOOLS },
  calledToolNames: { expr: NULL, type: 'string[]', unavailable: NOT_RECORDED_TOOLS },
  costType: { expr: PAIR_KEY, type: 'string', pairExpand: 'cost' },
  usageType: { expr: PAIR_KEY, type: 'string', pairExpand: 'usage' },
  experimentName: { expr: NULL, type: 'string', highCardinality: true, unavailable: NOT_RECORDED_EXPERIMENTS },
  experimentDatasetId: { expr: NULL, type: 'string', highCardinality: true, unavailable: NOT_RECORDED_EXPERIMENTS },
  experimentId: { expr: NULL, type: 'string', highCardinality: true, hidden: true, unavailable: NOT_RECORDED_EXPERIMENTS },
  // a Tally extension: how the cost came about (ingested, inferred, partial, unpriced, none), so a
  // dashboard can count and weigh what has no price
  costStatus: { expr: col('cost_status'), type: 'string' },
});

/** a measure the roll-ups keep: its value per row is the one they sum */
const rolledUp = (k: Exclude<keyof typeof ROLLUP_SUMS, 'count'>) => ({ expr: ROLLUP_SUMS[k].value, rollup: ROLLUP_SUMS[k] });

const observationMeasures: Record<string, Measure> = table({
  count: { expr: ONE, type: 'integer', rollup: ROLLUP_SUMS.count },
  traceId: { expr: col('trace_id'), type: 'string' },
  uniqueUserIds: { expr: col('user_id'), type: 'string' },
  uniqueSessionIds: { expr: col('session_id'), type: 'string' },
  latency: { ...rolledUp('latency'), type: 'integer' },
  streamingLatency: { expr: msBetween(col('completion_start_time'), col('end_time')), type: 'integer' },
  // input_usage / output_usage are stored per row by the usage engine with the key-substring
  // rule (keys containing "input" / "output", case-insensitive); total_usage is the `total` key
  inputTokens: { ...rolledUp('inputTokens'), type: 'integer' },
  outputTokens: { ...rolledUp('outputTokens'), type: 'integer' },
  totalTokens: { ...rolledUp('totalTokens'), type: 'integer' },
  outputTokensPerSecond: { expr: { kind: 'perSecond', of: col('output_usage'), ms: LATENCY_MS }, type: 'decimal' },
  tokensPerSecond: { expr: { kind: 'perSecond', of: col('total_usage'), ms: LATENCY_MS }, type: 'decimal' },
  inputCost: { ...rolledUp('inputCost'), type: 'decimal' },
  outputCost: { ...rolledUp('outputCost'), type: 'decimal' },
  totalCost: { ...rolledUp('totalCost'), type: 'decimal' },
  timeToFirstToken: { expr: msBetween(col('start_time'), col('completion_start_time')), type: 'integer' },
  countScores: {
    expr: { kind: 'related', table: 'scores', alias: 'sc', key: 'observation_id', value: { kind: 'aggregate', fn: 'count' } },
    type: 'integer',
  },
  toolDefinitions: { expr: NULL, type: 'integer', unavailable: NOT_RECORDED_TOOLS },
  toolCalls: { expr: NULL, type: 'integer', unavailable: NOT_RECORDED_TOOLS },
  costByType: { expr: PAIR_VALUE, type: 'decimal', requiresDimension: 'costType' },
  usageByType: { expr: PAIR_VALUE, type: 'integer', requiresDimension: 'usageType' },
});

/** one value over the trace's observations (as `x`) */
const overObservations = (value: Expr): Expr => ({ kind: 'related', table: 'observations', alias: 'x', key: 'trace_id', value });
const x = (name: string) => col(name, 'x');
const traceViewMeasures: Record<string, Measure> = table({
  count: { expr: ONE, type: 'integer' },
  observationsCount: { expr: overObservations({ kind: 'aggregate', fn: 'count' }), type: 'integer' },
  scoresCount: {
    expr: { kind: 'related', table: 'scores', alias: 'x', key: 'trace_id', value: { kind: 'aggregate', fn: 'count' } },
    type: 'integer',
  },
  uniqueUserIds: { expr: col('user_id'), type: 'string' },
  uniqueSessionIds: { expr: col('session_id'), type: 'string' },
  // from the first start to the last end (or start, for an observation without an end)
  latency: {
    expr: overObservations(
      msBetween(
        { kind: 'aggregate', fn: 'min', of: x('start_time') },
        { kind: 'aggregate', fn: 'max', of: { kind: 'coalesce', of: [x('end_time'), x('start_time')] } },
      ),
    ),
    type: 'integer',
  },
  totalTokens: { expr: overObservations({ kind: 'aggregate', fn: 'sum', of: x('total_usage') }), type: 'integer' },
  totalCost: { expr: overObservations({ kind: 'aggregate', fn: 'sum', of: x('total_cost') }), type: 'decimal' },
});

const tr = (name: string) => col(name, 'tr');
const ob = (name: string) => col(name, 'ob');
const scoreDimensions = (valueDimension: Record<string, Dimension>): Record<string, Dimension> =>
  table({
    id: { expr: col('id'), type: 'string', highCardinality: true },
    environment: { expr: col('environment'), type: 'string' },
    name: { expr: col('name'), type: 'string' },
    evaluatorId: {
      expr: NULL,
      type: 'string',
      highCardinality: true,
      hidden: true,
      unavailable: 'the evaluator that wrote a score is not recorded',
    },
    source: { expr: col('source'), type: 'string' },
    dataType: { expr: col('data_type'), type: 'string' },
    traceId: { expr: col('trace_id'), type: 'string', highCardinality: true },
    configId: { expr: col('config_id'), type: 'string' },
    timestampMonth: { expr: { kind: 'calendar', of: col('timestamp'), unit: 'month' }, type: 'string' },
    timestampDay: { expr: { kind: 'calendar', of: col('timestamp'), unit: 'day' }, type: 'string' },
    observationId: { expr: col('observation_id'), type: 'string', highCardinality: true },
    sessionId: { expr: col('session_id'), type: 'string', highCardinality: true },
    datasetRunId: { expr: col('dataset_run_id'), type: 'string', highCardinality: true, hidden: true },
    traceName: { expr: tr('name'), type: 'string', relation: 'tr' },
    userId: { expr: tr('user_id'), type: 'string', highCardinality: true, relation: 'tr' },
    tags: { expr: tr('tags'), type: 'string[]', relation: 'tr' },
    traceRelease: { expr: tr('release'), type: 'string', relation: 'tr' },
    traceVersion: { expr: tr('version'), type: 'string', relation: 'tr' },
    observationName: { expr: ob('name'), type: 'string', relation: 'ob' },
    observationModelName: { expr: ob('model'), type: 'string', relation: 'ob' },
    observationPromptName: { expr: ob('prompt_name'), type: 'string', relation: 'ob' },
    observationPromptVersion: { expr: { kind: 'cast', of: ob('prompt_version'), to: 'text' }, type: 'string', relation: 'ob' },
    experimentName: { expr: NULL, type: 'string', highCardinality: true, hidden: true, unavailable: NOT_RECORDED_EXPERIMENTS },
    experimentId: { expr: NULL, type: 'string', highCardinality: true, hidden: true, unavailable: NOT_RECORDED_EXPERIMENTS },
    ...valueDimension,
  });

const scoreRelations: View['relations'] = {
  tr: { table: 'traces', key: 'trace_id' },
  ob: { table: 'observations', key: 'observation_id' },
};
const scoreView = (
  name: ViewName,
  dataTypes: readonly ScoreDataType[],
  valueDimension: Record<string, Dimension>,
  measures: Record<string, Measure>,
): View => ({
  name,
  table: 'scores',
  alias: 's',
  time: 'timestamp',
  timeColumn: 'timestamp',
  segment: { column: 'data_type', values: dataTypes },
  relations: scoreRelations,
  dimensions: scoreDimensions(valueDimension),
  measures: table(measures),
  metadata: 'metadata',
});

export const VIEWS = table<View>({
  observations: {
    name: 'observations',
    table: 'observations',
    alias: 'o',
    time: 'start_time',
    timeColumn: 'startTime',
    dimensions: observationDimensions,
    measures: observationMeasures,
    metadata: 'metadata',
    pairExpand: { cost: 'cost_details', usage: 'usage_details' },
  },
  traces: {
    name: 'traces',
    table: 'traces',
    alias: 't',
    time: 'timestamp',
    timeColumn: 'timestamp',
    dimensions: table({
      id: { expr: col('id'), type: 'string', highCardinality: true },
      name: { expr: col('name'), type: 'string' },
      tags: { expr: col('tags'), type: 'string[]' },
      userId: { expr: col('user_id'), type: 'string', highCardinality: true, rollup: 'user_id' },
      sessionId: { expr: col('session_id'), type: 'string', highCardinality: true },
      release: { expr: col('release'), type: 'string' },
      version: { expr: col('version'), type: 'string' },
      environment: { expr: col('environment'), type: 'string' },
      timestampMonth: { expr: { kind: 'calendar', of: col('timestamp'), unit: 'month' }, type: 'string' },
    }),
    measures: traceViewMeasures,
    metadata: 'metadata',
  },
  'scores-numeric': scoreView(
    'scores-numeric',
    ['NUMERIC', 'BOOLEAN'],
    { value: { expr: col('value'), type: 'number' } },
    { count: { expr: ONE, type: 'integer' }, value: { expr: col('value'), type: 'number' } },
  ),
  'scores-categorical': scoreView(
    'scores-categorical',
    ['CATEGORICAL'],
    { stringValue: { expr: col('string_value'), type: 'string' } },
    { count: { expr: ONE, type: 'integer' } },
  ),
  'scores-boolean': scoreView(
    'scores-boolean',
    ['BOOLEAN'],
    { booleanValue: { expr: { kind: 'equals', of: col('value'), value: 1 }, type: 'boolean' } },
    { count: { expr: ONE, type: 'integer' }, value: { expr: col('value'), type: 'number' } },
  ),
}) as Record<ViewName, View>;

/**
 * `trace-observations`: every observation paired with its trace (GET /api/public/metrics/daily:
 * the observations of the traces that match, by their own start time). Its filter columns are
 * the traces view's, read from the trace.
 */
export const INTERNAL_VIEWS = table<View>({
  'trace-observations': {
    name: 'trace-observations',
    table: 'observations',
    alias: 'o',
    time: 'start_time',
    timeColumn: 'startTime',
    join: { as: 'tr', table: 'traces', key: 'trace_id' },
    dimensions: table({
      providedModelName: observationDimensions.providedModelName!,
      name: { expr: tr('name'), type: 'string' },
      userId: { expr: tr('user_id'), type: 'string' },
      tags: { expr: tr('tags'), type: 'string[]' },
      environment: { expr: tr('environment'), type: 'string' },
    }),
    filterColumns: { timestamp: { expr: tr('timestamp'), type: 'datetime' } },
    measures: table(
      Object.fromEntries(
        ['count', 'traceId', 'inputTokens', 'outputTokens', 'totalTokens', 'totalCost'].map((m) => [m, observationMeasures[m]!]),
      ),
    ),
    metadata: 'metadata',
  },
}) as Record<InternalViewName, View>;

/** the views of each API version */
export const V2_VIEWS: ViewName[] = ['observations', 'scores-numeric', 'scores-categorical', 'scores-boolean'];
export const V1_VIEWS: ViewName[] = ['traces', ...V2_VIEWS];

export const AGGREGATIONS = MetricsAggregationValues;
export type Aggregation = (typeof AGGREGATIONS)[number];
export const STRING_AGGREGATIONS: Aggregation[] = ['count', 'uniq'];
export const aggregationsFor = (m: Measure): readonly Aggregation[] => (m.type === 'string' ? STRING_AGGREGATIONS : AGGREGATIONS);
