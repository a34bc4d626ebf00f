// The first statements of a batch: lock the traces it names, then claim its event ids, lock
// and fetch the stored state it merges into (observations and traces) and read the revision of
// the project's models.
//
// Each id is looked up on its own through the primary key (a lateral subquery kept apart by
// OFFSET 0). Written as `id = any($ids)`, the planner, whose row counts lag behind a fast
// ingest, scanned every row of the project through another (project_id, …) index: 22 ms per
// batch at 50k rows and growing with the table, against 2 ms and logarithmic this way.
//
// Locks: concurrent batches on the same rows queue here instead of colliding later.
// - Traces (lockTraces): a transaction-level advisory lock per trace the batch names, exclusive
//   for a trace it writes (trace-create), shared for one it only reads (an observation's
//   traceId, for the grouping fields copied onto the observation). So a trace change waits for
//   the batches writing observations under that trace, and they wait for it: the copy of its
//   fields (store/traces.ts) sees every observation committed before, and a batch after it
//   reads the changed trace. Advisory locks rather than row locks: they also cover a trace not
//   stored yet, and they are granted in request order, where a stream of FOR SHARE row locks
//   kept a waiting trace change out for the whole lock_timeout (503s in bench/contention.ts).
//   They are taken by a statement of their own, so that the claim, a later statement, reads the
//   traces as committed by the batch waited for (a statement reads what was committed when it
//   started).
// - Observations (claimAndLoad): every stored row the batch writes, FOR NO KEY UPDATE (the lock
//   its upsert takes anyway).
// Locks are taken in one global order, trace buckets by number and then observations by id, so
// two batches never wait on each other (deadlock). The trace copy locks observations outside that
// order, but only those of a trace held exclusively, which no batch naming that trace can hold.
// Rows that do not exist yet cannot be locked: two batches creating the same row meet at the
// insert (store/upsert.ts guardedUpsert) and one of them is applied again.
import type { ObservationRecord, TraceRecord } from '../domain/ingestion/types.ts';
import { modelRevisionSql } from './models.ts';
import { fromRow as observationFromRow, type ObservationRow } from './observations.ts';
import { prepared, sql, type Db } from './sql.ts';
import { fromRow as traceFromRow, type TraceRow } from './traces.ts';

export interface Existing {
  /** event ids not applied before; now recorded as applied (rolled back with the batch) */
  claimed: Set<string>;
  observations: Map<string, ObservationRecord>;
  traces: Map<string, TraceRecord>;
  /** revision of the models the project sees (caches/model-catalog.ts) */
  modelRevision: string;
}

export interface ClaimRequest {
  eventIds: string[];
  /** observations the batch writes: locked */
  observationIds: Iterable<string>;
  /** traces the batch writes or reads (locked by lockTraces before) */
  traceIds: Iterable<string>;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Trace ids are locked as one of this many buckets per project (by hash), which bounds the
 * advisory locks a batch holds whatever the number of traces it names: PostgreSQL keeps them in
 * a shared table sized max_locks_per_transaction (64) × max_connections. Two batches naming
 * different traces of one bucket wait for each other only if one of them writes its trace.
 */
const TRACE_LOCK_BUCKETS = 1024;

/** 32-bit FNV-1a of the UTF-16 code units */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export interface TraceLocks {
  /** traces the batch writes (a trace-create) */
  written: Iterable<string>;
  /** traces the batch only reads (an observation's traceId) */
  read: Iterable<string>;
  /** the longest a statement of the batch's transaction waits for a lock, in ms (lock_timeout) */
  lockTimeoutMs: number;
}

/**
 * The first statement of a batch's transaction: sets its lock_timeout and locks the traces it
 * names. Not needed on PGlite, whose transactions run one at a time (sql.ts runsOneAtATime).
 */
export async function lockTraces(db: Db, projectId: string, req: TraceLocks): Promise<void> {
  const exclusive = new Map<number, boolean>();
  for (const id of req.written) exclusive.set(fnv1a(id) % TRACE_LOCK_BUCKETS, true);
  for (const id of req.read) {
    const bucket = fnv1a(id) % TRACE_LOCK_BUCKETS;
    if (!exclusive.has(bucket)) exclusive.set(bucket, false);
  }
  const buckets = [...exclusive.keys()].sort((a, b) => a - b);
  const modes = `{${buckets.map((b) => (exclusive.get(b) ? 't' : 'f')).join(',')}}`; // a boolean[] literal
  // one advisory key space per project: (project hash, bucket)
  await prepared(
    'lock_traces',
    sql`select set_config('lock_timeout', cast(${String(req.lockTimeoutMs)} as text), true),
    (select count(*) from (
      select case when k.x then pg_advisory_xact_lock(cast(${fnv1a(projectId) | 0} as integer), k.b)
        else pg_advisory_xact_lock_shared(cast(${fnv1a(projectId) | 0} as integer), k.b) end
      from unnest(cast(${`{${buckets.join(',')}}`} as integer[]), cast(${modes} as boolean[])) k(b, x) offset 0) a)`,
  ).execute(db);
}

export async function claimAndLoad(db: Db, projectId: string, req: ClaimRequest): Promise<Existing> {
  const traceIds = [...new Set(req.traceIds)];
  // in id order: the order concurrent batches lock them in
  const observationIds = [...new Set(req.observationIds)].sort(byCodeUnits);
  const { rows } = await prepared(
    'claim_and_load',
    sql<
      | { kind: 'e' | 'm'; event_id: string | null; row: null }
      | { kind: 'o'; event_id: null; row: ObservationRow }
      | { kind: 't'; event_id: null; row: TraceRow }
    >`
    with claimed as (
      insert into ingested_events (project_id, event_id) select ${projectId}, unnest(cast(${req.eventIds} as text[]))
      on conflict do nothing returning event_id)
    select 'e' as kind, event_id, null::jsonb as row from claimed
    union all
    select 'm', ${modelRevisionSql(projectId)}, null
    union all
    select 't', null, to_jsonb(t) from unnest(cast(${traceIds} as text[])) k(id)
      cross join lateral (select * from traces t where t.project_id = ${projectId} and t.id = k.id offset 0) t
    union all
    select 'o', null, to_jsonb(o) from unnest(cast(${observationIds} as text[])) k(id)
      cross join lateral (select * from observations o where o.project_id = ${projectId} and o.id = k.id offset 0 for no key update) o`,
  ).execute(db);
  const out: Existing = { claimed: new Set(), observations: new Map(), traces: new Map(), modelRevision: '' };
  for (const r of rows) {
    if (r.kind === 'e') out.claimed.add(r.event_id!);
    else if (r.kind === 'm') out.modelRevision = r.event_id!;
    else if (r.kind === 'o') out.observations.set(r.row!.id as string, observationFromRow(r.row));
    else if (r.kind === 't') out.traces.set(r.row!.id as string, traceFromRow(r.row));
  }
  return out;
}
