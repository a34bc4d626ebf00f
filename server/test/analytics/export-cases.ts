// The change feed to ClickHouse, whichever way Tally reaches it (export-embedded.test.ts: the
// engine in process; export-http.test.ts: @clickhouse/client over HTTP): every stored
// observation, trace and score reaches ClickHouse with the values PostgreSQL holds (costs to the
// last digit), an update replaces its row, a delete hides it, an export sent twice or an older
// version arriving late leaves one row, and an outage keeps the changes queued until it ends.
// On PostgreSQL (DATABASE_URL) the server runs on a database of the test's own, so its triggers
// never meet the integration suite's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalyticsExporter } from '../../src/background/analytics-exporter.ts';
import { createLogger } from '../../src/logger.ts';
import { queueChange } from '../../src/store/analytics-changes.ts';
import { kysely, sql } from '../../src/store/sql.ts';
import { basic, startTestServer, type TestServer } from '../support/start.ts';
import { exportCaughtUp } from '../support/analytics-lag.ts';
import { clickHouseDown } from '../support/clickhouse-down.ts';
import { pgAdmin } from '../support/pg-admin.ts';

const pgUrl = process.env.DATABASE_URL;

export interface ClickHouseUnderTest {
  /** TALLY_CLICKHOUSE_URL */
  url: string;
  close(): Promise<void>;
}

/** a server on a database of its own with ClickHouse as `target` gives it */
export async function startWithClickHouse(name: string, target: ClickHouseUnderTest, env: Record<string, string> = {}) {
  const dbName = `tally_${name}_${process.pid}`;
  const full: Record<string, string> = { TALLY_CLICKHOUSE_URL: target.url, TALLY_EVAL_CONCURRENCY: '0', ...env };
  if (pgUrl) {
    await pgAdmin(`drop database if exists ${dbName}`);
    await pgAdmin(`create database ${dbName}`);
    full.DATABASE_URL = pgUrl.replace(/\/[^/]*$/, `/${dbName}`);
  }
  const t = await startTestServer(full);
  return {
    t,
    async close() {
      await t.server.close();
      await target.close();
      if (pgUrl) await pgAdmin(`drop database if exists ${dbName}`);
    },
  };
}

export function exportSuite(name: string, target: () => Promise<ClickHouseUnderTest>) {
  let t: TestServer;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const started = await startWithClickHouse(`analytics_${name}`, await target());
    t = started.t;
    stop = started.close;
  }, 120_000);
  afterAll(async () => {
    await stop?.();
  });

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${t.server.url}${path}`, {
      ...init,
      headers: { authorization: basic(t.projectA), 'content-type': 'application/json', ...(init.headers ?? {}) },
    });

  async function ingest(batch: unknown[]) {
    const res = await api('/api/public/ingestion', { method: 'POST', body: JSON.stringify({ batch }) });
    expect(res.status).toBe(207);
    const body = (await res.json()) as { errors: unknown[] };
    expect(body.errors).toEqual([]);
  }

  async function health() {
    const res = await fetch(`${t.server.url}/api/public/health`);
    return ((await res.json()) as { analytics: { engine: string; lagRows?: number; lagSeconds?: number } }).analytics;
  }

  /** until the exporter has shipped every change */
  const caughtUp = () => exportCaughtUp(t.server.url);

  async function ch<T>(query: string): Promise<T[]> {
    const a = t.server.analytics!;
    const rs = await a.client.query({ query: query.replaceAll('$db', a.database), format: 'JSONEachRow' });
    return rs.json<T>();
  }

  type HourRow = { hour: string; model: string; n: string; cost: string };
  /** an environment's rows of ClickHouse's hourly roll-up */
  const hourlyRollup = (env: string) =>
    ch<HourRow>(
      `SELECT toString(hour) AS hour, model, toString(count) AS n, toString(total_cost) AS cost FROM $db.observation_hourly FINAL WHERE environment = '${env}' ORDER BY hour, model`,
    );
  /** what the roll-up must say: the base table's rows grouped the same way */
  const hourlyTruth = (env: string) =>
    ch<HourRow>(
      `SELECT toString(toDateTime64(toStartOfHour(start_time), 6, 'UTC')) AS hour, model, toString(count()) AS n, toString(sum(total_cost)) AS cost FROM $db.observations FINAL WHERE environment = '${env}' GROUP BY hour, model ORDER BY hour, model`,
    );

  const at = (s: number) => new Date(Date.UTC(2026, 10, 20, 10, 0, s)).toISOString();
  const id = (p: string) => `${p}-${Math.random().toString(36).slice(2, 10)}`;

  describe(`analytics export to ClickHouse (${name})`, () => {
    it('health names the engine and its lag', async () => {
      await caughtUp();
      const a = await health();
      expect(a).toEqual({ engine: 'clickhouse', lagRows: 0, lagSeconds: 0 });
    });

    it('ships observations, traces and scores with the values PostgreSQL holds, costs to the last digit', async () => {
      const trace = id('t');
      const gen = id('g');
      const score = id('s');
      await ingest([
        {
          id: id('e'),
          timestamp: at(0),
          type: 'trace-create',
          body: { id: trace, name: 'checkout', userId: 'u1', tags: ['a', 'b'], environment: 'prod' },
        },
        {
          id: id('e'),
          timestamp: at(1),
          type: 'generation-create',
          body: {
            id: gen,
            traceId: trace,
            name: 'llm',
            environment: 'prod',
            model: 'no-such-model',
            startTime: at(1),
            endTime: at(3),
            // biome-ignore lint/correctness/noPrecisionLoss: stored as the server parsed it; the test compares with PostgreSQL's text
            input: { messages: [{ role: 'user', content: 'hi', n: 12345678901234567 }] },
            usageDetails: { input: 1200, output: 34 },
            // biome-ignore lint/correctness/noPrecisionLoss: more digits than a double holds, on purpose
            costDetails: { input: 0.000000123456789012, output: 1.5, total: 1.500000123456789012 },
          },
        },
        { id: id('e'), timestamp: at(4), type: 'score-create', body: { id: score, traceId: trace, name: 'quality', value: 0.75 } },
      ]);
      // microseconds, as OTel spans carry them (the exporter's inserts read times in ClickHouse's basic form)
      await sql`update observations set completion_start_time = '2026-11-20 10:00:01.234567+00' where id = ${gen}`.execute(
        kysely(t.server.db.em()),
      );
      await caughtUp();
      const [o] = await ch<Record<string, unknown>>(
        `SELECT id, trace_id, type, name, model, toString(total_cost) AS total, toString(input_cost) AS input_cost, cost_details, usage_details, input_usage, output_usage, trace_name, user_id, tags, environment, start_time, end_time, completion_start_time, input FROM $db.observations FINAL WHERE id = '${gen}'`,
      );
      expect(o).toMatchObject({
        id: gen,
        trace_id: trace,
        type: 'GENERATION',
        name: 'llm',
        model: 'no-such-model',
        usage_details: { input: 1200, output: 34 },
        input_usage: 1200,
        output_usage: 34,
        trace_name: 'checkout',
        user_id: 'u1',
        tags: ['a', 'b'],
        environment: 'prod',
        start_time: '2026-11-20 10:00:01.000000',
        end_time: '2026-11-20 10:00:03.000000',
        completion_start_time: '2026-11-20 10:00:01.234567',
      });
      // every digit of PostgreSQL's numeric costs
      const stored = await sql<{
        total: string;
        input: string;
      }>`select total_cost::text as total, input_cost::text as input from observations where id = ${gen}`.execute(kysely(t.server.db.em()));
      expect(stored.rows[0]!.total).toMatch(/^1\.50000012345678/);
      expect(Number(o!.total)).toBe(Number(stored.rows[0]!.total));
      expect(o!.total).toBe(stored.rows[0]!.total.replace(/0+$/, ''));
      expect(o!.input_cost).toBe(stored.rows[0]!.input.replace(/0+$/, ''));
      // the JSON columns are PostgreSQL's jsonb text, as stored
      const input = await sql<{ input: string }>`select input::text as input from observations where id = ${gen}`.execute(
        kysely(t.server.db.em()),
      );
      expect(o!.input).toBe(input.rows[0]!.input);
      const [tr] = await ch<Record<string, unknown>>(`SELECT name, user_id, tags FROM $db.traces FINAL WHERE id = '${trace}'`);
      expect(tr).toEqual({ name: 'checkout', user_id: 'u1', tags: ['a', 'b'] });
      const [s] = await ch<Record<string, unknown>>(`SELECT name, value, trace_id FROM $db.scores FINAL WHERE id = '${score}'`);
      expect(s).toEqual({ name: 'quality', value: 0.75, trace_id: trace });
    });

    it('ships text of every kind as PostgreSQL holds it: tabs, newlines, backslashes, quotes, \\N', async () => {
      const trace = id('t');
      const gen = id('g');
      const odd = `a\tb\nc\rd \\ e \\N f ' g " h [x, 'y'] {k: 1} ünï 😀`;
      await ingest([
        {
          id: id('e'),
          timestamp: at(0),
          type: 'trace-create',
          body: {
            id: trace,
            name: odd,
            userId: `${odd}-user`,
            sessionId: '\\N',
            tags: [odd, "it's", '\\', ''],
            public: true,
            release: '\t',
          },
        },
        {
          id: id('e'),
          timestamp: at(1),
          type: 'generation-create',
          body: {
            id: gen,
            traceId: trace,
            name: odd,
            version: '\\t',
            startTime: at(1),
            statusMessage: `line 1\nline 2\\n`,
            input: { text: odd, nested: [odd] },
            output: odd,
            metadata: { [odd]: odd },
            usageDetails: { input: 3, "in'put\t2": 4 },
          },
        },
      ]);
      await caughtUp();
      const db = kysely(t.server.db.em());
      const pgObs = await sql<Record<string, unknown>>`select name, version, status_message, trace_name, user_id, session_id, release, tags,
          input::text as input, output::text as output, metadata::text as metadata, usage_details::text as usage
        from observations where id = ${gen}`.execute(db);
      const [o] = await ch<Record<string, unknown>>(
        `SELECT name, version, status_message, trace_name, user_id, session_id, release, tags, input, output, metadata, usage_details FROM $db.observations FINAL WHERE id = '${gen}'`,
      );
      const p = pgObs.rows[0]!;
      expect(o).toEqual({
        name: p.name,
        version: p.version,
        status_message: p.status_message,
        trace_name: p.trace_name,
        user_id: p.user_id,
        session_id: p.session_id,
        release: p.release,
        tags: p.tags,
        input: p.input,
        output: p.output,
        metadata: p.metadata,
        usage_details: JSON.parse(p.usage as string),
      });
      expect(o!.name).toBe(odd);
      // tags are kept sorted
      expect(o!.tags).toEqual([odd, "it's", '\\', ''].sort());
      const [tr] = await ch<Record<string, unknown>>(
        `SELECT name, user_id, session_id, tags, public, release FROM $db.traces FINAL WHERE id = '${trace}'`,
      );
      expect(tr).toEqual({
        name: odd,
        user_id: `${odd}-user`,
        session_id: '\\N',
        tags: [odd, "it's", '\\', ''].sort(),
        public: true,
        release: '\t',
      });
    });

    it('an update replaces the row; a delete hides it', async () => {
      const trace = id('t');
      const gen = id('g');
      const score = id('s');
      await ingest([
        { id: id('e'), timestamp: at(0), type: 'trace-create', body: { id: trace } },
        {
          id: id('e'),
          timestamp: at(1),
          type: 'generation-create',
          body: { id: gen, traceId: trace, model: 'm', startTime: at(1), costDetails: { total: 1 } },
        },
        { id: id('e'), timestamp: at(2), type: 'score-create', body: { id: score, traceId: trace, name: 'q', value: 1 } },
      ]);
      await caughtUp();
      await ingest([
        {
          id: id('e'),
          timestamp: at(5),
          type: 'generation-update',
          body: { id: gen, traceId: trace, costDetails: { total: 2.25 }, output: 'done' },
        },
      ]);
      expect((await api(`/api/public/scores/${score}`, { method: 'DELETE' })).ok).toBe(true);
      await caughtUp();
      const rows = await ch<{ total: string; output: string }>(
        `SELECT toString(total_cost) AS total, output FROM $db.observations FINAL WHERE id = '${gen}'`,
      );
      expect(rows).toEqual([{ total: '2.25', output: '"done"' }]);
      expect(await ch(`SELECT id FROM $db.scores FINAL WHERE id = '${score}'`)).toEqual([]);
    });

    it("keeps ClickHouse's roll-ups equal to its rows through updates, a move to another day and a delete", async () => {
      const env = id('rollup-env');
      const [g1, g2, g3] = [id('g'), id('g'), id('g')];
      const day1 = (m: number) => new Date(Date.UTC(2026, 10, 18, 10, m)).toISOString();
      const day2 = new Date(Date.UTC(2026, 10, 19, 15, 30)).toISOString();
      const gen = (gid: string, model: string, start: string, total: number) => ({
        id: id('e'),
        timestamp: start,
        type: 'generation-create',
        body: { id: gid, environment: env, model, startTime: start, endTime: start, costDetails: { total } },
      });
      await ingest([gen(g1, 'ru-a', day1(5), 1), gen(g2, 'ru-a', day1(6), 2), gen(g3, 'ru-b', day1(7), 4)]);
      await caughtUp();
      const hourly = () => hourlyRollup(env);
      const truth = () => hourlyTruth(env);
      const daily = () =>
        ch<{ day: string; model: string; n: string; cost: string }>(
          `SELECT toString(toDate(day)) AS day, model, toString(count) AS n, toString(total_cost) AS cost FROM $db.observation_daily FINAL WHERE environment = '${env}' ORDER BY day, model`,
        );
      expect(await hourly()).toEqual([
        { hour: '2026-11-18 10:00:00.000000', model: 'ru-a', n: '2', cost: '3' },
        { hour: '2026-11-18 10:00:00.000000', model: 'ru-b', n: '1', cost: '4' },
      ]);

      // g1 moves to the next day with a new cost, g2 changes model, g3 is deleted
      await ingest([
        {
          id: id('e'),
          timestamp: day2,
          type: 'generation-update',
          body: { id: g1, startTime: day2, endTime: day2, costDetails: { total: 5 } },
        },
        { id: id('e'), timestamp: day1(9), type: 'generation-update', body: { id: g2, model: 'ru-c' } },
      ]);
      await sql`delete from observations where id = ${g3}`.execute(kysely(t.server.db.em()));
      await caughtUp();
      const expected = [
        { hour: '2026-11-18 10:00:00.000000', model: 'ru-c', n: '1', cost: '2' },
        { hour: '2026-11-19 15:00:00.000000', model: 'ru-a', n: '1', cost: '5' },
      ];
      expect(await hourly()).toEqual(expected);
      expect(await truth()).toEqual(expected);
      expect(await daily()).toEqual([
        { day: '2026-11-18', model: 'ru-c', n: '1', cost: '2' },
        { day: '2026-11-19', model: 'ru-a', n: '1', cost: '5' },
      ]);
      // the moved row's copy on its old day is gone (its key had the day), the deleted one too
      expect(await ch(`SELECT id, toString(toDate(start_time)) AS day FROM $db.observations FINAL WHERE id IN ('${g1}', '${g3}')`)).toEqual(
        [{ id: g1, day: '2026-11-19' }],
      );
      // the same rows exported and their hours recomputed again (a crash before PostgreSQL's commit sends them twice): nothing changes
      for (const g of [g1, g2]) await queueChange(kysely(t.server.db.em()), 'o', t.projectA.projectId, g);
      await caughtUp();
      expect(await hourly()).toEqual(expected);
    });

    it('drains a backlog first and recomputes its roll-ups once, from marks that wait in the feed', async () => {
      const env = id('backlog-env');
      const hour = (h: number, m: number) => new Date(Date.UTC(2026, 10, 16, h, m)).toISOString();
      const gens = [1, 2, 3, 4, 5, 6, 7].map((i) => ({
        id: id('e'),
        timestamp: hour(i < 4 ? 8 : 9, i),
        type: 'generation-create',
        body: { id: id('g'), environment: env, model: `bk-${i % 2}`, startTime: hour(i < 4 ? 8 : 9, i), costDetails: { total: i } },
      }));
      const hourly = () => hourlyRollup(env);
      const truth = () => hourlyTruth(env);
      const marks = async () =>
        (await sql<{ n: string }>`select count(*)::text as n from analytics_changes where entity = 'h'`.execute(kysely(t.server.db.em())))
          .rows[0]!.n;
      // the server's exporter paused: the changes wait as a backlog for exporters of 3 changes a take
      await t.server.exporter!.stop();
      try {
        await ingest(gens);
        const first = new AnalyticsExporter(t.server.db, t.server.analytics!, createLogger('silent'), { batchSize: 3 });
        expect(await first.exportOnce()).toBe(3);
        // a full take: its rows are in ClickHouse, its hour's recompute waits as a mark, and health counts it
        expect(
          Number((await ch<{ n: string }>(`SELECT count() AS n FROM $db.observations FINAL WHERE environment = '${env}'`))[0]!.n),
        ).toBe(3);
        expect(await hourly()).toEqual([]);
        expect(Number(await marks())).toBeGreaterThan(0);
        expect((await health()).lagRows).toBeGreaterThan(0);
        // another exporter (the first one crashed) drains the rest: marks are recomputed by the take that comes back short
        const second = new AnalyticsExporter(t.server.db, t.server.analytics!, createLogger('silent'), { batchSize: 3 });
        let takes = 0;
        while ((await second.exportOnce()) > 0) takes++;
        // its merges after the drain, done before the next test looks at parts
        await second.compacted();
        expect(takes).toBeGreaterThan(1);
        expect(await marks()).toBe('0');
        expect((await health()).lagRows).toBe(0);
        const expected = [
          { hour: '2026-11-16 08:00:00.000000', model: 'bk-0', n: '1', cost: '2' },
          { hour: '2026-11-16 08:00:00.000000', model: 'bk-1', n: '2', cost: '4' },
          { hour: '2026-11-16 09:00:00.000000', model: 'bk-0', n: '2', cost: '10' },
          { hour: '2026-11-16 09:00:00.000000', model: 'bk-1', n: '2', cost: '12' },
        ];
        expect(await truth()).toEqual(expected);
        expect(await hourly()).toEqual(expected);
      } finally {
        t.server.exporter!.start();
      }
    });

    it('polls an empty feed less and less often, and a batch applied wakes it at once', async () => {
      await t.server.exporter!.stop();
      const idle = new AnalyticsExporter(t.server.db, t.server.analytics!, createLogger('silent'), {
        idleMs: 20,
        maxIdleMs: 5_000,
        concurrency: 1,
      });
      let polls = 0;
      const exportOnce = idle.exportOnce.bind(idle);
      idle.exportOnce = (size?: number) => {
        polls++;
        return exportOnce(size);
      };
      try {
        const started = performance.now();
        idle.start();
        // pauses of 20, 40, 80, … ms: the eighth poll comes after 20 + 40 + … + 1,280 = 2,540 ms of
        // them (a fixed 20 ms pause reaches it in under 200), and is followed by a 2,560 ms pause
        while (polls < 8 && performance.now() - started < 10_000) await new Promise((r) => setTimeout(r, 10));
        expect(polls).toBe(8);
        expect(performance.now() - started).toBeGreaterThanOrEqual(2_500);
        await new Promise((r) => setTimeout(r, 50));
        // a wake-up (what an applied batch does) cuts that pause short, and the pauses start over from 20 ms
        idle.wake();
        await new Promise((r) => setTimeout(r, 300));
        expect(polls).toBeGreaterThan(8);
      } finally {
        await idle.stop();
        t.server.exporter!.start();
      }
    });

    it('merges each day partition a drained backlog left in several parts, the rows unchanged', async () => {
      const env = id('compact-env');
      const day = (d: number, m: number) => new Date(Date.UTC(2025, 1, d, 12, m)).toISOString();
      const gens = Array.from({ length: 12 }, (_, i) => ({
        id: id('e'),
        timestamp: day(10 + (i % 2), i),
        type: 'generation-create',
        body: { id: id('g'), environment: env, model: 'cp', startTime: day(10 + (i % 2), i), costDetails: { total: i + 1 } },
      }));
      const parts = async () =>
        await ch<{ p: string; n: string }>(
          `SELECT partition_id AS p, toString(count()) AS n FROM system.parts WHERE database = '$db' AND table LIKE 'observations%' AND active AND partition_id IN ('20250210', '20250211') GROUP BY p ORDER BY p`,
        );
      const rows = async () =>
        await ch<{ n: string; cost: string }>(
          `SELECT toString(count()) AS n, toString(sum(total_cost)) AS cost FROM $db.observations FINAL WHERE environment = '${env}' AND NOT _deleted`,
        );
      await t.server.exporter!.stop();
      try {
        await ingest(gens);
        // takes of 3 changes: each take's insert is a part in both days
        const drainer = new AnalyticsExporter(t.server.db, t.server.analytics!, createLogger('silent'), { batchSize: 3 });
        while ((await drainer.exportOnce()) > 0);
        await drainer.compacted();
        // the two days, and the roll-ups (whole) where the drain's recomputes left more than one part
        expect(drainer.stats.compactedPartitions).toBeGreaterThanOrEqual(2);
        expect(await parts()).toEqual([
          { p: '20250210', n: '1' },
          { p: '20250211', n: '1' },
        ]);
        const rollupParts = await ch<{ t: string; n: string }>(
          `SELECT table AS t, toString(count()) AS n FROM system.parts WHERE database = '$db' AND table IN ('observation_daily', 'observation_hourly', 'observation_user_daily') AND active GROUP BY t ORDER BY t`,
        );
        expect(rollupParts.map((r) => r.t)).toEqual(['observation_daily', 'observation_hourly', 'observation_user_daily']);
        for (const r of rollupParts) expect(r.n, r.t).toBe('1');
        expect(await rows()).toEqual([{ n: '12', cost: '78' }]);
        // a short take with no backlog behind it merges nothing
        await ingest([{ ...gens[0]!, id: id('e'), body: { ...gens[0]!.body, id: id('g') } }]);
        const steady = new AnalyticsExporter(t.server.db, t.server.analytics!, createLogger('silent'));
        expect(await steady.exportOnce()).toBe(1);
        await steady.compacted();
        expect(steady.stats.compactedPartitions).toBe(0);
      } finally {
        t.server.exporter!.start();
      }
    });

    it('vacuums the feed once a backlog has drained: the exported changes leave no dead rows behind', async () => {
      const env = id('vacuum-env');
      const gens = Array.from({ length: 40 }, (_, i) => ({
        id: id('e'),
        timestamp: at(i),
        type: 'generation-create',
        body: { id: id('g'), environment: env, model: 'vf', startTime: at(i) },
      }));
      const db = () => kysely(t.server.db.em());
      const feedPages = async () =>
        Number(
          (
            await sql<{
              n: string;
            }>`select (pg_relation_size('analytics_changes') / current_setting('block_size')::int)::text as n`.execute(db())
          ).rows[0]!.n,
        );
      await t.server.exporter!.stop();
      try {
        await ingest(gens);
        expect(await feedPages()).toBeGreaterThan(0);
        const drainer = new AnalyticsExporter(t.server.db, t.server.analytics!, createLogger('silent'), { batchSize: 5 });
        while ((await drainer.exportOnce()) > 0);
        await drainer.stop();
        expect(drainer.stats.feedVacuums).toBe(1);
        // every change deleted and vacuumed: the table is truncated to nothing (without the vacuum,
        // and with autovacuum off or not yet round, its pages stay, full of dead rows)
        expect(await feedPages()).toBe(0);
        // steady exports vacuum only every vacuumAfterChanges
        await ingest([{ ...gens[0]!, id: id('e'), body: { ...gens[0]!.body, id: id('g') } }]);
        const steady = new AnalyticsExporter(t.server.db, t.server.analytics!, createLogger('silent'), { vacuumAfterChanges: 2 });
        expect(await steady.exportOnce()).toBe(1);
        await steady.stop();
        expect(steady.stats.feedVacuums).toBe(0);
        await ingest([{ ...gens[1]!, id: id('e'), body: { ...gens[1]!.body, id: id('g') } }]);
        expect(await steady.exportOnce()).toBe(1);
        await steady.stop();
        expect(steady.stats.feedVacuums).toBe(1);
      } finally {
        t.server.exporter!.start();
      }
    });

    it('an export sent twice, or an older version arriving late, leaves the latest row once', async () => {
      const gen = id('g');
      await ingest([{ id: id('e'), timestamp: at(1), type: 'span-create', body: { id: gen, name: 'first', startTime: at(1) } }]);
      await caughtUp();
      const [before] = await ch<{ _version: string }>(`SELECT _version FROM $db.observations FINAL WHERE id = '${gen}'`);
      await ingest([{ id: id('e'), timestamp: at(2), type: 'span-update', body: { id: gen, name: 'second' } }]);
      await caughtUp();
      // the first version again, as a crash between ClickHouse's insert and PostgreSQL's commit would send it
      const a = t.server.analytics!;
      await a.client.insert({
        table: `${a.database}.observations`,
        values: [
          {
            project_id: t.projectA.projectId,
            id: gen,
            type: 'SPAN',
            name: 'first',
            start_time: at(1),
            _version: before!._version,
            _deleted: 0,
          },
        ],
        format: 'JSONEachRow',
      });
      expect(await ch(`SELECT name FROM $db.observations FINAL WHERE id = '${gen}'`)).toEqual([{ name: 'second' }]);
    });

    it('several exporters on one database share the work: each change exported once', async () => {
      const prefix = id('many');
      const others = [1, 2, 3].map(
        () => new AnalyticsExporter(t.server.db, t.server.analytics!, createLogger('silent'), { batchSize: 50 }),
      );
      const ingesting = Promise.all(
        [0, 1, 2, 3].map((b) =>
          ingest(
            Array.from({ length: 100 }, (_, i) => ({
              id: id('e'),
              timestamp: at(1),
              type: 'span-create',
              body: { id: `${prefix}-${b}-${i}`, name: prefix, startTime: at(1) },
            })),
          ),
        ),
      );
      let taken = 0;
      const racing = Promise.all(
        others.map(async (x) => {
          for (let round = 0; round < 40; round++) {
            taken += await x.exportOnce();
            await new Promise((r) => setTimeout(r, 5));
          }
        }),
      );
      await ingesting;
      await racing;
      await caughtUp();
      const [row] = await ch<{ n: number; ids: number }>(
        `SELECT count() AS n, uniqExact(id) AS ids FROM $db.observations FINAL WHERE name = '${prefix}'`,
      );
      expect(Number(row!.n)).toBe(400);
      expect(Number(row!.ids)).toBe(400);
      // on PostgreSQL the extra exporters take part of the feed; PGlite's one connection serialises them
      if (process.env.DATABASE_URL) expect(taken).toBeGreaterThan(0);
    });

    it('answers metrics from PostgreSQL while ClickHouse does not answer', async () => {
      const a = t.server.analytics!;
      const query = a.client.query.bind(a.client);
      const q = JSON.stringify({
        view: 'observations',
        metrics: [{ measure: 'count', aggregation: 'count' }],
        dimensions: [],
        // not the roll-up test's environment: it deletes a row behind PostgreSQL's roll-ups (no API deletes an observation)
        filters: [{ column: 'environment', operator: '=', value: 'default', type: 'string' }],
        fromTimestamp: '2000-01-01T00:00:00Z',
        toTimestamp: '2100-01-01T00:00:00Z',
      });
      const get = async () => {
        const r = await api(`/api/public/v2/metrics?query=${encodeURIComponent(q)}`);
        return { status: r.status, body: (await r.json()) as { data: { count_count: unknown }[] } };
      };
      await caughtUp();
      const fromClickHouse = await get();
      a.client.query = (async () => {
        throw new Error('ClickHouse is down (test)');
      }) as typeof a.client.query;
      try {
        const fromPostgres = await get();
        expect(fromPostgres.status).toBe(200);
        expect(fromPostgres.body).toEqual(fromClickHouse.body);
      } finally {
        a.client.query = query;
      }
    });

    it('keeps changes queued while ClickHouse refuses them, and ships them when it is back', async () => {
      const outage = clickHouseDown(t.server.analytics!);
      const gen = id('g');
      try {
        await ingest([
          { id: id('e'), timestamp: at(1), type: 'event-create', body: { id: gen, name: 'during the outage', startTime: at(1) } },
        ]);
        for (let i = 0; i < 100 && outage.refused() < 2; i++) await new Promise((r) => setTimeout(r, 50));
        expect(outage.refused()).toBeGreaterThanOrEqual(1);
        const lag = await health();
        expect(lag.lagRows).toBeGreaterThan(0);
      } finally {
        outage.restore();
      }
      t.server.exporter!.wake();
      await caughtUp();
      expect(await ch(`SELECT name FROM $db.observations FINAL WHERE id = '${gen}'`)).toEqual([{ name: 'during the outage' }]);
    });
  });
}
