// Forgetting applied event ids past the retention window, on a database of its own (PGlite in
// memory, or the PostgreSQL of DATABASE_URL in the PostgreSQL pass).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/orm.ts';
import { createLogger } from '../../src/logger.ts';
import { startEventIdPruning } from '../../src/background/event-id-pruning.ts';
import { pruneIngestedEvents } from '../../src/store/ingested-events.ts';
import { kysely, sql } from '../../src/store/sql.ts';
import { unique } from '../support/client.ts';

describe('pruning applied event ids', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir: 'memory://' });
  });
  afterAll(() => db?.close());

  it('deletes the ids claimed before the cutoff, in chunks, and keeps the rest', async () => {
    const project = unique('prune-project');
    const q = kysely(db.em());
    const claim = (id: string, at: string) =>
      sql`insert into ingested_events (project_id, event_id, created_at) values (${project}, ${id}, ${at})`.execute(q);
    for (let i = 0; i < 5; i++) await claim(`old-${i}`, '2026-01-01T00:00:00Z');
    await claim('recent', '2026-03-01T00:00:00Z');

    // other projects may have old rows in a shared test database: count only this project's
    await pruneIngestedEvents(q, new Date('2026-02-01T00:00:00Z'), 2);
    const { rows } = await sql<{ event_id: string }>`select event_id from ingested_events where project_id = ${project}`.execute(q);
    expect(rows.map((r) => r.event_id)).toEqual(['recent']);
  });

  it('reports how many it deleted', async () => {
    const project = unique('prune-count');
    const q = kysely(db.em());
    await sql`insert into ingested_events (project_id, event_id, created_at) select ${project}, 'e' || g, timestamptz '1999-01-01' from generate_series(1, 3) g`.execute(
      q,
    );
    expect(await pruneIngestedEvents(q, new Date('1999-06-01T00:00:00Z'))).toBeGreaterThanOrEqual(3);
    expect(await pruneIngestedEvents(q, new Date('1999-06-01T00:00:00Z'))).toBe(0);
  });

  it('runs on a schedule once started, and stops', async () => {
    const project = unique('prune-scheduled');
    const q = kysely(db.em());
    const remaining = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from ingested_events where project_id = ${project}`.execute(q)).rows[0]!.n);
    await sql`insert into ingested_events (project_id, event_id, created_at) values (${project}, 'old', now() - interval '3 days'), (${project}, 'new', now())`.execute(
      q,
    );
    const stop = startEventIdPruning(db, 2, createLogger('silent'), 20);
    for (let i = 0; i < 50 && (await remaining()) > 1; i++) await new Promise((r) => setTimeout(r, 20));
    await stop();
    expect(await remaining()).toBe(1);
  });
});
