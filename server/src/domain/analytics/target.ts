// Where analytics live: TALLY_CLICKHOUSE_URL read into a target. Unset keeps them in PostgreSQL
// (no target); `http(s)://user:password@host:port/database` is a ClickHouse server or cluster
// reached through @clickhouse/client; `chdb:<directory>` is the same engine embedded in the
// process (npm chdb), its tables kept in that directory.

export type ClickHouseTarget =
  | {
      kind: 'server';
      /** the server's address without credentials or database (http(s)://host:port) */
      url: string;
      username: string;
      password: string;
      database: string;
      /** TALLY_CLICKHOUSE_CLUSTER: create the schema ON CLUSTER, replicated and distributed */
      cluster: string | null;
    }
  | { kind: 'embedded'; path: string; database: string; cluster: null };

export class AnalyticsTargetError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** null when unset or blank; throws AnalyticsTargetError naming the variable when the value is unusable */
export function parseClickHouseTarget(url: string | undefined, cluster: string | undefined, cwd: string): ClickHouseTarget | null {
  const raw = url?.trim();
  const clusterName = cluster?.trim() || null;
  if (!raw) {
    if (clusterName) throw new AnalyticsTargetError('TALLY_CLICKHOUSE_CLUSTER is set but TALLY_CLICKHOUSE_URL is not');
    return null;
  }
  if (clusterName && !NAME.test(clusterName))
    throw new AnalyticsTargetError(`TALLY_CLICKHOUSE_CLUSTER must be a cluster name (letters, digits, _), got "${clusterName}"`);
  if (raw.startsWith('chdb:')) {
    const dir = raw.slice('chdb:'.length).replace(/^\/\/(?=\/)/, '');
    if (!dir) throw new AnalyticsTargetError('TALLY_CLICKHOUSE_URL=chdb:<directory> needs a directory (chdb:./.data/clickhouse)');
    if (clusterName)
      throw new AnalyticsTargetError('TALLY_CLICKHOUSE_CLUSTER applies to a ClickHouse server; the embedded engine (chdb:) has no cluster');
    return {
      kind: 'embedded',
      path: dir.startsWith('/') ? dir : `${cwd.replace(/\/$/, '')}/${dir.replace(/^\.\//, '')}`,
      database: 'tally',
      cluster: null,
    };
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new AnalyticsTargetError(
      'TALLY_CLICKHOUSE_URL must be http(s)://user:password@host:port/database or chdb:<directory>, and is not a URL',
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new AnalyticsTargetError(
      `TALLY_CLICKHOUSE_URL must start with http://, https:// or chdb:, got "${u.protocol}" (ClickHouse's native TCP protocol is not used)`,
    );
  const database = decodeURIComponent(u.pathname.replace(/^\//, '').replace(/\/$/, '')) || 'default';
  if (!NAME.test(database)) throw new AnalyticsTargetError(`TALLY_CLICKHOUSE_URL's database must be a plain name, got "${database}"`);
  if (u.search || u.hash) throw new AnalyticsTargetError('TALLY_CLICKHOUSE_URL takes no query string or fragment');
  return {
    kind: 'server',
    url: `${u.protocol}//${u.host}`,
    username: decodeURIComponent(u.username) || 'default',
    password: decodeURIComponent(u.password),
    database,
    cluster: clusterName,
  };
}

/** the target as a log or health line may show it: never the password */
export const describeTarget = (t: ClickHouseTarget) =>
  t.kind === 'embedded'
    ? `embedded ClickHouse (chdb) in ${t.path}`
    : `ClickHouse at ${t.url}/${t.database}${t.cluster ? ` on cluster ${t.cluster}` : ''}`;
