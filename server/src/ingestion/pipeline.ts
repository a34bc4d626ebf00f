// Applies validated events in one transaction: when this returns, every event it reports
// as applied is committed. Replayed event ids are skipped. Entities are loaded
// and written in bulk (one query per table), which is what makes 10k events/s possible.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { OBSERVATION_EVENT_TYPES, applyObservationEvent, applyTraceEvent, processingOrder, toScore, type ObservationEvent } from '../domain/ingestion/merge.ts';
import type { ObservationRecord, TraceRecord } from '../domain/ingestion/types.ts';
import { finaliseUsage, parseLegacyUsage } from '../domain/usage/normalise.ts';
import { readProvided } from '../domain/usage/index.ts';
import { droppedValueWarnings, usageWarnings } from '../domain/usage/warnings.ts';
import type { AcceptedEvent } from '../http/ingestion-events.ts';
import type { Services } from '../services.ts';
import { claimAndLoad } from '../store/existing.ts';
import { upsertObservations } from '../store/observations.ts';
import { upsertScores } from '../store/scores.ts';
import { isTransientConflict, kysely } from '../store/sql.ts';
import { upsertTraces } from '../store/traces.ts';
import { priceObservation } from './price.ts';

export interface BatchResult {
  /** warnings per event id (only events that have some) */
  warnings: Map<string, string[]>;
}



function toObservationEvent(e: AcceptedEvent, warnings: Map<AcceptedEvent, string[]>): ObservationEvent {
  const b = e.body;
  const legacyUsage = b.usage != null ? parseLegacyUsage(b.usage).value : undefined;
  const { parsed, providedUsage: usage, providedCost: cost } = readProvided({ legacyUsage, usageDetails: b.usageDetails, costDetails: b.costDetails });
  const w = [
    ...(b.usageDetails != null ? usageWarnings(b.usageDetails, parsed, finaliseUsage(usage).usage, usage) : []),
    ...droppedValueWarnings(b.usageDetails, parsed, b.costDetails),
  ];
  if (w.length) warnings.set(e, w);
  return { eventId: e.id, type: e.type, timestamp: e.timestamp, body: b, providedUsage: usage, providedCost: cost };
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

// every round lets at least one contender through, so N batches on one row need at most N rounds
const MAX_ATTEMPTS = 20;

/** since start: batches applied again after a transient conflict, and batches that ran out of attempts */
export const contentionCounters = { retries: 0, exhausted: 0 };

export async function applyBatch(em: SqlEntityManager, services: Services, projectId: string, events: AcceptedEvent[]): Promise<BatchResult> {
  const warnings = new Map<AcceptedEvent, string[]>();
  // optimistic concurrency: a row changed by a concurrent batch since this one read it rolls
  // the whole transaction back (claims included) and the batch is applied again on fresh rows;
  // so does a deadlock PostgreSQL broke (the copy of trace fields locks stored observations
  // outside the id order of the batch's own rows)
  for (let attempt = 1; ; attempt++) {
    try {
      warnings.clear();
      await em.transactional((tx) => applyProject(tx, services, projectId, events, warnings, new Date()));
      break;
    } catch (e) {
      if (!isTransientConflict(e)) throw e;
      if (attempt >= MAX_ATTEMPTS) {
        contentionCounters.exhausted++;
        throw e;
      }
      contentionCounters.retries++;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
    }
  }
  return { warnings: new Map([...warnings].map(([e, w]) => [e.id, w])) };
}

async function applyProject(tx: SqlEntityManager, services: Services, projectId: string, events: AcceptedEvent[], warnings: Map<AcceptedEvent, string[]>, now: Date) {
  const db = kysely(tx);
  // ids are known before knowing which events are replays: loading a little extra is
  // cheaper than a second round trip
  const observationIds = new Set<string>();
  const traceIds = new Set<string>();
  for (const e of events) {
    if (e.type === 'trace-create' && e.body.id != null) traceIds.add(e.body.id);
    else if (OBSERVATION_EVENT_TYPES.has(e.type)) {
      observationIds.add(e.body.id);
      if (typeof e.body.traceId === 'string') traceIds.add(e.body.traceId);
    }
  }
  const existing = await claimAndLoad(db, projectId, [...new Set(events.map((e) => e.id))], [...observationIds], [...traceIds]);
  const matcher = await services.models.matcherFor(tx, projectId, existing.modelRevision);
  const fresh: AcceptedEvent[] = [];
  for (const e of events) if (existing.claimed.delete(e.id)) fresh.push(e); // the first of duplicate ids wins

  // traces first: observations copy their grouping fields
  const byTrace = group(fresh.filter((e) => e.type === 'trace-create' && e.body.id != null), (e) => e.body.id);
  // warnings describe the payload as sent, so a replayed event gets them too
  const parsed = new Map(events.filter((e) => OBSERVATION_EVENT_TYPES.has(e.type)).map((e) => [e, toObservationEvent(e, warnings)]));
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
  const priced = await Promise.all(mergedObs.map((rec) => {
    const t = traces.get(rec.traceId!);
    const withTrace = t ? { ...rec, traceName: t.name, userId: t.userId, sessionId: t.sessionId, release: t.release, traceVersion: t.version, tags: t.tags } : rec;
    return priceObservation(withTrace, matcher, services.tokenizers);
  }));
  // rows in id order: concurrent batches touching the same rows lock them in one order (no deadlock)
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  // traces first: their copy onto stored observations then skips the rows this batch writes
  await upsertTraces(db, projectId, changedTraces.sort(byId), mergedObs.map((o) => o.id));
  await upsertObservations(db, projectId, priced.sort(byId));
  await upsertScores(db, projectId, fresh.filter((e) => e.type === 'score-create').map(toScore).sort(byId));
}
