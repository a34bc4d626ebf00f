// The views of the metrics API as data: every dimension and measure with its SQL, its type and
// its flags, in one place. The parser validates names against these tables, the compiler copies
// their SQL, the schema endpoint lists them, so a new dimension is one entry here.
//
// SQL fragments are Tally's own text (never the caller's) over fixed aliases: `o` observations,
// `s` scores, `t` traces; relations `tr` (the score's trace) and `ob` (the score's observation).
import { MetricsAggregationValues } from '../../../../generated/enums.ts';

export type DimensionType = 'string' | 'number' | 'boolean' | 'string[]';
export type MeasureType = 'integer' | 'decimal' | 'number' | 'string';
export type ViewName = 'observations' | 'traces' | 'scores-numeric' | 'scores-categorical' | 'scores-boolean';
export type Relation = 'tr' | 'ob';

export interface Dimension {
  sql: string;
  type: DimensionType;
  highCardinality?: boolean;
  hidden?: boolean;
  /** a join the SQL needs */
  relation?: Relation;
  /** why Tally cannot answer it (a query naming it gets a 400 with this) */
  unavailable?: string;
  /** one row per key of a usage/cost map: the dimension is the key, the paired measure its value */
  pairExpand?: 'cost' | 'usage';
  /** the column of the hourly roll-up holding it, when the roll-up is keyed by it */
  rollup?: string;
}

export interface Measure {
  /** the value per row of the view, aggregated by the caller's aggregation */
  sql: string;
  type: MeasureType;
  relation?: Relation;
  unavailable?: string;
  /** the pairExpand dimension it needs (added automatically) */
  requiresDimension?: 'costType' | 'usageType';
  /** roll-up columns for the additive aggregations: Σ value and the count of rows where it is not null */
  rollup?: { sum: string; count: string };
}

export interface View {
  name: ViewName;
  /** FROM clause with the base alias */
  from: string;
  /** the alias whose project_id scopes the query */
  alias: 'o' | 's' | 't';
  /** SQL of the time column and the name a `datetime` filter may use for it */
  timeSql: string;
  timeColumn: string;
  /** condition every row of the view meets (score data types) */
  segment?: string;
  /** joins by relation */
  relations?: Partial<Record<Relation, string>>;
  dimensions: Record<string, Dimension>;
  measures: Record<string, Measure>;
  /** the jsonb column a `metadata` filter reads */
  metadataSql: string;
  /** the jsonb maps a pairExpand dimension walks (`pe.key`, `pe.value`) */
  pairExpandSql?: { cost: string; usage: string };
}

/** a lookup table without a prototype: a caller's `constructor` or `__proto__` names nothing */
const table = <T>(entries: Record<string, T>): Record<string, T> => Object.assign(Object.create(null) as Record<string, T>, entries);

const NOT_RECORDED_TOOLS = 'tool definitions and tool calls are not recorded';
const NOT_RECORDED_EXPERIMENTS = 'experiments (dataset runs) are not recorded';

const ms = (to: string, from: string) => `(extract(epoch from (${to} - ${from})) * 1000)`;

const observationDimensions: Record<string, Dimension> = table({
  id: { sql: 'o.id', type: 'string', highCardinality: true, hidden: true },
  traceId: { sql: 'o.trace_id', type: 'string', highCardinality: true },
  environment: { sql: 'o.environment', type: 'string', rollup: 'environment' },
  parentObservationId: { sql: 'o.parent_observation_id', type: 'string', highCardinality: true, hidden: true },
  isRootObservation: { sql: '(o.parent_observation_id is null)', type: 'boolean', hidden: true },
  type: { sql: 'o.type', type: 'string', rollup: 'type' },
  name: { sql: 'o.name', type: 'string', rollup: 'name' },
  level: { sql: 'o.level', type: 'string' },
  version: { sql: 'o.version', type: 'string' },
  userId: { sql: 'o.user_id', type: 'string', highCardinality: true },
  sessionId: { sql: 'o.session_id', type: 'string', highCardinality: true },
  tags: { sql: 'o.tags', type: 'string[]' },
  release: { sql: 'o.release', type: 'string' },
  traceName: { sql: 'o.trace_name', type: 'string' },
  traceRelease: { sql: 'o.release', type: 'string' },
  traceVersion: { sql: 'o.trace_version', type: 'string' },
  providedModelName: { sql: 'o.model', type: 'string', rollup: 'model' },
  promptName: { sql: 'o.prompt_name', type: 'string' },
  promptVersion: { sql: 'cast(o.prompt_version as text)', type: 'string' },
  startTimeMonth: { sql: `to_char(o.start_time at time zone 'UTC', 'YYYY-MM')`, type: 'string' },
  toolNames: { sql: 'null', type: 'string[]', unavailable: NOT_RECORDED_TOOLS },
  calledToolNames: { sql: 'null', type: 'string[]', unavailable: NOT_RECORDED_TOOLS },
  costType: { sql: 'pe.key', type: 'string', pairExpand: 'cost' },
  usageType: { sql: 'pe.key', type: 'string', pairExpand: 'usage' },
  experimentName: { sql: 'null', type: 'string', highCardinality: true, unavailable: NOT_RECORDED_EXPERIMENTS },
  experimentDatasetId: { sql: 'null', type: 'string', highCardinality: true, unavailable: NOT_RECORDED_EXPERIMENTS },
  experimentId: { sql: 'null', type: 'string', highCardinality: true, hidden: true, unavailable: NOT_RECORDED_EXPERIMENTS },
});

const latency = ms('o.end_time', 'o.start_time');
const observationMeasures: Record<string, Measure> = table({
  count: { sql: '1', type: 'integer', rollup: { sum: 'count', count: 'count' } },
  traceId: { sql: 'o.trace_id', type: 'string' },
  uniqueUserIds: { sql: 'o.user_id', type: 'string' },
  uniqueSessionIds: { sql: 'o.session_id', type: 'string' },
  latency: { sql: latency, type: 'integer', rollup: { sum: 'latency_ms', count: 'latency_count' } },
  streamingLatency: { sql: ms('o.end_time', 'o.completion_start_time'), type: 'integer' },
  // input_usage / output_usage are stored per row by the usage engine with the key-substring
  // rule (keys containing "input" / "output", case-insensitive); total_usage is the `total` key
  inputTokens: { sql: 'o.input_usage', type: 'integer', rollup: { sum: 'input_usage', count: 'count' } },
  outputTokens: { sql: 'o.output_usage', type: 'integer', rollup: { sum: 'output_usage', count: 'count' } },
  totalTokens: { sql: 'o.total_usage', type: 'integer', rollup: { sum: 'total_usage', count: 'count' } },
  outputTokensPerSecond: { sql: `(o.output_usage / nullif(${latency} / 1000, 0))`, type: 'decimal' },
  tokensPerSecond: { sql: `(o.total_usage / nullif(${latency} / 1000, 0))`, type: 'decimal' },
  inputCost: { sql: 'o.input_cost', type: 'decimal', rollup: { sum: 'input_cost', count: 'input_cost_count' } },
  outputCost: { sql: 'o.output_cost', type: 'decimal', rollup: { sum: 'output_cost', count: 'output_cost_count' } },
  totalCost: { sql: 'o.total_cost', type: 'decimal', rollup: { sum: 'total_cost', count: 'total_cost_count' } },
  timeToFirstToken: { sql: ms('o.completion_start_time', 'o.start_time'), type: 'integer' },
  countScores: { sql: '(select count(*) from scores sc where sc.project_id = o.project_id and sc.observation_id = o.id)', type: 'integer' },
  toolDefinitions: { sql: 'null', type: 'integer', unavailable: NOT_RECORDED_TOOLS },
  toolCalls: { sql: 'null', type: 'integer', unavailable: NOT_RECORDED_TOOLS },
  costByType: { sql: 'cast(pe.value as numeric)', type: 'decimal', requiresDimension: 'costType' },
  usageByType: { sql: 'cast(pe.value as numeric)', type: 'integer', requiresDimension: 'usageType' },
});

const traceTime = 't.timestamp';
const traceViewMeasures: Record<string, Measure> = table({
  count: { sql: '1', type: 'integer' },
  observationsCount: {
    sql: '(select count(*) from observations x where x.project_id = t.project_id and x.trace_id = t.id)',
    type: 'integer',
  },
  scoresCount: { sql: '(select count(*) from scores x where x.project_id = t.project_id and x.trace_id = t.id)', type: 'integer' },
  uniqueUserIds: { sql: 't.user_id', type: 'string' },
  uniqueSessionIds: { sql: 't.session_id', type: 'string' },
  latency: {
    sql: `(select ${ms('max(coalesce(x.end_time, x.start_time))', 'min(x.start_time)')} from observations x where x.project_id = t.project_id and x.trace_id = t.id)`,
    type: 'integer',
  },
  totalTokens: {
    sql: '(select sum(x.total_usage) from observations x where x.project_id = t.project_id and x.trace_id = t.id)',
    type: 'integer',
  },
  totalCost: {
    sql: '(select sum(x.total_cost) from observations x where x.project_id = t.project_id and x.trace_id = t.id)',
    type: 'decimal',
  },
});

const scoreDimensions = (valueDimension: Record<string, Dimension>): Record<string, Dimension> =>
  table({
    id: { sql: 's.id', type: 'string', highCardinality: true },
    environment: { sql: 's.environment', type: 'string' },
    name: { sql: 's.name', type: 'string' },
    evaluatorId: {
      sql: 'null',
      type: 'string',
      highCardinality: true,
      hidden: true,
      unavailable: 'the evaluator that wrote a score is not recorded',
    },
    source: { sql: 's.source', type: 'string' },
    dataType: { sql: 's.data_type', type: 'string' },
    traceId: { sql: 's.trace_id', type: 'string', highCardinality: true },
    configId: { sql: 's.config_id', type: 'string' },
    timestampMonth: { sql: `to_char(s.timestamp at time zone 'UTC', 'YYYY-MM')`, type: 'string' },
    timestampDay: { sql: `to_char(s.timestamp at time zone 'UTC', 'YYYY-MM-DD')`, type: 'string' },
    observationId: { sql: 's.observation_id', type: 'string', highCardinality: true },
    sessionId: { sql: 's.session_id', type: 'string', highCardinality: true },
    datasetRunId: { sql: 's.dataset_run_id', type: 'string', highCardinality: true, hidden: true },
    traceName: { sql: 'tr.name', type: 'string', relation: 'tr' },
    userId: { sql: 'tr.user_id', type: 'string', highCardinality: true, relation: 'tr' },
    tags: { sql: 'tr.tags', type: 'string[]', relation: 'tr' },
    traceRelease: { sql: 'tr.release', type: 'string', relation: 'tr' },
    traceVersion: { sql: 'tr.version', type: 'string', relation: 'tr' },
    observationName: { sql: 'ob.name', type: 'string', relation: 'ob' },
    observationModelName: { sql: 'ob.model', type: 'string', relation: 'ob' },
    observationPromptName: { sql: 'ob.prompt_name', type: 'string', relation: 'ob' },
    observationPromptVersion: { sql: 'cast(ob.prompt_version as text)', type: 'string', relation: 'ob' },
    experimentName: { sql: 'null', type: 'string', highCardinality: true, hidden: true, unavailable: NOT_RECORDED_EXPERIMENTS },
    experimentId: { sql: 'null', type: 'string', highCardinality: true, hidden: true, unavailable: NOT_RECORDED_EXPERIMENTS },
    ...valueDimension,
  });

const scoreRelations = {
  tr: 'left join traces tr on tr.project_id = s.project_id and tr.id = s.trace_id',
  ob: 'left join observations ob on ob.project_id = s.project_id and ob.id = s.observation_id',
};
const scoreView = (
  name: ViewName,
  segment: string,
  valueDimension: Record<string, Dimension>,
  measures: Record<string, Measure>,
): View => ({
  name,
  from: 'scores s',
  alias: 's',
  timeSql: 's.timestamp',
  timeColumn: 'timestamp',
  segment,
  relations: scoreRelations,
  dimensions: scoreDimensions(valueDimension),
  measures: table(measures),
  metadataSql: 's.metadata',
});

export const VIEWS = table<View>({
  observations: {
    name: 'observations',
    from: 'observations o',
    alias: 'o',
    timeSql: 'o.start_time',
    timeColumn: 'startTime',
    dimensions: observationDimensions,
    measures: observationMeasures,
    metadataSql: 'o.metadata',
    pairExpandSql: { cost: 'o.cost_details', usage: 'o.usage_details' },
  },
  traces: {
    name: 'traces',
    from: 'traces t',
    alias: 't',
    timeSql: traceTime,
    timeColumn: 'timestamp',
    dimensions: table({
      id: { sql: 't.id', type: 'string', highCardinality: true },
      name: { sql: 't.name', type: 'string' },
      tags: { sql: 't.tags', type: 'string[]' },
      userId: { sql: 't.user_id', type: 'string', highCardinality: true },
      sessionId: { sql: 't.session_id', type: 'string', highCardinality: true },
      release: { sql: 't.release', type: 'string' },
      version: { sql: 't.version', type: 'string' },
      environment: { sql: 't.environment', type: 'string' },
      timestampMonth: { sql: `to_char(t.timestamp at time zone 'UTC', 'YYYY-MM')`, type: 'string' },
    }),
    measures: traceViewMeasures,
    metadataSql: 't.metadata',
  },
  'scores-numeric': scoreView(
    'scores-numeric',
    `s.data_type in ('NUMERIC', 'BOOLEAN')`,
    { value: { sql: 's.value', type: 'number' } },
    { count: { sql: '1', type: 'integer' }, value: { sql: 's.value', type: 'number' } },
  ),
  'scores-categorical': scoreView(
    'scores-categorical',
    `s.data_type = 'CATEGORICAL'`,
    { stringValue: { sql: 's.string_value', type: 'string' } },
    { count: { sql: '1', type: 'integer' } },
  ),
  'scores-boolean': scoreView(
    'scores-boolean',
    `s.data_type = 'BOOLEAN'`,
    { booleanValue: { sql: '(s.value = 1)', type: 'boolean' } },
    { count: { sql: '1', type: 'integer' }, value: { sql: 's.value', type: 'number' } },
  ),
}) as Record<ViewName, View>;

/** the views of each API version */
export const V2_VIEWS: ViewName[] = ['observations', 'scores-numeric', 'scores-categorical', 'scores-boolean'];
export const V1_VIEWS: ViewName[] = ['traces', ...V2_VIEWS];

export const AGGREGATIONS = MetricsAggregationValues;
export type Aggregation = (typeof AGGREGATIONS)[number];
export const STRING_AGGREGATIONS: Aggregation[] = ['count', 'uniq'];
export const aggregationsFor = (m: Measure): readonly Aggregation[] => (m.type === 'string' ? STRING_AGGREGATIONS : AGGREGATIONS);
