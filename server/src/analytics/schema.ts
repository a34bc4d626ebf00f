// ClickHouse schema migrations: versioned, recorded in <database>.schema_versions, each statement
// idempotent (IF NOT EXISTS), run at start under PostgreSQL's start-up lock so instances that
// start together apply them once. On a cluster (TALLY_CLICKHOUSE_CLUSTER) every statement runs
// ON CLUSTER: each table is a replicated `<name>_local` on every node plus a Distributed `<name>`
// over them, sharded by project, so one project's rows (and every version of one row) share a
// shard and FINAL deduplicates them there.
import type { Logger } from '../logger.ts';
import type { Analytics } from './clickhouse.ts';
import { type ChColumn, EXPORTED } from '../domain/analytics/tables.ts';

export interface SchemaContext {
  database: string;
  cluster: string | null;
}

const onCluster = (s: SchemaContext) => (s.cluster ? ` ON CLUSTER ${s.cluster}` : '');

/** a replacing table keyed by (project_id, id): one row per id once merged, the highest _version kept */
function replacingTable(s: SchemaContext, name: string, columns: string[], orderBy: string, versioned = true): string[] {
  const body = `(${columns.join(', ')})`;
  const args = versioned ? '_version, _deleted' : '';
  if (!s.cluster)
    return [`CREATE TABLE IF NOT EXISTS ${s.database}.${name} ${body} ENGINE = ReplacingMergeTree(${args}) ORDER BY ${orderBy}`];
  const local = `${name}_local`;
  const path = `'/clickhouse/tables/{shard}/${s.database}/${local}', '{replica}'`;
  return [
    `CREATE TABLE IF NOT EXISTS ${s.database}.${local}${onCluster(s)} ${body} ENGINE = ReplicatedReplacingMergeTree(${path}${versioned ? `, ${args}` : ''}) ORDER BY ${orderBy}`,
    `CREATE TABLE IF NOT EXISTS ${s.database}.${name}${onCluster(s)} AS ${s.database}.${local} ENGINE = Distributed(${s.cluster}, ${s.database}, ${local}, cityHash64(project_id))`,
  ];
}

const columnsOf = (cols: ChColumn[]) => [...cols.map((c) => `${c.name} ${c.type}`), '_version UInt64', '_deleted UInt8'];

export interface ClickHouseMigration {
  version: number;
  name: string;
  statements: (s: SchemaContext) => string[];
}

export const CLICKHOUSE_MIGRATIONS: ClickHouseMigration[] = [
  {
    version: 1,
    name: 'observations, traces and scores',
    statements: (s) => Object.values(EXPORTED).flatMap((e) => replacingTable(s, e.table, columnsOf([...e.columns]), '(project_id, id)')),
  },
];

/** the statements that create the database and the version table, before any migration */
export function bootstrapStatements(s: SchemaContext): string[] {
  return [
    `CREATE DATABASE IF NOT EXISTS ${s.database}${onCluster(s)}`,
    ...replacingTable(s, 'schema_versions', ['version UInt32', 'name String', "applied_at DateTime64(3, 'UTC')"], 'version', false),
  ];
}

/** applies the migrations this database has not recorded; returns the versions applied */
export async function migrateClickHouse(a: Analytics, log: Logger): Promise<number[]> {
  const s: SchemaContext = { database: a.database, cluster: a.cluster };
  for (const statement of bootstrapStatements(s)) await a.client.command({ query: statement });
  const rs = await a.client.query({ query: `SELECT version FROM ${s.database}.schema_versions FINAL`, format: 'JSONEachRow' });
  const done = new Set((await rs.json<{ version: number }>()).map((r) => Number(r.version)));
  const applied: number[] = [];
  for (const m of CLICKHOUSE_MIGRATIONS) {
    if (done.has(m.version)) continue;
    for (const statement of m.statements(s)) await a.client.command({ query: statement });
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
