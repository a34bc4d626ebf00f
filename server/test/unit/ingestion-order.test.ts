// The ordering rule of merges across batches: each field keeps the value of the event with the
// latest timestamp that set it, whatever order the events are applied in (Langfuse replays
// events in timestamp order). Within a batch events are applied in processingOrder already;
// these apply them one by one, as separate batches would.
import { describe, expect, it } from 'vitest';
import { OBSERVATION_FIELDS, TRACE_FIELDS, observationFieldTimes, traceFieldTimes } from '../../src/domain/ingestion/field-times.ts';
import { applyObservationEvent, applyTraceEvent, type ObservationEvent } from '../../src/domain/ingestion/merge.ts';
import type { ObservationRecord } from '../../src/domain/ingestion/types.ts';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (s: number) => new Date(t0.getTime() + s * 1000);
const now = at(1000);

const ev = (type: string, s: number, body: Record<string, unknown>, usage?: Record<string, number>): ObservationEvent => ({
  eventId: `${type}-${s}`,
  type,
  timestamp: at(s),
  body: { id: 'o', ...body },
  providedUsage: usage,
});
const applyAll = (events: ObservationEvent[]) =>
  events.reduce<ObservationRecord | undefined>((rec, e) => applyObservationEvent(rec, e, now), undefined)!;
/** the record as it would be stored and loaded again between batches */
const roundTrip = (rec: ObservationRecord): ObservationRecord => ({
  ...rec,
  fieldTimes: observationFieldTimes.decode(JSON.parse(JSON.stringify(observationFieldTimes.encode(rec.fieldTimes)))),
});

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

const SENT = [
  'type',
  'traceId',
  'name',
  'level',
  'statusMessage',
  'startTime',
  'endTime',
  'output',
  'metadata',
  'model',
  'providedUsageDetails',
] as const;
const sentFields = (r: ObservationRecord) => Object.fromEntries(SENT.map((k) => [k, r[k]]));

describe('observation fields across batches', () => {
  it('does not let an older update that arrives later roll endTime, output or usage back, but takes the fields it alone sets', () => {
    const create = ev('generation-create', 0, { traceId: 't', name: 'chat', model: 'm', startTime: at(0).toISOString() });
    const newer = ev('generation-update', 10, { endTime: at(10).toISOString(), output: 'final' }, { input: 10, output: 5 });
    const older = ev('generation-update', 5, { endTime: at(5).toISOString(), output: 'partial', level: 'WARNING' }, { input: 3 });
    const rec = applyAll([create, newer, older]);
    expect(rec).toMatchObject({
      endTime: at(10),
      output: 'final',
      providedUsageDetails: { input: 10, output: 5 },
      level: 'WARNING',
      name: 'chat',
    });
  });

  it('ends in the same state whatever order four batches arrive in', () => {
    const events = [
      ev('span-create', 0, { traceId: 't', name: 'first', level: 'DEFAULT', startTime: at(0).toISOString() }),
      ev('span-update', 2, { name: 'second', statusMessage: 'working', metadata: { step: 2 } }),
      ev('span-update', 4, { statusMessage: 'done', endTime: at(4).toISOString(), output: 'out' }),
      ev('span-update', 3, { level: 'ERROR', metadata: { step: 3 }, output: 'draft' }),
    ];
    const inOrder = sentFields(applyAll(events.slice().sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime())));
    expect(inOrder).toMatchObject({
      name: 'second',
      statusMessage: 'done',
      level: 'ERROR',
      metadata: { step: 3 },
      output: 'out',
      endTime: at(4),
    });
    for (const order of permutations(events)) {
      const rec = order.reduce<ObservationRecord | undefined>((r, e) => applyObservationEvent(r && roundTrip(r), e, now), undefined)!;
      expect(sentFields(rec)).toEqual(inOrder);
    }
  });

  it('puts an update after a create of the same instant, in either arrival order', () => {
    const create = ev('generation-create', 5, { name: 'from-create', model: 'm' });
    const update = ev('generation-update', 5, { name: 'from-update' });
    expect(applyAll([create, update]).name).toBe('from-update');
    expect(applyAll([update, create]).name).toBe('from-update');
    expect(applyAll([update, create]).model).toBe('m');
  });

  it('lets the event applied later win between two of the same kind and instant', () => {
    expect(applyAll([ev('span-update', 5, { output: 'a' }), ev('span-update', 5, { output: 'b' })]).output).toBe('b');
  });

  it('replaces the usage map whole with that of the latest event carrying one', () => {
    const rec = applyAll([
      ev('generation-update', 9, {}, { input: 1, output: 2 }),
      ev('generation-update', 4, {}, { total: 99 }),
      ev('generation-update', 12, {}, {}),
    ]);
    expect(rec.providedUsageDetails).toEqual({ input: 1, output: 2 });
  });

  it('takes the type of the latest create: an older create arriving later does not change it', () => {
    expect(applyAll([ev('span-update', 0, {}), ev('embedding-create', 0, {})]).type).toBe('EMBEDDING');
    expect(applyAll([ev('generation-create', 7, {}), ev('span-create', 3, {})]).type).toBe('GENERATION');
    expect(applyAll([ev('span-create', 3, {}), ev('generation-create', 7, {})]).type).toBe('GENERATION');
  });

  it('lets any event set the fields of a row stored before the times were kept', () => {
    const legacy: ObservationRecord = { ...applyAll([ev('span-create', 10, { output: 'stored' })]), fieldTimes: {} };
    expect(applyObservationEvent(legacy, ev('span-update', 1, { output: 'older' }), now).output).toBe('older');
  });
});

describe('trace fields across batches', () => {
  it('keeps the fields of the latest trace-create and takes those only an older one sets', () => {
    let t = applyTraceEvent(undefined, { timestamp: at(10), body: { id: 't', userId: 'new', tags: ['b'] } }, now);
    t = applyTraceEvent(
      { ...t, fieldTimes: traceFieldTimes.decode(traceFieldTimes.encode(t.fieldTimes)) },
      { timestamp: at(2), body: { id: 't', userId: 'old', tags: ['a'], release: 'r1' } },
      now,
    );
    expect(t).toMatchObject({ userId: 'new', tags: ['b'], release: 'r1' });
  });
});

describe('field times at rest', () => {
  it('stores one bit mask per event order and reads back the same times', () => {
    const times = { type: 1000, traceId: 1000, name: 1000, endTime: 5000.5, output: 5000.5, providedUsageDetails: 7000.5 };
    const stored = observationFieldTimes.encode(times);
    expect(stored).toEqual([
      [1000, 0b1011],
      [5000.5, (1 << 9) | (1 << 14)],
      [7000.5, 1 << 18],
    ]);
    expect(observationFieldTimes.decode(JSON.parse(JSON.stringify(stored)))).toEqual(times);
    expect(observationFieldTimes.encode({ ...times, notAField: 1 })).toEqual(stored);
  });

  it('reads the column default and the object form of earlier rows', () => {
    expect(observationFieldTimes.decode(null)).toEqual({});
    expect(observationFieldTimes.decode({})).toEqual({});
    expect(observationFieldTimes.decode({ 1000: 0b11, '5000.5': 1 << 9 })).toEqual({ type: 1000, traceId: 1000, endTime: 5000.5 });
  });

  it('gives every field a bit of its own within 31 bits', () => {
    for (const fields of [OBSERVATION_FIELDS, TRACE_FIELDS]) {
      expect(new Set(fields).size).toBe(fields.length);
      expect(fields.length).toBeLessThanOrEqual(31);
    }
  });
});
