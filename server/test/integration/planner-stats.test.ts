// A server that has written its first thousand rows analyses the ingestion tables itself, so the
// cached generic plans of its prepared statements are made again with real statistics
// (store/planner-stats.ts). PostgreSQL only: PGlite plans every statement anew.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startTestServer, type TestServer } from '../support/start.ts';
import { kysely, sql } from '../../src/store/sql.ts';
import { unique } from '../support/client.ts';

const url = process.env.DATABASE_URL;

describe('planner statistics while a database fills', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t?.server.close());

  it.skipIf(url)('leaves PGlite to plan each statement anew', () => {
    expect(t.server.services.tableGrowth).toBeUndefined();
  });

  it.skipIf(!url)('analyses observations, traces and ingested_events once the server has written 1,000 rows', async () => {
    const q = kysely(t.server.db.em());
    const counts = async () =>
      Object.fromEntries(
        (
          await sql<{ relname: string; n: string }>`select relname, analyze_count as n from pg_stat_user_tables
      where relname in ('observations', 'traces', 'ingested_events')`.execute(q)
        ).rows.map((r) => [r.relname, Number(r.n)]),
      );
    const before = await counts();
    const run = unique('growth');
    let written = 0;
    const post = async (events: unknown[]) => {
      const res = await fetch(`${t.server.url}/api/public/ingestion`, {
        method: 'POST',
        headers: { authorization: basic(t.projectA), 'content-type': 'application/json' },
        body: JSON.stringify({ batch: events }),
      });
      expect(res.status).toBe(207);
      written += events.length;
    };
    for (let b = 0; written < 990; b++) {
      await post([
        {
          id: `${run}-t${b}`,
          timestamp: new Date().toISOString(),
          type: 'trace-create',
          body: { id: `${run}-trace-${b}`, name: 'growth' },
        },
        ...Array.from({ length: 98 }, (_, i) => ({
          id: `${run}-e${b}-${i}`,
          timestamp: new Date().toISOString(),
          type: 'generation-create',
          body: { id: `${run}-g${b}-${i}`, traceId: `${run}-trace-${b}`, model: 'gpt-4o', usageDetails: { input: 10, output: 5 } },
        })),
      ]);
    }
    await t.server.services.tableGrowth!.idle();
    expect(t.server.services.tableGrowth!.runs).toBe(0); // 990 rows: not yet
    await post(
      [
        {
          id: `${run}-last`,
          timestamp: new Date().toISOString(),
          type: 'span-create',
          body: { id: `${run}-span`, traceId: `${run}-trace-0` },
        },
      ].concat(
        Array.from({ length: 9 }, (_, i) => ({
          id: `${run}-last-${i}`,
          timestamp: new Date().toISOString(),
          type: 'span-create',
          body: { id: `${run}-span-${i}`, traceId: `${run}-trace-0` },
        })),
      ),
    );
    await t.server.services.tableGrowth!.idle();
    expect(t.server.services.tableGrowth!.runs).toBe(1);
    // other servers of the suite may analyse the shared database too: at least this one did
    const after = await counts();
    for (const table of ['observations', 'traces', 'ingested_events']) expect(after[table], table).toBeGreaterThan(before[table] ?? 0);
  });
});
