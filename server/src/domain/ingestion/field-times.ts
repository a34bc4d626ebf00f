// Which event last set each field of an observation or trace, for the ordering rule of merge.ts:
// a field keeps the value of the event with the latest order that set it, whatever order
// events arrive in.
//
// An event's order is its timestamp in epoch milliseconds, plus half a millisecond for an
// update: at the same instant an update comes after a create, as processingOrder sorts the
// events of one batch.
//
// At rest (column field_event_times) the times are a JSON array of [order, bit mask of the
// fields set by events of that order]: [[1767225600000, 1047], [1767225605000.5, 512]]. A
// generation's create sets about eight fields, so this is one entry of ~20 bytes where an
// object keyed by field name would take ~200 (a fifth more per stored row). Pairs rather than
// an object keyed by order: a fresh property name per row made V8 build a new object shape each
// time, 2 µs of the server's CPU per stored row.
// The field lists below give each field its bit: append only, never reorder or remove.
export const OBSERVATION_FIELDS = [
  'type',
  'traceId',
  'parentObservationId',
  'name',
  'environment',
  'level',
  'statusMessage',
  'version',
  'startTime',
  'endTime',
  'completionStartTime',
  'model',
  'modelParameters',
  'input',
  'output',
  'metadata',
  'promptName',
  'promptVersion',
  'providedUsageDetails',
  'providedCostDetails',
] as const;
export const TRACE_FIELDS = [
  'timestamp',
  'name',
  'userId',
  'sessionId',
  'release',
  'version',
  'externalId',
  'environment',
  'tags',
  'public',
  'input',
  'output',
  'metadata',
] as const;

/** field name → order of the event that last set it; a field never set by an event is absent */
export type FieldTimes = Record<string, number>;

export const eventOrder = (timestamp: Date, isUpdate: boolean) => timestamp.getTime() + (isUpdate ? 0.5 : 0);

/**
 * Whether an event of `order` may set `field` (no event of a later order set it before), and if
 * so records it as the field's setter. Of two events of the same order, the later applied wins.
 */
export function claimField(times: FieldTimes, field: string, order: number): boolean {
  const last = times[field];
  if (last !== undefined && last > order) return false;
  times[field] = order;
  return true;
}

/** [event order, bit mask of the fields it set] */
export type StoredFieldTimes = [number, number][];

/** The stored form of field times for one list of fields (see the top of this file). */
export interface FieldTimesCodec {
  encode(times: FieldTimes): StoredFieldTimes;
  /** also reads the object form {"<order>": mask} that b66f944 stored, and the column's default `{}` */
  decode(stored: StoredFieldTimes | Record<string, number> | null | undefined): FieldTimes;
}

export function fieldTimesCodec(fields: readonly string[]): FieldTimesCodec {
  return {
    encode(times) {
      const out: StoredFieldTimes = [];
      for (let i = 0; i < fields.length; i++) {
        const t = times[fields[i]!];
        if (t === undefined) continue;
        const pair = out.find((p) => p[0] === t);
        if (pair) pair[1] |= 1 << i;
        else out.push([t, 1 << i]);
      }
      return out;
    },
    decode(stored) {
      const out: FieldTimes = {};
      if (!stored) return out;
      const pairs = Array.isArray(stored) ? stored : Object.entries(stored).map(([t, mask]) => [Number(t), mask] as [number, number]);
      for (const [order, mask] of pairs) {
        for (let i = 0; i < fields.length; i++) {
          const f = fields[i]!;
          if (mask & (1 << i) && !(out[f]! >= order)) out[f] = order;
        }
      }
      return out;
    },
  };
}

export const observationFieldTimes = fieldTimesCodec(OBSERVATION_FIELDS);
export const traceFieldTimes = fieldTimesCodec(TRACE_FIELDS);
