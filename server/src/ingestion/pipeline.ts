// Applies validated events in one transaction: when this returns, every event it reports
// as applied is committed. Replayed event ids are skipped. Entities are loaded
// and written in bulk (one query per table), which is what makes 10k events/s possible.
import type { SqlEntityManager } from '@mikro-orm/sql';
import {
  OBSERVATION_EVENT_TYPES,
  applyObservationEvent,
  applyTraceEvent,
  isUpdateEvent,
  processingOrder,
  toScore,
} from '../domain/ingestion/merge.ts';
import { backoffMs, type Backoff } from '../domain/backoff.ts';
import type { ObservationRecord, TraceRecord } from '../domain/ingestion/types.ts';
import type { AcceptedEvent } from './events.ts';
import type { Services } from '../app-context.ts';
import { claimAndLoad, lockTraces } from '../store/existing.ts';
import { upsertObservations } from '../store/observations.ts';
import { queueMoves } from '../store/analytics-changes.ts';
import { upsertScores } from '../store/scores.ts';
import { isLockTimeout, isTransientConflict, kysely, runsOneAtATime } from '../store/sql.ts';
import { upsertTraces } from '../store/traces.ts';
import { jobsFor } from './evaluation-enqueue.ts';
import { intakeJobsCte } from '../store/evaluation-jobs.ts';
import { readObservationEvent } from './observation-event.ts';
import { priceObservation } from './price.ts';

export interface BatchResult {
  /** warnings per event id (only events that have some) */
  warnings: Map<string, string[]>;
}

function group<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const i of items) {
    const k = key(i);
    const list = m.get(k);
    if (list) list.push(i);
    else m.set(k, [i]);
  }
  return m;
}

// Concurrent batches on the same stored rows queue on locks taken by their first statements
// (store/existing.ts) rather than collide. What can still roll a batch back is rare: two batches
// creating the same row at once (the revision guard of the upserts lets one through; the other,
// applied again, finds the row and locks it) or a deadlock around the copy of trace fields.
// Those are applied again after an exponential backoff with full jitter (5, 10, 20, … 200 ms).
// Before the locks, 8 writers updating the same 50 observations retried 2.3 times per batch
// and 7 of 4,309 batches ran out of 20 attempts (bench/contention.ts).
const MAX_ATTEMPTS = 10;
const CONFLICT_BACKOFF: Backoff = { baseMs: 5, maxMs: 200, jitter: 'full' };
/** the longest a statement of a batch waits for rows locked by other batches */
const LOCK_TIMEOUT_MS = 5_000;
const RETRY_AFTER_SECONDS = 1;

/** since start: batches applied again after a transient conflict, and batches given up (BatchContentionError) */
export const contentionCounters = { retries: 0, gaveUp: 0 };

/**
 * The batch could not be applied because other batches kept writing the same rows (attempts
 * used up, or a row lock waited for longer than LOCK_TIMEOUT_MS). Nothing of it was stored;
 * sending it again later is expected to succeed.
 */
export class BatchContentionError extends Error {
  readonly retryAfterSeconds = RETRY_AFTER_SECONDS;
  /** contention: other batches kept writing the rows; archive: ClickHouse, holding rows past retention, did not answer */
  readonly reason: 'contention' | 'archive' = 'contention';
}

/** the batch updates rows past PostgreSQL's retention and ClickHouse, which holds them, did not answer: nothing stored */
export class ArchiveUnavailableError extends BatchContentionError {
  override readonly reason = 'archive' as const;
}

export async function applyBatch(
  em: SqlEntityManager,
  services: Services,
  projectId: string,
  events: AcceptedEvent[],
): Promise<BatchResult> {
  // senders' batches only: the judge's own records must not count as ingestion under way
  const load = events.some((e) => e.internal) ? undefined : services.evaluation?.load;
  load?.begin();
  try {
    return await applyAttempts(em, services, projectId, events);
  } finally {
    load?.end();
  }
}

async function applyAttempts(em: SqlEntityManager, services: Services, projectId: string, events: AcceptedEvent[]): Promise<BatchResult> {
  const warnings = new Map<AcceptedEvent, string[]>();
  for (let attempt = 1; ; attempt++) {
    try {
      warnings.clear();
      const jobs = await em.transactional((tx) => applyProject(tx, services, projectId, events, warnings, new Date()));
      // committed: a worker of this process can claim them now rather than at its next poll
      if (jobs > 0) services.evaluation?.jobsEnqueued();
      services.analytics?.changed();
      services.tableGrowth?.written(events.length);
      break;
    } catch (e) {
      if (isLockTimeout(e)) {
        contentionCounters.gaveUp++;
        throw new BatchContentionError(`rows of the batch stayed locked by other batches for more than ${LOCK_TIMEOUT_MS} ms`, {
          cause: e,
        });
      }
      if (!isTransientConflict(e)) throw e;
      if (attempt >= MAX_ATTEMPTS) {
        contentionCounters.gaveUp++;
        throw new BatchContentionError(`the batch met concurrent writes on each of ${MAX_ATTEMPTS} attempts`, { cause: e });
      }
      contentionCounters.retries++;
      await new Promise((r) => setTimeout(r, backoffMs(attempt, CONFLICT_BACKOFF)));
    }
  }
  return { warnings: new Map([...warnings].map(([e, w]) => [e.id, w])) };
}

/** the number of evaluation jobs the batch enqueued */
async function applyProject(
  tx: SqlEntityManager,
  services: Services,
  projectId: string,
  events: AcceptedEvent[],
  warnings: Map<AcceptedEvent, string[]>,
  now: Date,
): Promise<number> {
  const db = kysely(tx);
  // ids are known before knowing which events are replays: loading a little extra is
  // cheaper than a second round trip
  const observationIds = new Set<string>();
  const writtenTraceIds = new Set<string>();
  const readTraceIds = new Set<string>();
  for (const e of events) {
    if (e.type === 'trace-create' && e.body.id != null) writtenTraceIds.add(e.body.id);
    else if (OBSERVATION_EVENT_TYPES.has(e.type)) {
      observationIds.add(e.body.id);
      if (typeof e.body.traceId === 'string') readTraceIds.add(e.body.traceId);
    }
  }
  if (!runsOneAtATime(tx))
    await lockTraces(db, projectId, { written: writtenTraceIds, read: readTraceIds, lockTimeoutMs: LOCK_TIMEOUT_MS });
  const existing = await claimAndLoad(db, projectId, {
    eventIds: [...new Set(events.map((e) => e.id))],
    observationIds,
    traceIds: [...writtenTraceIds, ...readTraceIds],
  });
  // rows retention removed from PostgreSQL: a late event merges with their ClickHouse copy
  // (asked only for observations the batch only updates: a new observation's create would ask for nothing)
  const archive = services.analytics?.archive;
  const archived = new Set<string>();
  if (archive) {
    const created = new Set(events.filter((e) => OBSERVATION_EVENT_TYPES.has(e.type) && !isUpdateEvent(e.type)).map((e) => e.body.id));
    const lost = [...observationIds].filter((id) => !existing.observations.has(id) && !created.has(id));
    if (lost.length) {
      let found: Awaited<ReturnType<typeof archive.observations>>;
      try {
        found = await archive.observations(projectId, lost);
      } catch (e) {
        throw new ArchiveUnavailableError(`ClickHouse did not answer for rows past PostgreSQL's retention: ${(e as Error).message}`, {
          cause: e,
        });
      }
      for (const o of found) {
        existing.observations.set(o.id, o);
        archived.add(o.id);
      }
    }
  }
  const matcher = await services.models.matcherFor(tx, projectId, existing.modelRevision);
  const fresh: AcceptedEvent[] = [];
  for (const e of events) if (existing.claimed.delete(e.id)) fresh.push(e); // the first of duplicate ids wins

  // traces first: observations copy their grouping fields
  const byTrace = group(
    fresh.filter((e) => e.type === 'trace-create' && e.body.id != null),
    (e) => e.body.id,
  );
  // warnings describe the payload as sent, so a replayed event gets them too
  const parsed = new Map(
    events
      .filter((e) => OBSERVATION_EVENT_TYPES.has(e.type))
      .map((e) => {
        const read = readObservationEvent(e);
        if (read.warnings.length) warnings.set(e, read.warnings);
        return [e, read.event];
      }),
  );
  const obsEvents = fresh.filter((e) => parsed.has(e)).map((e) => parsed.get(e)!);
  const byObs = group(obsEvents, (e) => e.body.id);

  const mergedObs: ObservationRecord[] = [];
  for (const [id, evs] of byObs) {
    let rec = existing.observations.get(id);
    for (const ev of processingOrder(evs)) rec = applyObservationEvent(rec, ev, now);
    mergedObs.push(rec!);
  }
  const traces = existing.traces;
  const changedTraces: TraceRecord[] = [];
  for (const [id, evs] of byTrace) {
    let t = traces.get(id);
    for (const e of processingOrder(evs)) t = applyTraceEvent(t, e, now);
    traces.set(id, t!);
    changedTraces.push(t!);
  }

  // concurrently: observations that need a tokenizer wait on worker threads, not on each other
  const priced = await Promise.all(
    mergedObs.map((rec) => {
      const t = traces.get(rec.traceId!);
      return priceObservation(rec, matcher, services.tokenizers, t);
    }),
  );
  // rows in id order: concurrent batches inserting the same new rows take their locks in one
  // order (stored rows were locked by the claim already; see store/upsert.ts guardedUpsert)
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  // traces first: their copy onto stored observations then skips the rows this batch writes
  await upsertTraces(
    db,
    projectId,
    changedTraces.sort(byId),
    mergedObs.map((o) => o.id),
  );
  // evaluation jobs commit with the observations they judge, or not at all: in the same statement,
  // into the intake the evaluation worker admits them from
  const rules = services.evaluation ? await services.evaluation.rules.get(tx, projectId) : [];
  const jobs = rules.length ? jobsFor(rules, priced) : [];
  // the metrics roll-up follows the rows in the same statement: what they held out, what they hold now in
  priced.sort(byId);
  await upsertObservations(
    db,
    projectId,
    priced,
    priced.flatMap((o) => existing.observations.get(o.id) ?? []),
    jobs.length ? { key: 'jobs', cte: intakeJobsCte(projectId, jobs) } : undefined,
  );
  // an archived row stored again is an insert to the feed's triggers: the hour it had in ClickHouse is told apart
  const moved = priced.flatMap((o) => {
    const was = archived.has(o.id) ? existing.observations.get(o.id) : undefined;
    const hour = (d: Date) => Math.floor(d.getTime() / 3_600_000);
    return was && hour(was.startTime) !== hour(o.startTime) ? [{ id: o.id, oldTimeMs: was.startTime.getTime() }] : [];
  });
  if (moved.length) await queueMoves(db, projectId, moved);
  // one row per score id: of two events for the same score in a batch the later one wins (one
  // upsert cannot write a row twice)
  const scores = new Map(
    processingOrder(fresh.filter((e) => e.type === 'score-create'))
      .map(toScore)
      .map((sc) => [sc.id, sc]),
  );
  await upsertScores(db, projectId, [...scores.values()].sort(byId));
  return jobs.length;
}
