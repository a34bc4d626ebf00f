// The change feed to the analytics store, PostgreSQL's side: the triggers that record each
// change of observations, traces and scores (installed while ClickHouse is configured), taking a
// batch of changes for export (rows locked, skipped by other exporters), reading the rows they
// name as they are now, and forgetting changes once ClickHouse holds them.
import { type ChColumn, EXPORTED, type ExportedEntity } from '../domain/analytics/tables.ts';
import { type Db, sql, type Timestamp, toDate } from './sql.ts';

const FED = [
  { table: 'observations', entity: 'o' },
  { table: 'traces', entity: 't' },
  { table: 'scores', entity: 's' },
] as const;

/**
 * Installs the feed's triggers (enabled) or drops them. Returns true when they were installed
 * now for the first time: the rows already stored are then queued once, so ClickHouse starts
 * complete.
 */
export async function setFeed(db: Db, enabled: boolean): Promise<boolean> {
  const present = await sql<{ name: string; old: boolean }>`
    select tgname || ' on ' || tgrelid::regclass::text as name, tgoldtable is not null as old
    from pg_trigger where tgname like 'analytics_feed_%'`.execute(db);
  const had = present.rows.length > 0;
  if (!enabled) {
    for (const { table } of FED)
      for (const op of ['ins', 'upd', 'del'])
        await sql`drop trigger if exists ${sql.raw(`analytics_feed_${op}`)} on ${sql.table(table)}`.execute(db);
    return false;
  }
  // every trigger in place as this version defines it: no DDL (it would lock the three tables for a
  // moment on each start)
  const want = FED.flatMap(({ table }) => TRIGGERS.map((t) => `${t.name} on ${table}:${t.old(table)}`));
  const have = new Set(present.rows.map((r) => `${r.name}:${r.old}`));
  if (want.every((w) => have.has(w)) && have.size === want.length) return false;
  for (const { table, entity } of FED)
    for (const t of TRIGGERS)
      await sql`create or replace trigger ${sql.raw(t.name)} after ${sql.raw(t.event)} on ${sql.table(table)} referencing ${sql.raw(t.referencing(table))} for each statement execute function analytics_feed(${sql.raw(`'${entity}'`)})`.execute(
        db,
      );
  if (had) return false;
  // observations in time order: each export batch then touches a few neighbouring hours, whose
  // roll-ups it recomputes (in id order every batch would touch every day)
  for (const { table, entity } of FED)
    await sql`insert into analytics_changes (entity, project_id, id) select ${entity}::"char", project_id, id from ${sql.table(table)}${sql.raw(entity === 'o' ? ' order by start_time' : '')}`.execute(
      db,
    );
  return true;
}

// an update of an observation reads its old start_time too (the hour it leaves: the migration's
// analytics_feed function)
const TRIGGERS = [
  { name: 'analytics_feed_ins', event: 'insert', referencing: () => 'new table as new_rows', old: () => false },
  {
    name: 'analytics_feed_upd',
    event: 'update',
    referencing: (table: string) => (table === 'observations' ? 'old table as old_rows new table as new_rows' : 'new table as new_rows'),
    old: (table: string) => table === 'observations',
  },
  { name: 'analytics_feed_del', event: 'delete', referencing: () => 'old table as old_rows', old: () => true },
] as const;

/** whether the feed's triggers are installed, and how many changes wait */
export async function feedState(db: Db): Promise<{ installed: boolean; rows: number }> {
  const r = await sql<{ installed: boolean; n: string }>`
    select exists (select 1 from pg_trigger where tgname like 'analytics_feed_%') as installed,
           (select count(*) from analytics_changes)::text as n`.execute(db);
  return { installed: Boolean(r.rows[0]?.installed), rows: Number(r.rows[0]?.n ?? 0) };
}

/** turns the feed off: drops the triggers and forgets the queued changes */
export async function feedOff(db: Db): Promise<number> {
  await setFeed(db, false);
  const r = await sql`delete from analytics_changes`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export interface Change {
  seq: string;
  /** a row of observations, traces or scores; `h`: an hour whose roll-ups wait to be recomputed (queueRecomputes) */
  entity: 'o' | 't' | 's' | 'h';
  projectId: string;
  id: string;
  /** an observation moved to another hour, or deleted: the start time (ms) it had; of a mark, its hour */
  oldTimeMs: number | null;
}

/**
 * The oldest changes after `after` no other exporter holds, locked until the caller's transaction
 * ends. `after` skips the head of the queue that exports have emptied: the index still holds its
 * dead entries until vacuum, and a scan from the start reads through all of them (taking 20,000
 * changes of an 11 M backlog took 10 s, and grew with every batch).
 */
export async function takeChanges(tx: Db, limit: number, after = '0'): Promise<Change[]> {
  // ORDER BY names the table's column: a bare `seq` is the output column, seq::text, which sorted the
  // whole queue as text (no index, and "10" before "9": not the oldest first)
  const r = await sql<{ seq: string; entity: string; project_id: string; id: string; old_ms: string | null }>`
    select seq::text as seq, entity::text as entity, project_id, id, (extract(epoch from old_time) * 1000)::bigint::text as old_ms
    from analytics_changes where seq > ${after}::bigint order by analytics_changes.seq limit ${limit} for update skip locked`.execute(tx);
  return r.rows.map((c) => ({
    seq: c.seq,
    entity: c.entity as Change['entity'],
    projectId: c.project_id,
    id: c.id,
    oldTimeMs: c.old_ms === null ? null : Number(c.old_ms),
  }));
}

/**
 * A column as its ClickHouse JSONEachRow value, built by PostgreSQL: numbers stay JSON numbers
 * with every digit numeric holds (ClickHouse reads a Decimal from the number's text), JSON
 * columns become their text, the numeric maps keep only numbers, and empty arrays and maps stand
 * for NULL where ClickHouse's column is not nullable.
 */
function exportExpr(c: ChColumn): string {
  const col = `t.${c.name}`;
  switch (c.from) {
    case 'json':
      return `${col}::text`;
    case 'usageMap':
    case 'costMap':
      // the map as it is when every value is a number (always, as Tally writes them): the check costs
      // a third of the filter, which takes each map apart (measured on 20,000 rows: 220 against 400 ms)
      return `case when ${col} is null or jsonb_path_exists(${col}, 'strict $.* ? (@.type() != "number")') then coalesce((select jsonb_object_agg(k, v) from jsonb_each(${col}) e(k, v) where jsonb_typeof(v) = 'number'), '{}'::jsonb) else ${col} end`;
    case 'array':
      return `coalesce(${col}, '{}')`;
    case 'time':
      // ClickHouse's own text form of a UTC DateTime64(6), which it parses without guessing
      return `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')`;
    default:
      return col;
  }
}

/**
 * The named rows of a fed table as they are now, each as one JSONCompactEachRow line (the table's
 * columns in EXPORTED's order, then _version, the change's sequence number, and _deleted); a row
 * missing from the answer was deleted.
 */
export async function exportLines(
  tx: Db,
  entity: ExportedEntity,
  changes: Change[],
): Promise<{ projectId: string; id: string; line: string; startMs: number | null }[]> {
  const { table, columns } = EXPORTED[entity];
  const fields = columns.map(exportExpr).join(', ');
  // an observation's start: the hour its roll-up is recomputed for
  const start = sql.raw(entity === 'o' ? '(extract(epoch from t.start_time) * 1000)::bigint::text' : 'null::text');
  const r = await sql<{ project_id: string; id: string; line: string; start_ms: string | null }>`
    select t.project_id, t.id, json_build_array(${sql.raw(fields)}, k.seq, 0)::text as line, ${start} as start_ms
    from ${sql.table(table)} t
    join unnest(${changes.map((c) => c.projectId)}::text[], ${changes.map((c) => c.id)}::text[], ${changes.map((c) => c.seq)}::bigint[])
      as k(project_id, id, seq)
      on t.project_id = k.project_id and t.id = k.id`.execute(tx);
  return r.rows.map((x) => ({ projectId: x.project_id, id: x.id, line: x.line, startMs: x.start_ms === null ? null : Number(x.start_ms) }));
}

/** a change the triggers cannot see (a row deleted where PostgreSQL no longer holds it): the exporter reads the row as missing and sends a tombstone */
export async function queueChange(db: Db, entity: ExportedEntity, projectId: string, id: string): Promise<void> {
  await sql`insert into analytics_changes (entity, project_id, id) values (${entity}::"char", ${projectId}, ${id})`.execute(db);
}

/**
 * A version for a roll-up recompute, above every earlier one: taken under a transaction-scoped
 * lock that serialises recomputes across exporters and instances, so the last recompute of an
 * hour (which saw every row inserted before it) is the one ClickHouse keeps.
 */
export async function rollupVersion(tx: Db): Promise<bigint> {
  await sql`select pg_advisory_xact_lock(${ROLLUP_LOCK})`.execute(tx);
  const r = await sql<{ v: string }>`select nextval('analytics_changes_seq_seq')::text as v`.execute(tx);
  return BigInt(r.rows[0]!.v);
}
// an arbitrary constant of Tally's: the advisory lock of roll-up recomputes
const ROLLUP_LOCK = 7_301_112_023;

/** observations stored again from ClickHouse's copy at another hour: the hours they left, for the exporter (the triggers saw inserts) */
export async function queueMoves(db: Db, projectId: string, moves: { id: string; oldTimeMs: number }[]): Promise<void> {
  await sql`insert into analytics_changes (entity, project_id, id, old_time)
    select 'o', ${projectId}, m.id, to_timestamp(m.ms / 1000.0)
    from unnest(${moves.map((m) => m.id)}::text[], ${moves.map((m) => m.oldTimeMs)}::bigint[]) as m(id, ms)`.execute(db);
}

/**
 * Hours whose roll-ups an exporter left to recompute later (it was draining a backlog), queued as
 * marks behind the changes waiting: the exporter that takes a mark recomputes its hour. One mark
 * per hour and project, whatever waits already (a second one only costs a recompute).
 */
export async function queueRecomputes(tx: Db, hours: { projectId: string; hourMs: number }[]): Promise<void> {
  if (!hours.length) return;
  await sql`insert into analytics_changes (entity, project_id, id, old_time)
    select 'h', h.project_id, h.ms::text, to_timestamp(h.ms / 1000.0)
    from unnest(${hours.map((h) => h.projectId)}::text[], ${hours.map((h) => h.hourMs)}::bigint[]) as h(project_id, ms)`.execute(tx);
}

export async function forgetChanges(tx: Db, seqs: string[]): Promise<void> {
  if (seqs.length) await sql`delete from analytics_changes where seq = any(${seqs}::bigint[])`.execute(tx);
}

/**
 * Vacuums the feed: every export deletes the changes it shipped, and until vacuum their dead rows
 * and index entries stay, which every take from the start of the queue and every lag count read
 * through (11 M exported changes: 0.54-0.71 s of a backend's CPU per take, one every 250 ms while
 * the feed is empty, with autovacuum off). A table emptied so is truncated to nothing. Outside a
 * transaction (VACUUM refuses to run in one).
 */
export async function vacuumFeed(db: Db): Promise<void> {
  await sql`vacuum analytics_changes`.execute(db);
}

/** changes counted one by one; past this the lag is the span of the queued sequence numbers */
const EXACT_LAG = 10_000;

/**
 * How far the analytics store is behind: changes not yet exported (exact up to 10,000; past that
 * the span of their sequence numbers, an upper bound, since health is polled and counting an 11 M
 * backlog took 0.5–0.7 s each time, while the table's statistics can be missing after a bulk
 * queue), and the age of the oldest (the first by sequence, through the primary key).
 */
export async function feedLag(db: Db): Promise<{ rows: number; oldest: Date | null }> {
  const r = await sql<{ n: string; first: string | null; last: string | null; oldest: Timestamp | null }>`
    with head as (select c.seq, c.at from analytics_changes c order by c.seq limit 1)
    select (select count(*) from (select 1 from analytics_changes limit ${EXACT_LAG + 1}) x)::text as n,
           (select seq::text from head) as first,
           (select max(seq)::text from analytics_changes) as last,
           (select at from head) as oldest`.execute(db);
  const row = r.rows[0];
  const counted = Number(row?.n ?? 0);
  const span = row?.first && row.last ? Number(BigInt(row.last) - BigInt(row.first) + 1n) : 0;
  return { rows: counted > EXACT_LAG ? Math.max(counted, span) : counted, oldest: row?.oldest ? toDate(row.oldest) : null };
}

/**
 * Deletes up to `limit` rows of one project's table older than `before` that ClickHouse holds
 * (no change of theirs waits in the feed), without feeding the deletion to ClickHouse. Returns
 * how many it deleted.
 */
export async function deleteExported(db: Db, entity: ExportedEntity, projectId: string, before: Date, limit: number): Promise<number> {
  const table = EXPORTED[entity].table;
  const time = sql.raw(entity === 'o' ? 'start_time' : 'timestamp');
  return db.transaction().execute(async (tx) => {
    // the feed's triggers skip this transaction: the rows stay in ClickHouse
    await sql`select set_config('tally.analytics_skip', 'on', true)`.execute(tx);
    const r = await sql`
      delete from ${sql.table(table)} t using (
        select x.project_id, x.id from ${sql.table(table)} x
        where x.project_id = ${projectId} and x.${time} < ${before}
          and not exists (select 1 from analytics_changes c where c.project_id = x.project_id and c.id = x.id and c.entity = ${entity}::"char")
        limit ${limit} for update skip locked
      ) d
      where t.project_id = d.project_id and t.id = d.id`.execute(tx);
    return Number(r.numAffectedRows ?? 0);
  });
}

export async function projectIds(db: Db): Promise<string[]> {
  const r = await sql<{ id: string }>`select id from projects`.execute(db);
  return r.rows.map((x) => x.id);
}
