import { describe, expect, it } from 'vitest';
import { normaliseEnvironment } from '../../src/domain/ingestion/environment.ts';
import { applyObservationEvent, applyTraceEvent, processingOrder, toScore } from '../../src/domain/ingestion/merge.ts';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (s: number) => new Date(t0.getTime() + s * 1000);

describe('observation merge', () => {
  it('starts from the event, with the envelope timestamp as start time and a fresh trace id for orphans', () => {
    const rec = applyObservationEvent(
      undefined,
      { eventId: 'e1', type: 'generation-create', timestamp: at(5), body: { id: 'o1', model: 'm' } },
      t0,
    );
    expect(rec).toMatchObject({ id: 'o1', type: 'GENERATION', model: 'm', startTime: at(5), environment: 'default', level: 'DEFAULT' });
    expect(rec.traceId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lets later non-null values win and keeps the rest', () => {
    let rec = applyObservationEvent(
      undefined,
      { eventId: 'e1', type: 'span-create', timestamp: at(0), body: { id: 'o', traceId: 't', name: 'first', input: 'in' } },
      t0,
    );
    rec = applyObservationEvent(
      rec,
      { eventId: 'e2', type: 'span-update', timestamp: at(1), body: { id: 'o', name: null, output: 'out', endTime: at(3).toISOString() } },
      t0,
    );
    expect(rec).toMatchObject({ traceId: 't', name: 'first', input: 'in', output: 'out', endTime: at(3) });
  });

  it('replaces the usage map only with a non-empty one, whole', () => {
    let rec = applyObservationEvent(
      undefined,
      { eventId: 'a', type: 'generation-create', timestamp: at(0), body: { id: 'o' }, providedUsage: { input: 1, output: 2 } },
      t0,
    );
    rec = applyObservationEvent(
      rec,
      { eventId: 'b', type: 'generation-update', timestamp: at(1), body: { id: 'o' }, providedUsage: {} },
      t0,
    );
    expect(rec.providedUsageDetails).toEqual({ input: 1, output: 2 });
    rec = applyObservationEvent(
      rec,
      { eventId: 'c', type: 'generation-update', timestamp: at(2), body: { id: 'o' }, providedUsage: { output: 5 } },
      t0,
    );
    expect(rec.providedUsageDetails).toEqual({ output: 5 });
  });

  it('lets a create give its type to a placeholder made by an earlier update', () => {
    let rec = applyObservationEvent(undefined, { eventId: 'u', type: 'span-update', timestamp: at(0), body: { id: 'o' } }, t0);
    expect(rec.type).toBe('SPAN');
    rec = applyObservationEvent(rec, { eventId: 'c', type: 'embedding-create', timestamp: at(0), body: { id: 'o' } }, t0);
    expect(rec.type).toBe('EMBEDDING');
    rec = applyObservationEvent(rec, { eventId: 'u2', type: 'generation-update', timestamp: at(1), body: { id: 'o' } }, t0);
    expect(rec.type).toBe('EMBEDDING');
  });

  it('orders events by time, a create before an update at the same instant', () => {
    const evs = [
      { type: 'generation-update', timestamp: at(1), n: 1 },
      { type: 'generation-update', timestamp: at(0), n: 2 },
      { type: 'generation-create', timestamp: at(0), n: 3 },
    ];
    expect(processingOrder(evs).map((e) => e.n)).toEqual([3, 2, 1]);
  });
});

describe('trace merge and scores', () => {
  it('merges traces and normalises tags and environment', () => {
    let t = applyTraceEvent(
      undefined,
      { timestamp: at(0), body: { id: 't', name: 'n', tags: ['b', 'a', 'b'], environment: 'Langfuse-Prod' } },
      t0,
    );
    t = applyTraceEvent(t, { timestamp: at(1), body: { id: 't', userId: 'u', name: null } }, t0);
    expect(t).toMatchObject({ id: 't', name: 'n', userId: 'u', tags: ['a', 'b'], environment: 'prod', timestamp: at(0) });
  });

  it('infers a score data type from its value and labels booleans', () => {
    expect(toScore({ timestamp: t0, body: { name: 'x', value: 0.5 } })).toMatchObject({
      dataType: 'NUMERIC',
      value: 0.5,
      stringValue: null,
    });
    expect(toScore({ timestamp: t0, body: { name: 'x', value: 'good' } })).toMatchObject({
      dataType: 'CATEGORICAL',
      value: null,
      stringValue: 'good',
    });
    expect(toScore({ timestamp: t0, body: { name: 'x', value: 1, dataType: 'BOOLEAN' } })).toMatchObject({ value: 1, stringValue: 'True' });
  });
});

describe('environment names', () => {
  it.each([
    [undefined, 'default'],
    ['Production', 'production'],
    ['langfuse-llm-as-a-judge', 'llm-as-a-judge'],
    ['langfuse_langfuse', 'default'],
    ['has space', 'default'],
    ['x'.repeat(50), 'x'.repeat(40)],
    ['', 'default'],
  ])('%s → %s', (input, expected) => expect(normaliseEnvironment(input)).toBe(expected));
});
