// TALLY_POSTGRES_RETENTION_DAYS with ClickHouse (embedded): exported rows older than the
// retention leave PostgreSQL, never one whose change still waits in the feed; reads by id answer
// from ClickHouse for them, a late update merges with the ClickHouse copy, and a deleted archived
// score is deleted in ClickHouse too. Nothing is lost.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneExported } from '../../src/background/postgres-retention.ts';
import { kysely, sql } from '../../src/store/sql.ts';
import { basic, type TestServer } from '../support/start.ts';
import { startWithClickHouse } from './export-cases.ts';
import { exportCaughtUp } from '../support/analytics-lag.ts';
import { clickHouseDown } from '../support/clickhouse-down.ts';

let t: TestServer;
let stop: () => Promise<void>;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tally-retention-'));
  const started = await startWithClickHouse(
    'retention',
    { url: `chdb:${dir}`, close: async () => rmSync(dir, { recursive: true, force: true }) },
    { TALLY_POSTGRES_RETENTION_DAYS: '30' },
  );
  t = started.t;
  stop = started.close;
}, 120_000);
afterAll(async () => {
  await stop?.();
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${t.server.url}${path}`, { ...init, headers: { authorization: basic(t.projectA), 'content-type': 'application/json' } });

async function ingest(batch: unknown[]) {
  const res = await api('/api/public/ingestion', { method: 'POST', body: JSON.stringify({ batch }) });
  expect(res.status).toBe(207);
  expect(((await res.json()) as { errors: unknown[] }).errors).toEqual([]);
}

const caughtUp = () => exportCaughtUp(t.server.url);

const inPostgres = async (table: string, id: string) =>
  (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where id = ${id}`.execute(kysely(t.server.db.em()))).rows[0]!
    .n;

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();
const uid = (p: string) => `${p}-${Math.random().toString(36).slice(2, 10)}`;

describe('PostgreSQL retention with ClickHouse', () => {
  const trace = uid('t');
  const oldGen = uid('g');
  const newGen = uid('g');
  const score = uid('s');

  it('deletes exported rows past the retention from PostgreSQL and keeps the recent ones', async () => {
    await ingest([
      {
        id: uid('e'),
        timestamp: daysAgo(60),
        type: 'trace-create',
        body: { id: trace, name: 'old trace', timestamp: daysAgo(60), userId: 'u9' },
      },
      {
        id: uid('e'),
        timestamp: daysAgo(60),
        type: 'generation-create',
        body: {
          id: oldGen,
          traceId: trace,
          name: 'old',
          model: 'm',
          startTime: daysAgo(60),
          usageDetails: { input: 5 },
          costDetails: { total: 0.25 },
        },
      },
      {
        id: uid('e'),
        timestamp: daysAgo(1),
        type: 'span-create',
        body: { id: newGen, traceId: trace, name: 'recent', startTime: daysAgo(1) },
      },
      {
        id: uid('e'),
        timestamp: daysAgo(60),
        type: 'score-create',
        body: { id: score, traceId: trace, name: 'q', value: 3, timestamp: daysAgo(60) },
      },
    ]);
    await caughtUp();
    const before = await (await api(`/api/public/observations/${oldGen}`)).json();
    expect(await pruneExported(t.server.db, 30)).toBeGreaterThanOrEqual(3);
    expect(await inPostgres('observations', oldGen)).toBe(0);
    expect(await inPostgres('traces', trace)).toBe(0);
    expect(await inPostgres('scores', score)).toBe(0);
    expect(await inPostgres('observations', newGen)).toBe(1);
    // no tombstone went to ClickHouse for them
    await caughtUp();
    // reads by id answer from ClickHouse, the same record as before
    const res = await api(`/api/public/observations/${oldGen}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(before);
    const tr = await api(`/api/public/traces/${trace}`);
    expect(tr.status).toBe(200);
    const body = (await tr.json()) as { name: string; userId: string; observations: { id: string }[] };
    expect(body.name).toBe('old trace');
    expect(body.userId).toBe('u9');
    expect(body.observations.map((o) => o.id).sort()).toEqual([oldGen, newGen].sort());
    expect((await api(`/api/public/v2/scores/${score}`)).status).toBe(200);
  });

  it('the trace list reaching past the retention comes from ClickHouse, with the archived trace, its observations, cost and scores', async () => {
    const r = await api(`/api/public/traces?userId=u9&fromTimestamp=${encodeURIComponent(daysAgo(90))}`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { data: Record<string, unknown>[]; meta: { totalItems: number } };
    expect(body.meta.totalItems).toBe(1);
    expect(body.data[0]).toMatchObject({ id: trace, name: 'old trace', userId: 'u9', totalCost: 0.25, scores: [score] });
    expect(body.data[0]!.observations).toEqual(expect.arrayContaining([oldGen, newGen]));
    // a recent window: PostgreSQL, where the archived trace is gone
    const recent = await api(`/api/public/traces?userId=u9&fromTimestamp=${encodeURIComponent(daysAgo(10))}`);
    expect(((await recent.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('lists reaching past the retention come from ClickHouse; recent windows from PostgreSQL', async () => {
    const list = async (query: string) => {
      const r = await api(`/api/public/observations?${query}`);
      expect(r.status).toBe(200);
      return (await r.json()) as { data: { id: string; name: string }[]; meta: { totalItems: number } };
    };
    const all = await list(`traceId=${trace}`);
    expect(all.data.map((o) => o.id)).toEqual([newGen, oldGen]);
    expect(all.meta.totalItems).toBe(2);
    const filter = encodeURIComponent(JSON.stringify([{ type: 'string', column: 'name', operator: '=', value: 'old' }]));
    expect((await list(`traceId=${trace}&filter=${filter}`)).data.map((o) => o.id)).toEqual([oldGen]);
    expect((await list(`traceId=${trace}&type=GENERATION&limit=1&page=1`)).data.map((o) => o.id)).toEqual([oldGen]);
    // a bounded window reaching past the retention: ClickHouse, with its bounds
    const window = `fromStartTime=${encodeURIComponent(daysAgo(90))}&toStartTime=${encodeURIComponent(daysAgo(30))}`;
    expect((await list(`traceId=${trace}&${window}`)).data.map((o) => o.id)).toEqual([oldGen]);
    // a window within the retention: PostgreSQL, which holds only the recent row
    expect((await list(`traceId=${trace}&fromStartTime=${encodeURIComponent(daysAgo(2))}`)).data.map((o) => o.id)).toEqual([newGen]);
  });

  it('score lists reaching past the retention come from ClickHouse, with their trace joined', async () => {
    const v2 = await api(`/api/public/v2/scores?traceId=${trace}`);
    expect(v2.status).toBe(200);
    const body = (await v2.json()) as { data: { id: string; value: number; trace?: { userId: string } }[]; meta: { totalItems: number } };
    expect(body.data.map((x) => x.id)).toEqual([score]);
    expect(body.meta.totalItems).toBe(1);
    expect(body.data[0]!.value).toBe(3);
    // v1, filtered by the trace's user (a joined column) and by value
    const v1 = (await (await api(`/api/public/scores?userId=u9&operator=%3E%3D&value=3`)).json()) as { data: { id: string }[] };
    expect(v1.data.map((x) => x.id)).toEqual([score]);
    const none = (await (await api(`/api/public/scores?userId=u9&operator=%3E&value=3`)).json()) as { data: unknown[] };
    expect(none.data).toEqual([]);
    // a bounded window reaching past the retention: ClickHouse, with its bounds
    const bounded = (await (
      await api(
        `/api/public/v2/scores?traceId=${trace}&fromTimestamp=${encodeURIComponent(daysAgo(90))}&toTimestamp=${encodeURIComponent(daysAgo(30))}`,
      )
    ).json()) as { data: { id: string }[] };
    expect(bounded.data.map((x) => x.id)).toEqual([score]);
    // within the retention: PostgreSQL, which no longer holds it
    const recent = (await (await api(`/api/public/v2/scores?traceId=${trace}&fromTimestamp=${encodeURIComponent(daysAgo(2))}`)).json()) as {
      data: unknown[];
    };
    expect(recent.data).toEqual([]);
  });

  it('merges a late update of a row no longer in PostgreSQL with its ClickHouse copy', async () => {
    await ingest([
      { id: uid('e'), timestamp: new Date().toISOString(), type: 'generation-update', body: { id: oldGen, output: 'late answer' } },
    ]);
    await caughtUp();
    const o = (await (await api(`/api/public/observations/${oldGen}`)).json()) as Record<string, unknown>;
    expect(o).toMatchObject({ id: oldGen, name: 'old', model: 'm', traceId: trace, output: 'late answer', calculatedTotalCost: 0.25 });
    expect(o.usageDetails).toMatchObject({ input: 5 });
  });

  it('a late update that moves an archived row to another day leaves one copy in ClickHouse, and its old hour no longer counts it', async () => {
    const gen = uid('g');
    const [was, now] = [daysAgo(50), daysAgo(45)];
    await ingest([
      {
        id: uid('e'),
        timestamp: was,
        type: 'generation-create',
        body: { id: gen, name: 'moving', startTime: was, costDetails: { total: 3 } },
      },
    ]);
    await caughtUp();
    await pruneExported(t.server.db, 30);
    expect(await inPostgres('observations', gen)).toBe(0);
    await ingest([{ id: uid('e'), timestamp: now, type: 'generation-update', body: { id: gen, startTime: now } }]);
    await caughtUp();
    const a = t.server.analytics!;
    const ch = async (query: string) => (await a.client.query({ query, format: 'JSONEachRow' })).json<Record<string, unknown>>();
    expect(await ch(`SELECT toString(start_time) AS s FROM ${a.database}.observations FINAL WHERE id = '${gen}'`)).toEqual([
      { s: now.replace('T', ' ').replace('Z', '000') },
    ]);
    const hourOf = (iso: string) => `${iso.slice(0, 13).replace('T', ' ')}:00:00.000000`;
    const hourly = await ch(
      `SELECT toString(hour) AS hour, toString(count) AS n FROM ${a.database}.observation_hourly FINAL WHERE project_id = '${t.projectA.projectId}' AND name = 'moving'`,
    );
    expect(hourly).toEqual([{ hour: hourOf(now), n: '1' }]);
  });

  it('deleting an archived score deletes it in ClickHouse', async () => {
    expect((await api(`/api/public/scores/${score}`, { method: 'DELETE' })).ok).toBe(true);
    await caughtUp();
    expect((await api(`/api/public/v2/scores/${score}`)).status).toBe(404);
  });

  it('metrics answer 503 while ClickHouse does not answer: PostgreSQL no longer holds every row', async () => {
    const a = t.server.analytics!;
    const query = a.client.query.bind(a.client);
    a.client.query = (async () => {
      throw new Error('ClickHouse is down (test)');
    }) as typeof a.client.query;
    try {
      const q = JSON.stringify({
        view: 'observations',
        metrics: [{ measure: 'count', aggregation: 'count' }],
        fromTimestamp: daysAgo(90),
        toTimestamp: daysAgo(0),
      });
      const r = await api(`/api/public/v2/metrics?query=${encodeURIComponent(q)}`);
      expect(r.status).toBe(503);
      expect(await r.json()).toEqual({
        message: 'The analytics store (ClickHouse) did not answer; retry shortly',
        error: 'ServiceUnavailable',
      });
    } finally {
      a.client.query = query;
    }
  });

  it('never deletes a row whose change has not reached ClickHouse', async () => {
    const outage = clickHouseDown(t.server.analytics!);
    const waiting = uid('g');
    try {
      await ingest([
        { id: uid('e'), timestamp: daysAgo(90), type: 'span-create', body: { id: waiting, name: 'unexported', startTime: daysAgo(90) } },
      ]);
      await pruneExported(t.server.db, 30);
      expect(await inPostgres('observations', waiting)).toBe(1);
    } finally {
      outage.restore();
    }
    t.server.exporter!.wake();
    await caughtUp();
    await pruneExported(t.server.db, 30);
    expect(await inPostgres('observations', waiting)).toBe(0);
    expect((await api(`/api/public/observations/${waiting}`)).status).toBe(200);
  });
});
