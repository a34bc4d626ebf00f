// TALLY_CLICKHOUSE_URL and TALLY_CLICKHOUSE_CLUSTER read at start, and the schema each target
// gets: a bad value stops the server naming the variable; a cluster gets replicated tables and a
// Distributed table sharded by project.
import { describe, expect, it } from 'vitest';
import { bootstrapStatements, CLICKHOUSE_MIGRATIONS } from '../../src/analytics/schema.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { describeTarget, parseClickHouseTarget } from '../../src/domain/analytics/target.ts';

describe('TALLY_CLICKHOUSE_URL', () => {
  it('unset or blank keeps analytics in PostgreSQL', () => {
    expect(parseClickHouseTarget(undefined, undefined, '/srv')).toBeNull();
    expect(parseClickHouseTarget('  ', undefined, '/srv')).toBeNull();
    expect(loadConfig({}).clickhouse).toBeNull();
  });

  it('reads a server URL with credentials and database, and never shows the password', () => {
    const t = parseClickHouseTarget('https://tally:s%40cret@ch.internal:8443/analytics', 'main', '/srv');
    expect(t).toEqual({
      kind: 'server',
      url: 'https://ch.internal:8443',
      username: 'tally',
      password: 's@cret',
      database: 'analytics',
      cluster: 'main',
    });
    expect(describeTarget(t!)).toBe('ClickHouse at https://ch.internal:8443/analytics on cluster main');
    expect(parseClickHouseTarget('http://ch:8123', undefined, '/srv')).toMatchObject({
      username: 'default',
      password: '',
      database: 'default',
    });
  });

  it('reads chdb:<directory>, relative to the working directory', () => {
    expect(parseClickHouseTarget('chdb:./.data/clickhouse', undefined, '/srv/tally')).toEqual({
      kind: 'embedded',
      path: '/srv/tally/.data/clickhouse',
      database: 'tally',
      cluster: null,
    });
    expect(parseClickHouseTarget('chdb:/var/lib/tally-ch', undefined, '/srv')).toMatchObject({ path: '/var/lib/tally-ch' });
  });

  it.each([
    ['chdb:', undefined, 'needs a directory'],
    ['tcp://ch:9000/db', undefined, 'must start with http://, https:// or chdb:'],
    ['not a url', undefined, 'is not a URL'],
    ['http://ch:8123/a-b', undefined, 'database must be a plain name'],
    ['http://ch:8123/db?secure=1', undefined, 'no query string'],
    ['chdb:/tmp/x', 'main', 'the embedded engine (chdb:) has no cluster'],
    [undefined, 'main', 'TALLY_CLICKHOUSE_CLUSTER is set but TALLY_CLICKHOUSE_URL is not'],
    ['http://ch:8123/db', 'bad name!', 'TALLY_CLICKHOUSE_CLUSTER must be a cluster name'],
  ])('refuses %s (cluster %s) at start, naming the variable', (url, cluster, message) => {
    expect(() => loadConfig({ TALLY_CLICKHOUSE_URL: url, TALLY_CLICKHOUSE_CLUSTER: cluster })).toThrow(ConfigError);
    expect(() => loadConfig({ TALLY_CLICKHOUSE_URL: url, TALLY_CLICKHOUSE_CLUSTER: cluster })).toThrow(message);
  });
});

describe('TALLY_POSTGRES_RETENTION_DAYS', () => {
  it('is off by default, and a whole number of days with ClickHouse', () => {
    expect(loadConfig({}).postgresRetentionDays).toBe(0);
    expect(loadConfig({ TALLY_CLICKHOUSE_URL: 'chdb:/tmp/x', TALLY_POSTGRES_RETENTION_DAYS: '30' }).postgresRetentionDays).toBe(30);
  });

  it.each([
    [{ TALLY_POSTGRES_RETENTION_DAYS: '30' }, 'needs TALLY_CLICKHOUSE_URL'],
    [{ TALLY_CLICKHOUSE_URL: 'chdb:/tmp/x', TALLY_POSTGRES_RETENTION_DAYS: '1.5' }, 'must be a whole number of days'],
    [{ TALLY_CLICKHOUSE_URL: 'chdb:/tmp/x', TALLY_POSTGRES_RETENTION_DAYS: '-1' }, 'must be a whole number of days'],
  ])('refuses %o at start', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('ClickHouse schema', () => {
  it('one node: replacing tables keyed by project and id, versioned, with a deletion mark', () => {
    const s = { database: 'tally', cluster: null };
    expect(bootstrapStatements(s)[0]).toBe('CREATE DATABASE IF NOT EXISTS tally');
    const ddl = CLICKHOUSE_MIGRATIONS[0]!.statements!(s);
    expect(ddl).toHaveLength(3);
    for (const table of ['observations', 'traces', 'scores']) {
      const d = ddl.find((x) => x.includes(`tally.${table} `))!;
      expect(d).toMatch(/^CREATE TABLE IF NOT EXISTS /);
      expect(d).toContain('ENGINE = ReplacingMergeTree(_version, _deleted) ORDER BY (project_id, id)');
    }
    expect(ddl[0]).toContain('total_cost Nullable(Decimal(38, 18))');
  });

  it('a cluster: every statement ON CLUSTER, replicated local tables, a Distributed table sharded by project', () => {
    const s = { database: 'tally', cluster: 'main' };
    expect(bootstrapStatements(s)[0]).toBe('CREATE DATABASE IF NOT EXISTS tally ON CLUSTER main');
    const ddl = CLICKHOUSE_MIGRATIONS[0]!.statements!(s);
    expect(ddl).toHaveLength(6);
    expect(ddl.every((d) => d.includes(' ON CLUSTER main '))).toBe(true);
    expect(ddl[0]).toContain(
      "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/tally/observations_local', '{replica}', _version, _deleted)",
    );
    expect(ddl[1]).toBe(
      'CREATE TABLE IF NOT EXISTS tally.observations ON CLUSTER main AS tally.observations_local ENGINE = Distributed(main, tally, observations_local, cityHash64(project_id))',
    );
  });
});
