// The first statement of a batch: claim its event ids, lock and fetch the stored state it
// merges into (observations and traces) and read the revision of the project's models, in one
// round trip.
//
// Each id is looked up on its own through the primary key (a lateral subquery kept apart by
// OFFSET 0). Written as `id = any($ids)`, the planner, whose row counts lag behind a fast
// ingest, scanned every row of the project through another (project_id, …) index: 22 ms per
// batch at 50k rows and growing with the table, against 2 ms and logarithmic this way.
//
// Locks: concurrent batches on the same rows queue here instead of colliding later. Every
// stored row the batch writes is locked (FOR NO KEY UPDATE, the lock its upsert takes anyway),
// and every trace it only reads for the grouping fields it copies is share-locked, so a
// concurrent change of that trace waits until this batch has stored its observations (and the
// trace's copy of its fields onto them then sees them). Rows are locked in one global order,
// traces by id and then observations by id, so two batches never wait on each other
// (deadlock). Only the trace copy of store/traces.ts locks rows outside that order; a deadlock
// it causes is broken by PostgreSQL and the batch applied again. Rows that do not exist yet
// cannot be locked: two batches creating the same row meet at the insert (the revision guard
// of the upserts) and one of them is applied again.
import type { ObservationRecord, TraceRecord } from '../domain/ingestion/types.ts';
import { modelRevisionSql } from './models.ts';
import { fromRow as observationFromRow } from './observations.ts';
import { prepared, sql, type Db } from './sql.ts';
import { fromRow as traceFromRow } from './traces.ts';

export interface Existing {
  /** event ids not applied before; now recorded as applied (rolled back with the batch) */
  claimed: Set<string>;
  observations: Map<string, ObservationRecord>;
  traces: Map<string, TraceRecord>;
  /** revision of the models the project sees (services/model-catalog.ts) */
  modelRevision: string;
}

export interface ClaimRequest {
  eventIds: string[];
  /** observations the batch writes */
  observationIds: string[];
  /** traces the batch writes (a trace-create) */
  writtenTraceIds: Iterable<string>;
  /** traces the batch only reads (an observation's traceId) */
  readTraceIds: Iterable<string>;
  /** the longest a statement of the batch's transaction waits for a row lock, in ms (lock_timeout) */
  lockTimeoutMs: number;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function claimAndLoad(db: Db, projectId: string, req: ClaimRequest): Promise<Existing> {
  const written = new Set(req.writtenTraceIds);
  const traceIds = [...new Set([...written, ...req.readTraceIds])].sort(byCodeUnits);
  const writes = `{${traceIds.map((id) => (written.has(id) ? 't' : 'f')).join(',')}}`; // a boolean[] literal
  const observationIds = [...new Set(req.observationIds)].sort(byCodeUnits);
  // The branches of a UNION ALL run in order: lock_timeout is set (for the rest of the
  // transaction) before any lock is waited for, then traces are locked before observations.
  const { rows } = await prepared('claim_and_load', sql<{ kind: 'l' | 'e' | 'm' | 'o' | 't'; event_id: string | null; row: Record<string, unknown> | null }>`
    with claimed as (
      insert into ingested_events (project_id, event_id) select ${projectId}, unnest(cast(${req.eventIds} as text[]))
      on conflict do nothing returning event_id)
    select 'l' as kind, set_config('lock_timeout', cast(${String(req.lockTimeoutMs)} as text), true) as event_id, null::jsonb as row
    union all
    select 'e', event_id, null from claimed
    union all
    select 'm', ${modelRevisionSql(projectId)}, null
    union all
    select 't', null, to_jsonb(t) from unnest(cast(${traceIds} as text[]), cast(${writes} as boolean[])) k(id, w)
      cross join lateral (
        select * from (select * from traces t where t.project_id = ${projectId} and t.id = k.id and k.w offset 0 for no key update) w
        union all
        select * from (select * from traces t where t.project_id = ${projectId} and t.id = k.id and not k.w offset 0 for share) r) t
    union all
    select 'o', null, to_jsonb(o) from unnest(cast(${observationIds} as text[])) k(id)
      cross join lateral (select * from observations o where o.project_id = ${projectId} and o.id = k.id offset 0 for no key update) o`).execute(db);
  const out: Existing = { claimed: new Set(), observations: new Map(), traces: new Map(), modelRevision: '' };
  for (const r of rows) {
    if (r.kind === 'e') out.claimed.add(r.event_id!);
    else if (r.kind === 'm') out.modelRevision = r.event_id!;
    else if (r.kind === 'o') out.observations.set(r.row!.id as string, observationFromRow(r.row));
    else if (r.kind === 't') out.traces.set(r.row!.id as string, traceFromRow(r.row));
  }
  return out;
}
