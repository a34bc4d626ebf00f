// Which event last set each field of an observation or trace, for the ordering rule of merge.ts:
// a field keeps the value of the event with the latest order that set it, whatever order
// events arrive in.
//
// An event's order is its timestamp in epoch milliseconds, plus half a millisecond for an
// update: at the same instant an update comes after a create, as processingOrder sorts the
// events of one batch.
//
// At rest (column field_event_times) the times are a JSON object from order to a bit mask of
// the fields set by events of that order: {"1767225600000": 1047, "1767225605000.5": 512}.
// A generation's create sets about eight fields, so this is one entry of ~20 bytes where an
// object keyed by field name would take ~200 (a fifth more per stored row).
// The field lists below give each field its bit: append only, never reorder or remove.
export const OBSERVATION_FIELDS = [
  'type', 'traceId', 'parentObservationId', 'name', 'environment', 'level', 'statusMessage', 'version', 'startTime', 'endTime',
  'completionStartTime', 'model', 'modelParameters', 'input', 'output', 'metadata', 'promptName', 'promptVersion',
  'providedUsageDetails', 'providedCostDetails',
] as const;
export const TRACE_FIELDS = [
  'timestamp', 'name', 'userId', 'sessionId', 'release', 'version', 'externalId', 'environment', 'tags', 'public', 'input', 'output', 'metadata',
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

export function encodeFieldTimes(times: FieldTimes, fields: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < fields.length; i++) {
    const t = times[fields[i]!];
    if (t !== undefined) out[t] = (out[t] ?? 0) | (1 << i);
  }
  return out;
}

export function decodeFieldTimes(stored: Record<string, number> | null | undefined, fields: readonly string[]): FieldTimes {
  const out: FieldTimes = {};
  if (!stored) return out;
  for (const [t, mask] of Object.entries(stored)) {
    const order = Number(t);
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      if (mask & (1 << i) && !(out[f]! >= order)) out[f] = order;
    }
  }
  return out;
}
