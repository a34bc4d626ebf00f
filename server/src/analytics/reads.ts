// Rows read back from ClickHouse, for what PostgreSQL no longer holds (TALLY_POSTGRES_RETENTION_DAYS):
// the same row shapes store/ reads from PostgreSQL, so one mapper (store's fromRow) makes records
// of both. Timestamps come as ISO text, decimals and 64-bit integers as text (no rounding), JSON
// columns as the text PostgreSQL exported.
import type { ObservationRecord, TraceRecord } from '../domain/ingestion/types.ts';
import { EXPORTED, type ExportedEntity } from '../domain/analytics/tables.ts';
import { type Bind, filterConditionClickHouse } from '../domain/filters/compile-clickhouse.ts';
import { OBSERVATION_FILTER_COLUMNS_SQL } from '../domain/filters/observation-columns.ts';
import { type ObservationFilter, fromRow as observationFromRow, type ObservationRow } from '../store/observations.ts';
import { type ScoreFilter, fromRow as scoreFromRow, type ScoreRow, type StoredScore } from '../store/scores.ts';
import { fromRow as traceFromRow, type TraceRow } from '../store/traces.ts';
import type { TraceListFilter, TraceOrder, TraceTotals } from '../domain/traces/list.ts';
import type { Analytics } from './clickhouse.ts';
import { chTime } from './rows.ts';

const READ_SETTINGS = {
  date_time_output_format: 'iso' as const,
  output_format_json_quote_decimals: 1 as const,
  output_format_json_quote_64bit_integers: 1 as const,
};

const ready = new WeakSet<Analytics>();
/** the exporter creates the tables on its first round; before that, ClickHouse holds no row */
async function schemaReady(a: Analytics): Promise<boolean> {
  if (ready.has(a)) return true;
  const rs = await a.client.query({
    query: 'SELECT count() AS n FROM system.tables WHERE database = {d:String} AND name = {t:String}',
    query_params: { d: a.database, t: 'schema_versions' },
    format: 'JSONEachRow',
  });
  const [row] = await rs.json<{ n: string | number }>();
  if (Number(row?.n ?? 0) > 0) ready.add(a);
  return ready.has(a);
}

/** the entity's rows matching `where` (a condition on bound parameters, then ORDER BY/LIMIT if any), latest version, deleted ones dropped */
async function rows(
  a: Analytics,
  entity: ExportedEntity,
  where: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
  const { table, columns } = EXPORTED[entity];
  if (!(await schemaReady(a))) return [];
  const rs = await a.client.query({
    query: `SELECT ${columns.map((c) => c.name).join(', ')} FROM ${a.database}.${table} FINAL WHERE ${where}`,
    query_params: params,
    format: 'JSONEachRow',
    clickhouse_settings: READ_SETTINGS,
  });
  const out = await rs.json<Record<string, unknown>>();
  // as PostgreSQL's driver gives them: JSON columns parsed (they were exported as their text),
  // the numeric maps' values as numbers (jsonb numbers read as doubles there too)
  for (const r of out)
    for (const c of columns) {
      const v = r[c.name];
      if (c.from === 'json' && typeof v === 'string') r[c.name] = JSON.parse(v);
      else if ((c.from === 'usageMap' || c.from === 'costMap') && v && typeof v === 'object')
        r[c.name] = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, Number(x)]));
    }
  return out;
}

// what ClickHouse does not keep: the merge's per-field event times (a late event wins every field it sets)
const withoutMergeState = (r: Record<string, unknown>) => ({ ...r, revision: 0, field_event_times: {} });

export async function observationsFromClickHouse(a: Analytics, projectId: string, ids: string[]): Promise<ObservationRecord[]> {
  if (!ids.length) return [];
  const found = await rows(a, 'o', 'project_id = {p:String} AND id IN {ids:Array(String)}', { p: projectId, ids });
  return found.map((r) => observationFromRow(withoutMergeState(r) as unknown as ObservationRow));
}

export async function observationsOfTraceFromClickHouse(a: Analytics, projectId: string, traceId: string): Promise<ObservationRecord[]> {
  const found = await rows(a, 'o', 'project_id = {p:String} AND trace_id = {t:String} ORDER BY start_time, id', {
    p: projectId,
    t: traceId,
  });
  return found.map((r) => observationFromRow(withoutMergeState(r) as unknown as ObservationRow));
}

export async function tracesFromClickHouse(a: Analytics, projectId: string, ids: string[]): Promise<TraceRecord[]> {
  if (!ids.length) return [];
  const found = await rows(a, 't', 'project_id = {p:String} AND id IN {ids:Array(String)}', { p: projectId, ids });
  return found.map((r) => traceFromRow(withoutMergeState(r) as unknown as TraceRow));
}

export async function scoreFromClickHouse(a: Analytics, projectId: string, id: string): Promise<StoredScore | null> {
  const [r] = await rows(a, 's', 'project_id = {p:String} AND id = {id:String}', { p: projectId, id });
  // the score's trace fields (user, tags) are joined from PostgreSQL's trace on a live read; here they are not known
  return r ? scoreFromRow({ ...r, t_id: null } as unknown as ScoreRow) : null;
}

/** a statement's query parameters and the binder that hands out their {name:Type} placeholders */
function parameters(): { params: Record<string, unknown>; bind: Bind } {
  const params: Record<string, unknown> = {};
  let n = 0;
  const bind: Bind = (value, type) => {
    const name = `p${n++}`;
    params[name] = value;
    return `{${name}:${type}}`;
  };
  return { params, bind };
}

// PostgreSQL's latency: extract(epoch from end - start) * 1000, to the microsecond
const LATENCY_CH = '((toUnixTimestamp64Micro(end_time) - toUnixTimestamp64Micro(start_time)) / 1000)';

/**
 * GET /observations answered from ClickHouse: the same filters, order (newest first, then id) and
 * pages as store/observations.ts's listObservations over PostgreSQL, for a window that reaches
 * past PostgreSQL's retention.
 */
export async function listObservationsFromClickHouse(
  a: Analytics,
  projectId: string,
  f: ObservationFilter,
  page: number,
  limit: number,
): Promise<{ observations: ObservationRecord[]; total: number }> {
  if (!(await schemaReady(a))) return { observations: [], total: 0 };
  const { params, bind } = parameters();
  const where = [`project_id = ${bind(projectId, 'String')}`];
  const eq = (col: string, v: string | undefined) => v && where.push(`${col} = ${bind(v, 'String')}`);
  eq('type', f.type);
  eq('name', f.name);
  eq('user_id', f.userId);
  eq('level', f.level);
  eq('trace_id', f.traceId);
  eq('version', f.version);
  eq('parent_observation_id', f.parentObservationId);
  if (f.environment?.length) where.push(`has(${bind(f.environment, 'Array(String)')}, environment)`);
  if (f.fromStartTime) where.push(`start_time >= ${bind(chTime(f.fromStartTime), "DateTime64(6, 'UTC')")}`);
  if (f.toStartTime) where.push(`start_time < ${bind(chTime(f.toStartTime), "DateTime64(6, 'UTC')")}`);
  for (const filter of f.filters ?? []) {
    const column = OBSERVATION_FILTER_COLUMNS_SQL[filter.target]!;
    where.push(filterConditionClickHouse(filter, { sql: column === 'latency' ? LATENCY_CH : column }, bind));
  }
  const cond = where.join(' AND ');
  const found = await rows(a, 'o', `${cond} ORDER BY start_time DESC, id ASC LIMIT ${limit} OFFSET ${(page - 1) * limit}`, params);
  const counted = await a.client.query({
    query: `SELECT count() AS n FROM ${a.database}.observations FINAL WHERE ${cond}`,
    query_params: params,
    format: 'JSONEachRow',
  });
  const [c] = await counted.json<{ n: string | number }>();
  return {
    observations: found.map((r) => observationFromRow(withoutMergeState(r) as unknown as ObservationRow)),
    total: Number(c?.n ?? 0),
  };
}

const SCORE_OPERATORS: Record<NonNullable<ScoreFilter['value']>['operator'], string> = {
  '<': '<',
  '>': '>',
  '<=': '<=',
  '>=': '>=',
  '!=': '!=',
  '=': '=',
};

/**
 * The score lists (v1 and v2) answered from ClickHouse: the same filters, the trace's user, tags,
 * environment and session joined as store/scores.ts's listScores joins them, the same order and
 * pages, for a window reaching past PostgreSQL's retention.
 */
export async function listScoresFromClickHouse(
  a: Analytics,
  projectId: string,
  f: ScoreFilter,
  page: number,
  limit: number,
): Promise<{ scores: StoredScore[]; total: number }> {
  if (!(await schemaReady(a))) return { scores: [], total: 0 };
  const { params, bind } = parameters();
  const p = bind(projectId, 'String');
  const where = [`s.project_id = ${p}`];
  const list = (col: string, v: string[] | undefined) => v?.length && where.push(`has(${bind(v, 'Array(String)')}, ${col})`);
  const eq = (col: string, v: string | undefined) => v !== undefined && where.push(`${col} = ${bind(v, 'String')}`);
  if (f.traceOnly) where.push('s.trace_id IS NOT NULL');
  list('s.id', f.ids);
  eq('t.user_id', f.userId);
  eq('s.name', f.name);
  eq('s.config_id', f.configId);
  eq('s.queue_id', f.queueId);
  list('s.data_type', f.dataTypes);
  eq('s.source', f.source);
  if (f.traceTags?.length) where.push(`t.id IS NOT NULL AND hasAll(t.tags, ${bind(f.traceTags, 'Array(String)')})`);
  list('s.environment', f.environment);
  if (f.fromTimestamp) where.push(`s.timestamp >= ${bind(chTime(f.fromTimestamp), "DateTime64(6, 'UTC')")}`);
  if (f.toTimestamp) where.push(`s.timestamp < ${bind(chTime(f.toTimestamp), "DateTime64(6, 'UTC')")}`);
  if (f.value) where.push(`s.value ${SCORE_OPERATORS[f.value.operator]} ${bind(f.value.value, 'Float64')}`);
  list('s.session_id', f.sessionIds);
  list('s.trace_id', f.traceIds);
  list('s.dataset_run_id', f.datasetRunIds);
  list('s.observation_id', f.observationIds);
  const from = `${a.database}.scores AS s FINAL LEFT JOIN (SELECT id, user_id, tags, environment, session_id FROM ${a.database}.traces FINAL WHERE project_id = ${p}) AS t ON t.id = s.trace_id`;
  const cond = where.join(' AND ');
  const columns = EXPORTED.s.columns.map((c) => `s.${c.name} AS ${c.name}`).join(', ');
  const settings = { ...READ_SETTINGS, join_use_nulls: 1 as const };
  const rs = await a.client.query({
    query: `SELECT ${columns}, t.id AS t_id, t.user_id AS t_user_id, t.tags AS t_tags, t.environment AS t_environment, t.session_id AS t_session_id FROM ${from} WHERE ${cond} ORDER BY s.timestamp DESC, s.id ASC LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    query_params: params,
    format: 'JSONEachRow',
    clickhouse_settings: settings,
  });
  const found = await rs.json<Record<string, unknown>>();
  for (const r of found) if (typeof r.metadata === 'string') r.metadata = JSON.parse(r.metadata);
  const counted = await a.client.query({
    query: `SELECT count() AS n FROM ${from} WHERE ${cond}`,
    query_params: params,
    format: 'JSONEachRow',
    clickhouse_settings: settings,
  });
  const [c] = await counted.json<{ n: string | number }>();
  return { scores: found.map((r) => scoreFromRow(r as unknown as ScoreRow)), total: Number(c?.n ?? 0) };
}

/** GET /traces answered from ClickHouse: the same filters, order and pages as store/traces.ts's listTraces */
export async function listTracesFromClickHouse(
  a: Analytics,
  projectId: string,
  f: TraceListFilter,
  order: TraceOrder,
  page: number,
  limit: number,
): Promise<{ traces: TraceRecord[]; total: number }> {
  if (!(await schemaReady(a))) return { traces: [], total: 0 };
  const { params, bind } = parameters();
  const where = [`project_id = ${bind(projectId, 'String')}`];
  const eq = (col: string, v: string | undefined) => v && where.push(`${col} = ${bind(v, 'String')}`);
  eq('user_id', f.userId);
  eq('name', f.name);
  eq('session_id', f.sessionId);
  eq('version', f.version);
  eq('release', f.release);
  if (f.environment?.length) where.push(`has(${bind(f.environment, 'Array(String)')}, environment)`);
  if (f.tags?.length) where.push(`hasAll(tags, ${bind(f.tags, 'Array(String)')})`);
  if (f.fromTimestamp) where.push(`timestamp >= ${bind(chTime(f.fromTimestamp), "DateTime64(6, 'UTC')")}`);
  if (f.toTimestamp) where.push(`timestamp < ${bind(chTime(f.toTimestamp), "DateTime64(6, 'UTC')")}`);
  const cond = where.join(' AND ');
  const by = `${order.column} ${order.direction.toUpperCase()} NULLS LAST, id ASC`;
  const found = await rows(a, 't', `${cond} ORDER BY ${by} LIMIT ${limit} OFFSET ${(page - 1) * limit}`, params);
  const counted = await a.client.query({
    query: `SELECT count() AS n FROM ${a.database}.traces FINAL WHERE ${cond}`,
    query_params: params,
    format: 'JSONEachRow',
  });
  const [c] = await counted.json<{ n: string | number }>();
  return { traces: found.map((r) => traceFromRow(withoutMergeState(r) as unknown as TraceRow)), total: Number(c?.n ?? 0) };
}

/** per trace: its observations' ids (oldest first), Σ cost and time span, from ClickHouse */
export async function traceTotalsFromClickHouse(a: Analytics, projectId: string, traceIds: string[]): Promise<Map<string, TraceTotals>> {
  if (!traceIds.length || !(await schemaReady(a))) return new Map();
  const rs = await a.client.query({
    query: `SELECT trace_id, arrayMap(x -> x.2, arraySort(groupArray((start_time, id)))) AS ids, toString(sum(ifNull(total_cost, 0))) AS cost,
        toString(toUnixTimestamp64Milli(min(start_time))) AS first_ms, toString(toUnixTimestamp64Milli(max(ifNull(end_time, start_time)))) AS last_ms
      FROM ${a.database}.observations FINAL
      WHERE project_id = {p:String} AND trace_id IN {ids:Array(String)} GROUP BY trace_id`,
    query_params: { p: projectId, ids: traceIds },
    format: 'JSONEachRow',
  });
  const out = await rs.json<{ trace_id: string; ids: string[]; cost: string; first_ms: string; last_ms: string }>();
  return new Map(
    out.map((r) => [
      r.trace_id,
      { observationIds: r.ids, totalCost: Number(r.cost), firstStart: Number(r.first_ms), lastEnd: Number(r.last_ms) },
    ]),
  );
}

/** per trace: the ids of its scores, from ClickHouse */
export async function traceScoreIdsFromClickHouse(a: Analytics, projectId: string, traceIds: string[]): Promise<Map<string, string[]>> {
  if (!traceIds.length || !(await schemaReady(a))) return new Map();
  const rs = await a.client.query({
    query: `SELECT trace_id, arrayMap(x -> x.2, arraySort(groupArray((timestamp, id)))) AS ids FROM ${a.database}.scores FINAL
      WHERE project_id = {p:String} AND trace_id IN {ids:Array(String)} GROUP BY trace_id`,
    query_params: { p: projectId, ids: traceIds },
    format: 'JSONEachRow',
  });
  return new Map((await rs.json<{ trace_id: string; ids: string[] }>()).map((r) => [r.trace_id, r.ids]));
}
