// ClickHouse schema migrations: versioned, recorded in <database>.schema_versions, each statement
// idempotent (IF NOT EXISTS), run at start under PostgreSQL's start-up lock so instances that
// start together apply them once. On a cluster (TALLY_CLICKHOUSE_CLUSTER) every statement runs
// ON CLUSTER: each table is a replicated `<name>_local` on every node plus a Distributed `<name>`
// over them, sharded by project, so one project's rows (and every version of one row) share a
// shard and FINAL deduplicates them there.
import type { Logger } from '../logger.ts';
import type { Analytics } from './clickhouse.ts';
import { type ChColumn, EXPORTED } from '../domain/analytics/tables.ts';
import {
  boundColumnDefinitions,
  CH_ROLLUP_TABLES,
  recomputeDays,
  recomputeHours,
  recomputeUserDays,
  rollupTable,
} from '../domain/metrics/clickhouse-rollup.ts';

export interface SchemaContext {
  database: string;
  cluster: string | null;
}

const onCluster = (s: SchemaContext) => (s.cluster ? ` ON CLUSTER ${s.cluster}` : '');

interface TableOptions {
  versioned?: boolean;
  indexes?: readonly string[];
  settings?: string;
  partitionBy?: string;
}

/** a replacing table: one row per key once merged, the highest _version kept */
function replacingTable(s: SchemaContext, name: string, columns: string[], orderBy: string, opts: TableOptions = {}): string[] {
  const versioned = opts.versioned ?? true;
  const body = `(${[...columns, ...(opts.indexes ?? [])].join(', ')})`;
  const args = versioned ? '_version, _deleted' : '';
  const settings = `${opts.partitionBy ? ` PARTITION BY ${opts.partitionBy}` : ''}${opts.settings ? ` SETTINGS ${opts.settings}` : ''}`;
  if (!s.cluster)
    return [`CREATE TABLE IF NOT EXISTS ${s.database}.${name} ${body} ENGINE = ReplacingMergeTree(${args}) ORDER BY ${orderBy}${settings}`];
  const local = `${name}_local`;
  const path = `'/clickhouse/tables/{shard}/${s.database}/${local}', '{replica}'`;
  return [
    `CREATE TABLE IF NOT EXISTS ${s.database}.${local}${onCluster(s)} ${body} ENGINE = ReplicatedReplacingMergeTree(${path}${versioned ? `, ${args}` : ''}) ORDER BY ${orderBy}${settings}`,
    `CREATE TABLE IF NOT EXISTS ${s.database}.${name}${onCluster(s)} AS ${s.database}.${local} ENGINE = Distributed(${s.cluster}, ${s.database}, ${local}, cityHash64(project_id))`,
  ];
}

const columnsOf = (cols: ChColumn[]) => [...cols.map((c) => `${c.name} ${c.type}`), '_version UInt64', '_deleted UInt8'];

export interface ClickHouseMigration {
  version: number;
  name: string;
  /** each statement idempotent */
  statements?: (s: SchemaContext) => string[];
  /** steps that look at the database first, so that running them again after a crash is safe */
  run?: (a: Analytics, s: SchemaContext, versions: RollupVersions) => Promise<void>;
}

/**
 * Runs `fn` with a roll-up version from the change feed's sequence, holding the lock the
 * exporters' recomputes take (PostgreSQL's advisory lock): a recompute in a migration must lose to
 * any an exporter makes after it, and win over those before.
 */
export type RollupVersions = (fn: (version: bigint) => Promise<void>) => Promise<void>;

export const CLICKHOUSE_MIGRATIONS: ClickHouseMigration[] = [
  {
    version: 1,
    name: 'observations, traces and scores',
    statements: (s) => Object.values(EXPORTED).flatMap((e) => replacingTable(s, e.table, columnsOf([...e.columns]), '(project_id, id)')),
  },
  { version: 2, name: 'observations in hour order; hourly and daily roll-ups', run: (a, s) => dayOrderAndRollups(a, s) },
  { version: 3, name: 'roll-ups: min and max per group; day × model × user roll-up', run: (a, s, v) => boundsAndUserRollup(a, s, v) },
  {
    version: 4,
    name: 'observations partitioned by day',
    run: async (a, s) => {
      if (!(await tableKeys(a, s, OBSERVATIONS.table))?.partition.includes('start_time')) await rebuildObservations(a, s);
    },
  },
];

/** settings of a statement that writes observations: an export or a copy may span any number of days (partitions) */
export const OBSERVATION_WRITE_SETTINGS = { max_partitions_per_insert_block: '0' } as const;

const OBSERVATIONS = EXPORTED.o;
const ROLLUP_SETTINGS = 'allow_nullable_key = 1';

/** the sorting and partition keys ClickHouse reports for one of Tally's tables (on a cluster, of its local table here), or null */
async function tableKeys(a: Analytics, s: SchemaContext, name: string): Promise<{ sorting: string; partition: string } | null> {
  const rs = await a.client.query({
    query: 'SELECT sorting_key, partition_key FROM system.tables WHERE database = {d:String} AND name = {t:String}',
    query_params: { d: s.database, t: s.cluster ? `${name}_local` : name },
    format: 'JSONEachRow',
  });
  const rows = await rs.json<{ sorting_key: string; partition_key: string }>();
  return rows[0] ? { sorting: rows[0].sorting_key ?? '', partition: rows[0].partition_key ?? '' } : null;
}

/**
 * observations rebuilt as EXPORTED.o declares them (a copy under FINAL, then a swap of names). Each
 * step looks first: a crash anywhere leaves either the old table with a partial copy beside it
 * (copied again) or the new one in place (the caller's check skips it).
 */
async function rebuildObservations(a: Analytics, s: SchemaContext): Promise<void> {
  const run = async (query: string) => {
    await a.client.command({
      query,
      clickhouse_settings: { ...OBSERVATION_WRITE_SETTINGS, ...(s.cluster ? { distributed_foreground_insert: 1 } : {}) },
    });
  };
  const db = s.database;
  const local = (n: string) => (s.cluster ? `${n}_local` : n);
  await run(`DROP TABLE IF EXISTS ${db}.${local('observations_v1')}${onCluster(s)}`);
  const next = 'observations_next';
  for (const q of replacingTable(s, next, columnsOf([...OBSERVATIONS.columns]), OBSERVATIONS.orderBy, {
    indexes: OBSERVATIONS.indexes,
    partitionBy: OBSERVATIONS.partitionBy,
  }))
    await run(q);
  // every version a row had is one row under FINAL; a copy sent twice is deduplicated like an export
  await run(`INSERT INTO ${db}.${next} SELECT * FROM ${db}.observations FINAL`);
  await run(
    `RENAME TABLE ${db}.${local('observations')} TO ${db}.${local('observations_v1')}, ${db}.${local(next)} TO ${db}.${local('observations')}${onCluster(s)}`,
  );
  // on a cluster the Distributed observations reads observations_local by name: the swapped one
  if (s.cluster) await run(`DROP TABLE IF EXISTS ${db}.${next}${onCluster(s)}`);
  await run(`DROP TABLE IF EXISTS ${db}.${local('observations_v1')}${onCluster(s)}`);
}

/** Migration 2: observations rebuilt in hour order, and the roll-ups created and filled from them */
async function dayOrderAndRollups(a: Analytics, s: SchemaContext): Promise<void> {
  const run = async (query: string, params?: Record<string, unknown>) => {
    await a.client.command({ query, query_params: params, clickhouse_settings: s.cluster ? { distributed_foreground_insert: 1 } : {} });
  };
  const db = s.database;
  if (!(await tableKeys(a, s, OBSERVATIONS.table))?.sorting.includes('start_time')) await rebuildObservations(a, s);
  for (const grain of ['hour', 'day'] as const) {
    const t = rollupTable(grain);
    for (const q of replacingTable(s, CH_ROLLUP_TABLES[grain], [...t.columns, '_version UInt64', '_deleted UInt8'], t.orderBy, {
      settings: ROLLUP_SETTINGS,
    }))
      await run(q);
  }
  const hours = recomputeHours(db, null, [], 0n);
  await run(hours.sql, hours.params);
  const days = recomputeDays(db, null, [], 0n);
  await run(days.sql, days.params);
}

/**
 * Migration 3: the hourly and daily roll-ups gain each measure's min and max (a histogram's
 * bounds), and observation_user_daily is created; then every hour, day and user day is recomputed
 * at a fresh version, so the groups written before have their bounds. ADD COLUMN IF NOT EXISTS and
 * the recompute (which reads the truth) make a second run after a crash harmless.
 */
async function boundsAndUserRollup(a: Analytics, s: SchemaContext, versions: RollupVersions): Promise<void> {
  const run = async (query: string, params?: Record<string, unknown>) => {
    await a.client.command({ query, query_params: params, clickhouse_settings: s.cluster ? { distributed_foreground_insert: 1 } : {} });
  };
  const db = s.database;
  const adds = boundColumnDefinitions()
    .map((c) => `ADD COLUMN IF NOT EXISTS ${c}`)
    .join(', ');
  for (const table of [CH_ROLLUP_TABLES.hour, CH_ROLLUP_TABLES.day]) {
    // on a cluster the local tables first, then the Distributed one over them
    if (s.cluster) await run(`ALTER TABLE ${db}.${table}_local${onCluster(s)} ${adds}`);
    await run(`ALTER TABLE ${db}.${table}${onCluster(s)} ${adds}`);
  }
  const t = rollupTable('user');
  for (const q of replacingTable(s, CH_ROLLUP_TABLES.user, [...t.columns, '_version UInt64', '_deleted UInt8'], t.orderBy, {
    settings: ROLLUP_SETTINGS,
  }))
    await run(q);
  await versions(async (version) => {
    for (const r of [recomputeHours(db, null, [], version), recomputeDays(db, null, [], version), recomputeUserDays(db, null, [], version)])
      await run(r.sql, r.params);
  });
}

/** the statements that create the database and the version table, before any migration */
export function bootstrapStatements(s: SchemaContext): string[] {
  return [
    `CREATE DATABASE IF NOT EXISTS ${s.database}${onCluster(s)}`,
    ...replacingTable(s, 'schema_versions', ['version UInt32', 'name String', "applied_at DateTime64(3, 'UTC')"], 'version', {
      versioned: false,
    }),
  ];
}

/** applies the migrations this database has not recorded; returns the versions applied */
export async function migrateClickHouse(a: Analytics, log: Logger, versions: RollupVersions): Promise<number[]> {
  const s: SchemaContext = { database: a.database, cluster: a.cluster };
  for (const statement of bootstrapStatements(s)) await a.client.command({ query: statement });
  const rs = await a.client.query({ query: `SELECT version FROM ${s.database}.schema_versions FINAL`, format: 'JSONEachRow' });
  const done = new Set((await rs.json<{ version: number }>()).map((r) => Number(r.version)));
  const applied: number[] = [];
  for (const m of CLICKHOUSE_MIGRATIONS) {
    if (done.has(m.version)) continue;
    for (const statement of m.statements?.(s) ?? []) await a.client.command({ query: statement });
    await m.run?.(a, s, versions);
    await a.client.insert({
      table: `${s.database}.schema_versions`,
      values: [{ version: m.version, name: m.name, applied_at: new Date().toISOString() }],
      format: 'JSONEachRow',
    });
    log.info({ version: m.version, name: m.name }, 'ClickHouse schema migration applied');
    applied.push(m.version);
  }
  return applied;
}
