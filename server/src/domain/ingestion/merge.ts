// Folding ingestion events into an observation's or trace's state, field by field in event
// order (as Langfuse replays events, by timestamp): each field keeps the non-null value of the
// event with the latest timestamp that set it, whether the events arrive in one batch or in
// many, in any order (field-times.ts keeps which event set each field). At the same timestamp
// an update comes after a create; of two events of the same kind and timestamp, the one
// applied later wins. The usage and cost maps are replaced whole by the latest event that
// carries a non-empty map. Derived fields (buckets, cost, pricing) are recomputed afterwards
// from the merged state.
import { randomUUID } from 'node:crypto';
import { normaliseEnvironment } from './environment.ts';
import { claimField, eventOrder, type FieldTimes } from './field-times.ts';
import type { ObservationRecord, ObservationType, ScoreRecord, TraceRecord } from './types.ts';
import { inferDataType, storedValues } from '../scores/data-type.ts';
import type { GenerationBody, LegacyObservationBody, ScoreBody, SdkLogEvent, TraceBody } from '../../../../generated/client/types.gen.ts';

const TYPE_OF_EVENT: Record<string, ObservationType> = {
  'span-create': 'SPAN',
  'span-update': 'SPAN',
  'event-create': 'EVENT',
  'generation-create': 'GENERATION',
  'generation-update': 'GENERATION',
  'agent-create': 'AGENT',
  'tool-create': 'TOOL',
  'chain-create': 'CHAIN',
  'retriever-create': 'RETRIEVER',
  'evaluator-create': 'EVALUATOR',
  'embedding-create': 'EMBEDDING',
  'guardrail-create': 'GUARDRAIL',
};

export const OBSERVATION_EVENT_TYPES = new Set([...Object.keys(TYPE_OF_EVENT), 'observation-create', 'observation-update']);
export const isUpdateEvent = (type: string) => type.endsWith('-update');

/** the body of one of the event types (the IngestionEvent union of generated/client/types.gen.ts) */
type WireBody = TraceBody | ScoreBody | GenerationBody | LegacyObservationBody | NonNullable<SdkLogEvent['body']>;
type KeysOf<U> = U extends unknown ? keyof U : never;
type FieldOf<U, K extends PropertyKey> = U extends unknown ? (K extends keyof U ? U[K] : undefined) : never;

/**
 * The fields of an event body whose event type is not known: each field typed as whatever a body
 * of any event type may hold there (a score's `name` is a string, a trace's may be null).
 */
export type BodyFields = { [K in KeysOf<WireBody>]?: FieldOf<WireBody, K> };

/**
 * An observation event's body as ingestion accepts it (ingestion/events.ts): the generation body
 * (span and event bodies hold a part of it), a legacy event's `type`, and the observation's id
 * (which the validator fills in from the event's own id for a legacy event sent without one).
 */
export type ObservationBody = GenerationBody & { id: string; type?: LegacyObservationBody['type'] };

export interface ObservationEvent {
  eventId: string;
  type: string;
  timestamp: Date;
  body: ObservationBody;
  /** this event's usage/cost, already normalised (undefined: the event carried none) */
  providedUsage?: Record<string, number>;
  providedCost?: Record<string, number>;
  /** written by Tally itself (not a sender): may use the reserved langfuse-* environments */
  internal?: boolean;
}

const date = (v: unknown) => (typeof v === 'string' ? new Date(v) : null);
const toDate = (v: unknown) => new Date(v as string);

/** how a body field becomes a record field: as is, normalised as an environment, or converted */
type Convert = true | 'environment' | ((v: unknown) => unknown);

/**
 * copies each non-null body field onto the record, converted as given, unless an event of a later
 * order set it. `fields` are constant lists (below), not an object literal per call whose entries
 * were built anew for every ingested event.
 */
function overlay<T extends { fieldTimes: FieldTimes }>(
  rec: T,
  body: Readonly<Record<string, unknown>>,
  order: number,
  fields: readonly (readonly [keyof T & string, Convert])[],
  internal?: boolean,
) {
  // each record field takes the body field of the same name, whose wire type (converted as
  // listed) is the record field's type: written through an untyped view of the record
  const fieldsOfRec: Record<string, unknown> = rec;
  for (const [key, convert] of fields) {
    const v = body[key];
    if (v !== undefined && v !== null && claimField(rec.fieldTimes, key, order)) {
      fieldsOfRec[key] = convert === true ? v : convert === 'environment' ? normaliseEnvironment(v, internal) : convert(v);
    }
  }
}

const OBSERVATION_BODY_FIELDS: readonly (readonly [keyof ObservationRecord & string, Convert])[] = [
  ['traceId', true],
  ['parentObservationId', true],
  ['name', true],
  ['environment', 'environment'],
  ['level', true],
  ['statusMessage', true],
  ['version', true],
  ['startTime', toDate],
  ['endTime', toDate],
  ['completionStartTime', toDate],
  ['model', true],
  ['modelParameters', true],
  ['input', true],
  ['output', true],
  ['metadata', true],
  ['promptName', true],
  ['promptVersion', true],
];

const TRACE_BODY_FIELDS: readonly (readonly [keyof TraceRecord & string, Convert])[] = [
  ['timestamp', toDate],
  ['name', true],
  ['userId', true],
  ['sessionId', true],
  ['release', true],
  ['version', true],
  ['externalId', true],
  ['environment', 'environment'],
  ['tags', (v: unknown) => [...new Set(v as NonNullable<TraceBody['tags']>)].sort()],
  ['public', true],
  ['input', true],
  ['output', true],
  ['metadata', true],
];

/** The order the batch endpoint reports events in, as Langfuse does: creates by timestamp, then updates by timestamp. */
export function responseOrder<T extends { type: string; timestamp: Date }>(events: T[]): T[] {
  return [...events].sort(
    (a, b) => Number(isUpdateEvent(a.type)) - Number(isUpdateEvent(b.type)) || a.timestamp.getTime() - b.timestamp.getTime(),
  );
}

/** Events of one entity in processing order: by timestamp, a create before an update at the same instant. */
export function processingOrder<T extends { type: string; timestamp: Date }>(events: T[]): T[] {
  return [...events].sort(
    (a, b) => a.timestamp.getTime() - b.timestamp.getTime() || Number(isUpdateEvent(a.type)) - Number(isUpdateEvent(b.type)),
  );
}

export function emptyObservation(id: string, type: ObservationType, startTime: Date, now: Date): ObservationRecord {
  return {
    id,
    traceId: null,
    parentObservationId: null,
    type,
    name: null,
    environment: 'default',
    level: 'DEFAULT',
    statusMessage: null,
    version: null,
    startTime,
    endTime: null,
    completionStartTime: null,
    model: null,
    modelParameters: null,
    input: null,
    output: null,
    metadata: null,
    promptName: null,
    promptVersion: null,
    providedUsageDetails: null,
    providedCostDetails: null,
    usageDetails: {},
    costDetails: {},
    inputUsage: 0,
    outputUsage: 0,
    totalUsage: 0,
    inputCost: null,
    outputCost: null,
    totalCost: null,
    modelId: null,
    usagePricingTierId: null,
    usagePricingTierName: null,
    pricesUsed: null,
    costStatus: 'none',
    unpricedUsageKeys: [],
    usagePricedAs: null,
    traceName: null,
    userId: null,
    sessionId: null,
    release: null,
    traceVersion: null,
    tags: [],
    createdAt: now,
    updatedAt: now,
    revision: 0,
    fieldTimes: {},
  };
}

export function applyObservationEvent(existing: ObservationRecord | undefined, ev: ObservationEvent, now: Date): ObservationRecord {
  const b = ev.body;
  const update = isUpdateEvent(ev.type);
  const order = eventOrder(ev.timestamp, update);
  const eventType: ObservationType | undefined = TYPE_OF_EVENT[ev.type] ?? b.type;
  const rec = existing
    ? { ...existing, fieldTimes: { ...existing.fieldTimes } }
    : emptyObservation(b.id, eventType ?? 'SPAN', date(b.startTime) ?? ev.timestamp, now);
  // a create gives the type (and may turn a placeholder made by an update into its real type)
  if (eventType && !update && claimField(rec.fieldTimes, 'type', order)) rec.type = eventType;

  overlay(rec, b, order, OBSERVATION_BODY_FIELDS, ev.internal);
  if (ev.providedUsage && Object.keys(ev.providedUsage).length && claimField(rec.fieldTimes, 'providedUsageDetails', order))
    rec.providedUsageDetails = ev.providedUsage;
  if (ev.providedCost && Object.keys(ev.providedCost).length && claimField(rec.fieldTimes, 'providedCostDetails', order))
    rec.providedCostDetails = ev.providedCost;
  // an observation must belong to a trace; Langfuse gives orphans a fresh one
  if (!rec.traceId) rec.traceId = randomUUID();
  rec.updatedAt = now;
  return rec;
}

/** a trace-create event with an id (ingestion applies no other) */
export interface TraceEvent {
  timestamp: Date;
  body: TraceBody & { id: string };
  internal?: boolean;
}

/** a score-create event; its body typed as any event's, as ingestion/pipeline.ts hands it over */
export interface ScoreEvent {
  timestamp: Date;
  body: BodyFields;
}

export function applyTraceEvent(existing: TraceRecord | undefined, e: TraceEvent, now: Date): TraceRecord {
  const t: TraceRecord = existing
    ? { ...existing, fieldTimes: { ...existing.fieldTimes } }
    : {
        id: e.body.id,
        timestamp: e.timestamp,
        name: null,
        userId: null,
        sessionId: null,
        release: null,
        version: null,
        externalId: null,
        environment: 'default',
        tags: [],
        public: false,
        input: null,
        output: null,
        metadata: null,
        createdAt: now,
        updatedAt: now,
        revision: 0,
        fieldTimes: {},
      };
  // trace-create is the only trace event (an upsert): no update to order after it
  overlay(t, e.body, eventOrder(e.timestamp, false), TRACE_BODY_FIELDS, e.internal);
  t.updatedAt = now;
  return t;
}

export function toScore(e: ScoreEvent): ScoreRecord {
  const b = e.body;
  const dataType = inferDataType(b.value, b.dataType);
  return {
    id: b.id ?? randomUUID(),
    timestamp: b.timestamp ? new Date(b.timestamp) : e.timestamp,
    // a score-create body's name is a string (its schema requires one)
    name: b.name as string,
    ...storedValues(b.value, dataType),
    dataType,
    source: b.source ?? 'API',
    traceId: b.traceId ?? null,
    observationId: b.observationId ?? null,
    sessionId: b.sessionId ?? null,
    datasetRunId: b.datasetRunId ?? null,
    configId: b.configId ?? null,
    comment: b.comment ?? null,
    metadata: b.metadata ?? null,
    environment: normaliseEnvironment(b.environment),
  };
}
