// Observations at rest: batch load and upsert for ingestion, reads for the API.
import { observationFieldTimes, type StoredFieldTimes } from '../domain/ingestion/field-times.ts';
import type { ObservationRecord, ObservationType, CostStatus } from '../domain/ingestion/types.ts';
import { observationFilterSql } from './filter-sql.ts';
import type { CheckedFilter } from '../domain/filters/check.ts';
import {
  ConcurrentWriteError,
  num,
  prepared,
  sql,
  toDate,
  toDateOrNull,
  type Db,
  type Numeric,
  type RawBuilder,
  type Timestamp,
} from './sql.ts';
import { guardedUpdate, guardedUpsert, type Column } from './upsert.ts';
import { ROLLUP_SOURCE_COLUMNS, rollupCte } from './rollups.ts';

const COLUMNS: Column<ObservationRecord>[] = [
  { name: 'id', get: (r) => r.id, type: 'text' },
  { name: 'trace_id', get: (r) => r.traceId, type: 'text' },
  { name: 'parent_observation_id', get: (r) => r.parentObservationId, type: 'text' },
  { name: 'type', get: (r) => r.type, type: 'text' },
  { name: 'name', get: (r) => r.name, type: 'text' },
  { name: 'environment', get: (r) => r.environment, type: 'text' },
  { name: 'level', get: (r) => r.level, type: 'text' },
  { name: 'status_message', get: (r) => r.statusMessage, type: 'text' },
  { name: 'version', get: (r) => r.version, type: 'text' },
  { name: 'start_time', get: (r) => r.startTime, type: 'timestamptz' },
  { name: 'end_time', get: (r) => r.endTime, type: 'timestamptz' },
  { name: 'completion_start_time', get: (r) => r.completionStartTime, type: 'timestamptz' },
  { name: 'model', get: (r) => r.model, type: 'text' },
  { name: 'model_parameters', get: (r) => r.modelParameters, type: 'jsonb' },
  { name: 'input', get: (r) => r.input, type: 'jsonb' },
  { name: 'output', get: (r) => r.output, type: 'jsonb' },
  { name: 'metadata', get: (r) => r.metadata, type: 'jsonb' },
  { name: 'prompt_name', get: (r) => r.promptName, type: 'text' },
  { name: 'prompt_version', get: (r) => r.promptVersion, type: 'integer' },
  { name: 'provided_usage_details', get: (r) => r.providedUsageDetails, type: 'jsonb' },
  { name: 'provided_cost_details', get: (r) => r.providedCostDetails, type: 'jsonb' },
  { name: 'usage_details', get: (r) => r.usageDetails, type: 'jsonb' },
  { name: 'cost_details', get: (r) => r.costDetails, type: 'jsonb' },
  { name: 'input_usage', get: (r) => r.inputUsage, type: 'numeric' },
  { name: 'output_usage', get: (r) => r.outputUsage, type: 'numeric' },
  { name: 'total_usage', get: (r) => r.totalUsage, type: 'numeric' },
  { name: 'input_cost', get: (r) => r.inputCost, type: 'numeric' },
  { name: 'output_cost', get: (r) => r.outputCost, type: 'numeric' },
  { name: 'total_cost', get: (r) => r.totalCost, type: 'numeric' },
  { name: 'model_id', get: (r) => r.modelId, type: 'text' },
  { name: 'usage_pricing_tier_id', get: (r) => r.usagePricingTierId, type: 'text' },
  { name: 'usage_pricing_tier_name', get: (r) => r.usagePricingTierName, type: 'text' },
  { name: 'prices_used', get: (r) => r.pricesUsed, type: 'jsonb' },
  { name: 'cost_status', get: (r) => r.costStatus, type: 'text' },
  { name: 'unpriced_usage_keys', get: (r) => r.unpricedUsageKeys, type: 'text[]' },
  { name: 'usage_priced_as', get: (r) => r.usagePricedAs, type: 'jsonb' },
  { name: 'trace_name', get: (r) => r.traceName, type: 'text' },
  { name: 'user_id', get: (r) => r.userId, type: 'text' },
  { name: 'session_id', get: (r) => r.sessionId, type: 'text' },
  { name: 'release', get: (r) => r.release, type: 'text' },
  { name: 'trace_version', get: (r) => r.traceVersion, type: 'text' },
  { name: 'tags', get: (r) => r.tags, type: 'text[]' },
  { name: 'created_at', get: (r) => r.createdAt, type: 'timestamptz' },
  { name: 'updated_at', get: (r) => r.updatedAt, type: 'timestamptz' },
  { name: 'revision', get: (r) => r.revision + 1, type: 'integer' },
  { name: 'field_event_times', get: (r) => observationFieldTimes.encode(r.fieldTimes), type: 'jsonb' },
];

/** a row of `observations`, as selected or as to_jsonb gives it (store/existing.ts) */
export interface ObservationRow {
  project_id: string;
  id: string;
  trace_id: string | null;
  parent_observation_id: string | null;
  type: ObservationType;
  name: string | null;
  environment: string;
  level: string;
  status_message: string | null;
  version: string | null;
  start_time: Timestamp;
  end_time: Timestamp | null;
  completion_start_time: Timestamp | null;
  model: string | null;
  model_parameters: Record<string, unknown> | null;
  input: unknown;
  output: unknown;
  metadata: unknown;
  prompt_name: string | null;
  prompt_version: number | null;
  provided_usage_details: Record<string, number> | null;
  provided_cost_details: Record<string, number> | null;
  usage_details: Record<string, number>;
  cost_details: Record<string, number>;
  input_usage: Numeric;
  output_usage: Numeric;
  total_usage: Numeric;
  input_cost: Numeric | null;
  output_cost: Numeric | null;
  total_cost: Numeric | null;
  model_id: string | null;
  usage_pricing_tier_id: string | null;
  usage_pricing_tier_name: string | null;
  prices_used: Record<string, number> | null;
  cost_status: CostStatus;
  unpriced_usage_keys: string[];
  usage_priced_as: Record<string, string> | null;
  trace_name: string | null;
  user_id: string | null;
  session_id: string | null;
  release: string | null;
  trace_version: string | null;
  tags: string[];
  created_at: Timestamp;
  updated_at: Timestamp;
  revision: number;
  field_event_times: StoredFieldTimes | Record<string, number>;
}

export function fromRow(r: ObservationRow): ObservationRecord & { projectId: string } {
  return {
    projectId: r.project_id,
    id: r.id,
    traceId: r.trace_id,
    parentObservationId: r.parent_observation_id,
    type: r.type,
    name: r.name,
    environment: r.environment,
    level: r.level,
    statusMessage: r.status_message,
    version: r.version,
    startTime: toDate(r.start_time),
    endTime: toDateOrNull(r.end_time),
    completionStartTime: toDateOrNull(r.completion_start_time),
    model: r.model,
    modelParameters: r.model_parameters,
    input: r.input,
    output: r.output,
    metadata: r.metadata,
    promptName: r.prompt_name,
    promptVersion: r.prompt_version,
    providedUsageDetails: r.provided_usage_details,
    providedCostDetails: r.provided_cost_details,
    usageDetails: r.usage_details ?? {},
    costDetails: r.cost_details ?? {},
    inputUsage: Number(r.input_usage),
    outputUsage: Number(r.output_usage),
    totalUsage: Number(r.total_usage),
    inputCost: num(r.input_cost),
    outputCost: num(r.output_cost),
    totalCost: num(r.total_cost),
    modelId: r.model_id,
    usagePricingTierId: r.usage_pricing_tier_id,
    usagePricingTierName: r.usage_pricing_tier_name,
    pricesUsed: r.prices_used,
    costStatus: r.cost_status,
    unpricedUsageKeys: r.unpriced_usage_keys ?? [],
    usagePricedAs: r.usage_priced_as ?? null,
    traceName: r.trace_name,
    userId: r.user_id,
    sessionId: r.session_id,
    release: r.release,
    traceVersion: r.trace_version,
    tags: r.tags ?? [],
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
    revision: Number(r.revision ?? 0),
    fieldTimes: observationFieldTimes.decode(r.field_event_times),
  };
}

/**
 * Writes merged rows, each only over the revision it was read at (revision 0: only if no row has
 * its id yet), and moves the metrics roll-up with them: `before` are the stored rows they
 * replace. Throws ConcurrentWriteError when a row was changed concurrently (the transaction,
 * roll-up included, is then rolled back).
 */
export async function upsertObservations(
  db: Db,
  projectId: string,
  records: ObservationRecord[],
  before: ObservationRecord[],
  /** another write to run in the same statement (a CTE whose text depends on `key` only): the batch's evaluation jobs */
  also?: { key: string; cte: RawBuilder<unknown> },
): Promise<void> {
  if (!records.length) return;
  // zipJson: nothing joins on the written rows here (the roll-up only groups them)
  const { variant, ctes } = guardedUpsert(
    'observations',
    projectId,
    COLUMNS,
    records,
    (r) => r.revision > 0,
    ['id', ...ROLLUP_SOURCE_COLUMNS],
    { zipJson: true },
  );
  const { rows } = await prepared(
    `upsert_observations_${variant}${also ? `_${also.key}` : ''}`,
    sql`with ${ctes}, ${rollupCte(projectId, before)}${also ? sql`, ${also.cte}` : sql``} select id from written`,
  ).execute(db);
  if (rows.length !== records.length) throw new ConcurrentWriteError(`${records.length - rows.length} observations changed concurrently`);
}

export async function getObservation(db: Db, projectId: string, id: string) {
  const { rows } = await sql<ObservationRow>`select * from observations where project_id = ${projectId} and id = ${id}`.execute(db);
  return rows.length ? fromRow(rows[0]) : null;
}

export async function observationsOfTrace(db: Db, projectId: string, traceId: string) {
  const { rows } =
    await sql<ObservationRow>`select * from observations where project_id = ${projectId} and trace_id = ${traceId} order by start_time asc, id asc`.execute(
      db,
    );
  return rows.map(fromRow);
}

export interface ObservationFilter {
  type?: string;
  name?: string;
  userId?: string;
  level?: string;
  traceId?: string;
  version?: string;
  parentObservationId?: string;
  environment?: string[];
  fromStartTime?: Date;
  toStartTime?: Date;
  filters?: CheckedFilter[];
}

export async function listObservations(db: Db, projectId: string, f: ObservationFilter, page: number, limit: number) {
  const where = [sql`project_id = ${projectId}`];
  if (f.type) where.push(sql`type = ${f.type}`);
  if (f.name) where.push(sql`name = ${f.name}`);
  if (f.userId) where.push(sql`user_id = ${f.userId}`);
  if (f.level) where.push(sql`level = ${f.level}`);
  if (f.traceId) where.push(sql`trace_id = ${f.traceId}`);
  if (f.version) where.push(sql`version = ${f.version}`);
  if (f.parentObservationId) where.push(sql`parent_observation_id = ${f.parentObservationId}`);
  if (f.environment?.length) where.push(sql`environment = any(${f.environment})`);
  if (f.fromStartTime) where.push(sql`start_time >= ${f.fromStartTime}`);
  if (f.toStartTime) where.push(sql`start_time < ${f.toStartTime}`);
  for (const filter of f.filters ?? []) where.push(observationFilterSql(filter));
  const cond = sql.join(where, sql` and `);
  const [{ rows }, count] = await Promise.all([
    sql<ObservationRow>`select * from observations where ${cond} order by start_time desc, id asc limit ${limit} offset ${(page - 1) * limit}`.execute(
      db,
    ),
    sql<{ n: string }>`select count(*) as n from observations where ${cond}`.execute(db),
  ]);
  return { observations: rows.map(fromRow), total: Number(count.rows[0]!.n) };
}

// what a new pricing changes (ingestion/price.ts pricedRecord): a reprice writes these alone
const PRICING = new Set([
  'id',
  'provided_usage_details',
  'usage_details',
  'cost_details',
  'input_usage',
  'output_usage',
  'total_usage',
  'input_cost',
  'output_cost',
  'total_cost',
  'model_id',
  'usage_pricing_tier_id',
  'usage_pricing_tier_name',
  'prices_used',
  'cost_status',
  'unpriced_usage_keys',
  'usage_priced_as',
  'updated_at',
  'revision',
]);
const PRICING_COLUMNS = COLUMNS.filter((c) => PRICING.has(c.name));

/**
 * Writes new pricings of stored, locked observations (a reprice job) with the metrics roll-ups in
 * the same statement, as upsertObservations does; only the pricing columns travel (a fifth of a
 * full row, and none of its payloads).
 */
export async function updateObservationPricing(
  db: Db,
  projectId: string,
  records: ObservationRecord[],
  before: ObservationRecord[],
): Promise<void> {
  if (!records.length) return;
  const written = guardedUpdate('observations', projectId, PRICING_COLUMNS, records, ['id', ...ROLLUP_SOURCE_COLUMNS]);
  const { rows } = await prepared(
    'update_observation_pricing',
    sql`with ${written}, ${rollupCte(projectId, before)} select id from written`,
  ).execute(db);
  if (rows.length !== records.length) throw new ConcurrentWriteError(`${records.length - rows.length} observations changed concurrently`);
}

/** every column but the payloads (input, output), which pricing never reads: what a reprice job loads */
export const PRICING_READ_COLUMNS = COLUMNS.map((c) =>
  c.name === 'input' || c.name === 'output' ? `null::jsonb as ${c.name}` : `o.${c.name}`,
).join(', ');
