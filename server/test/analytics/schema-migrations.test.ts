// ClickHouse's schema migrations on the embedded engine: a database made by migration 1 (observations
// keyed by id) is brought to migration 2 (observations in hour order, roll-ups) with its rows kept,
// deleted ones left behind and the roll-ups filled, and to migration 3 (each roll-up group's min and
// max, the day × model × user roll-up); running the migrations again changes nothing; a cluster gets
// the same steps ON CLUSTER.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Analytics, openClickHouse } from '../../src/analytics/clickhouse.ts';
import { bootstrapStatements, CLICKHOUSE_MIGRATIONS, migrateClickHouse } from '../../src/analytics/schema.ts';
import { createLogger } from '../../src/logger.ts';

describe('ClickHouse schema migrations (embedded)', () => {
  let dir: string;
  let a: Analytics;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tally-chdb-schema-'));
    a = openClickHouse({ kind: 'embedded', path: dir, database: 'tally', cluster: null });
  });
  afterAll(async () => {
    await a.client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rows = async <T>(query: string) => (await a.client.query({ query, format: 'JSONEachRow' })).json<T>();
  // the change feed's sequence, as the exporter hands it to a migration
  let sequence = 100n;
  const versions = async (fn: (v: bigint) => Promise<void>) => fn((sequence += 2n));

  it('brings a migration-1 database to hour order and fills the roll-ups, keeping every live row', async () => {
    const s = { database: 'tally', cluster: null };
    for (const q of bootstrapStatements(s)) await a.client.command({ query: q });
    for (const q of CLICKHOUSE_MIGRATIONS[0]!.statements!(s)) await a.client.command({ query: q });
    await a.client.insert({
      table: 'tally.schema_versions',
      values: [{ version: 1, name: 'v1', applied_at: '2026-11-25 00:00:00' }],
      format: 'JSONEachRow',
    });
    const obs = (id: string, start: string, cost: string, version: number, deleted = 0) => ({
      project_id: 'p1',
      id,
      type: 'GENERATION',
      environment: 'default',
      model: 'm',
      user_id: 'u1',
      start_time: start,
      total_cost: cost,
      _version: version,
      _deleted: deleted,
    });
    await a.client.insert({
      table: 'tally.observations',
      values: [
        obs('a', '2026-11-01 10:15:00', '1.5', 1),
        obs('a', '2026-11-01 10:15:00', '2.5', 2), // a's later version
        obs('b', '2026-11-01 11:00:00', '4', 3),
        obs('c', '2026-11-02 09:00:00', '8', 4),
        obs('c', '2026-11-02 09:00:00', '0', 5, 1), // c deleted
      ],
      format: 'JSONEachRow',
    });

    expect(await migrateClickHouse(a, createLogger('silent'), versions)).toEqual([2, 3, 4]);
    const [table] = await rows<{ sorting_key: string; partition_key: string }>(
      "SELECT sorting_key, partition_key FROM system.tables WHERE database = 'tally' AND name = 'observations'",
    );
    expect(table!.sorting_key).toBe('project_id, toStartOfHour(start_time), id');
    // by UTC day: a FINAL read merges within a day (migration 4)
    expect(table!.partition_key).toBe('toDate(start_time)');
    const days = await rows<{ p: string }>(
      "SELECT DISTINCT partition AS p FROM system.parts WHERE database = 'tally' AND table = 'observations' AND active ORDER BY p",
    );
    expect(days.map((d) => d.p)).toEqual(['2026-11-01']);
    expect(await rows('SELECT id, toString(total_cost) AS cost FROM tally.observations FINAL ORDER BY id')).toEqual([
      { id: 'a', cost: '2.5' },
      { id: 'b', cost: '4' },
    ]);
    expect(
      await rows(
        'SELECT toString(hour) AS hour, toString(count) AS n, toString(total_cost) AS cost FROM tally.observation_hourly FINAL ORDER BY hour',
      ),
    ).toEqual([
      { hour: '2026-11-01 10:00:00.000000', n: '1', cost: '2.5' },
      { hour: '2026-11-01 11:00:00.000000', n: '1', cost: '4' },
    ]);
    expect(
      await rows(
        'SELECT toString(toDate(day)) AS day, toString(count) AS n, toString(total_cost_min) AS lo, toString(total_cost_max) AS hi FROM tally.observation_daily FINAL',
      ),
    ).toEqual([{ day: '2026-11-01', n: '2', lo: '2.5', hi: '4' }]);
    expect(
      await rows(
        'SELECT toString(toDate(day)) AS day, model, user_id, toString(count) AS n, toString(total_cost) AS cost FROM tally.observation_user_daily FINAL',
      ),
    ).toEqual([{ day: '2026-11-01', model: 'm', user_id: 'u1', n: '2', cost: '6.5' }]);
    // no leftover of the rebuild
    const tables = await rows<{ name: string }>("SELECT name FROM system.tables WHERE database = 'tally' ORDER BY name");
    expect(tables.map((t) => t.name)).toEqual([
      'observation_daily',
      'observation_hourly',
      'observation_user_daily',
      'observations',
      'schema_versions',
      'scores',
      'traces',
    ]);

    // recorded: a second start applies nothing
    expect(await migrateClickHouse(a, createLogger('silent'), versions)).toEqual([]);
  });

  it('migration 3 over roll-ups made before it (no bounds) adds the columns and fills them; again, it changes nothing', async () => {
    const bounds = (
      await rows<{ name: string }>("SELECT name FROM system.columns WHERE database = 'tally' AND table = 'observation_hourly'")
    )
      .map((c) => c.name)
      .filter((n) => n.endsWith('_min') || n.endsWith('_max'));
    expect(bounds).toContain('latency_ms_min');
    expect(bounds).toContain('total_cost_max');
    for (const t of ['observation_hourly', 'observation_daily'])
      await a.client.command({ query: `ALTER TABLE tally.${t} ${bounds.map((b) => `DROP COLUMN ${b}`).join(', ')}` });
    await a.client.command({ query: 'DROP TABLE tally.observation_user_daily' });
    for (let i = 0; i < 2; i++) {
      await CLICKHOUSE_MIGRATIONS[2]!.run!(a, { database: 'tally', cluster: null }, versions);
      expect(
        await rows(
          'SELECT toString(hour) AS hour, toString(total_cost_min) AS lo, toString(total_cost_max) AS hi FROM tally.observation_hourly FINAL ORDER BY hour',
        ),
      ).toEqual([
        { hour: '2026-11-01 10:00:00.000000', lo: '2.5', hi: '2.5' },
        { hour: '2026-11-01 11:00:00.000000', lo: '4', hi: '4' },
      ]);
      expect(
        await rows('SELECT toString(total_cost_min) AS lo, toString(total_cost_max) AS hi FROM tally.observation_daily FINAL'),
      ).toEqual([{ lo: '2.5', hi: '4' }]);
      expect(await rows('SELECT toString(sum(total_cost)) AS cost FROM tally.observation_user_daily FINAL')).toEqual([{ cost: '6.5' }]);
    }
  });

  it('migration 2 run again over a migrated database (a crash before it was recorded) keeps the rows and the roll-ups', async () => {
    await CLICKHOUSE_MIGRATIONS[1]!.run!(a, { database: 'tally', cluster: null }, versions);
    expect(await rows('SELECT toString(count()) AS n FROM tally.observations FINAL')).toEqual([{ n: '2' }]);
    expect(await rows('SELECT toString(sum(total_cost)) AS cost FROM tally.observation_hourly FINAL')).toEqual([{ cost: '6.5' }]);
  });

  it('on a cluster the rebuild swaps the local tables ON CLUSTER, and the roll-ups are replicated and distributed', async () => {
    const sent: string[] = [];
    const fake = {
      database: 'tally',
      cluster: 'main',
      client: {
        command: async ({ query }: { query: string }) => {
          sent.push(query);
        },
        query: async () => ({ json: async () => [{ sorting_key: 'project_id, id' }] }),
      },
    } as unknown as Analytics;
    await CLICKHOUSE_MIGRATIONS[1]!.run!(fake, { database: 'tally', cluster: 'main' }, versions);
    await CLICKHOUSE_MIGRATIONS[2]!.run!(fake, { database: 'tally', cluster: 'main' }, versions);
    await CLICKHOUSE_MIGRATIONS[3]!.run!(fake, { database: 'tally', cluster: 'main' }, versions);
    expect(
      sent.some(
        (q) =>
          q.startsWith('CREATE TABLE IF NOT EXISTS tally.observations_next_local ON CLUSTER main') &&
          q.includes('PARTITION BY toDate(start_time)'),
      ),
    ).toBe(true);
    // the bounds are added to the replicated tables and to the Distributed one over them
    for (const t of ['observation_hourly_local', 'observation_hourly', 'observation_daily_local', 'observation_daily'])
      expect(sent.some((q) => q.startsWith(`ALTER TABLE tally.${t} ON CLUSTER main ADD COLUMN`) && q.includes(' total_cost_min '))).toBe(
        true,
      );
    expect(sent).toContain(
      'CREATE TABLE IF NOT EXISTS tally.observation_user_daily ON CLUSTER main AS tally.observation_user_daily_local ENGINE = Distributed(main, tally, observation_user_daily_local, cityHash64(project_id))',
    );
    expect(sent).toContain(
      'RENAME TABLE tally.observations_local TO tally.observations_v1_local, tally.observations_next_local TO tally.observations_local ON CLUSTER main',
    );
    expect(
      sent.some(
        (q) =>
          q.startsWith('CREATE TABLE IF NOT EXISTS tally.observation_hourly_local ON CLUSTER main') &&
          q.includes('ReplicatedReplacingMergeTree'),
      ),
    ).toBe(true);
    expect(sent).toContain(
      'CREATE TABLE IF NOT EXISTS tally.observation_daily ON CLUSTER main AS tally.observation_daily_local ENGINE = Distributed(main, tally, observation_daily_local, cityHash64(project_id))',
    );
    expect(
      sent
        .filter((q) => q.startsWith('CREATE') || q.startsWith('DROP') || q.startsWith('RENAME') || q.startsWith('ALTER'))
        .every((q) => q.includes(' ON CLUSTER main')),
    ).toBe(true);
  });
});
