// Which part of a trace count comes from trace_counts (whole hours) and which from the traces (the
// partial hours at the window's edges), and which filters count the traces themselves.
import { describe, expect, it } from 'vitest';
import { traceCountPlan } from '../../src/domain/traces/count.ts';

const d = (iso: string) => new Date(iso);

describe('traceCountPlan', () => {
  it('reads whole hours from the counts and the partial hours at the edges from the traces', () => {
    expect(traceCountPlan({ fromTimestamp: d('2026-05-04T01:30:00Z'), toTimestamp: d('2026-05-04T04:15:00Z') })).toEqual({
      hours: { from: d('2026-05-04T02:00:00Z'), to: d('2026-05-04T04:00:00Z') },
      edges: [
        { from: d('2026-05-04T01:30:00Z'), to: d('2026-05-04T02:00:00Z') },
        { from: d('2026-05-04T04:00:00Z'), to: d('2026-05-04T04:15:00Z') },
      ],
      tag: null,
    });
    // edges on the hour: no partial hour
    expect(traceCountPlan({ fromTimestamp: d('2026-05-04T01:00:00Z'), toTimestamp: d('2026-05-04T03:00:00Z'), tags: ['x'] })).toEqual({
      hours: { from: d('2026-05-04T01:00:00Z'), to: d('2026-05-04T03:00:00Z') },
      edges: [],
      tag: 'x',
    });
    expect(traceCountPlan({ name: 'n', environment: ['e'] })).toEqual({ hours: { from: null, to: null }, edges: [], tag: null });
    expect(traceCountPlan({ toTimestamp: d('2026-05-04T03:00:00.001Z') })).toEqual({
      hours: { from: null, to: d('2026-05-04T03:00:00Z') },
      edges: [{ from: d('2026-05-04T03:00:00Z'), to: d('2026-05-04T03:00:00.001Z') }],
      tag: null,
    });
  });

  it('counts a window inside one hour, or an empty one, from the traces alone', () => {
    const [a, b] = [d('2026-05-04T02:10:00Z'), d('2026-05-04T02:50:00Z')];
    expect(traceCountPlan({ fromTimestamp: a, toTimestamp: b })).toEqual({ hours: null, edges: [{ from: a, to: b }], tag: null });
    expect(traceCountPlan({ fromTimestamp: b, toTimestamp: a })).toEqual({ hours: null, edges: [], tag: null });
  });

  it('leaves filters the counts do not hold to the traces', () => {
    expect(traceCountPlan({ userId: 'u' })).toBeNull();
    expect(traceCountPlan({ sessionId: 's' })).toBeNull();
    expect(traceCountPlan({ release: 'r' })).toBeNull();
    expect(traceCountPlan({ version: 'v' })).toBeNull();
    expect(traceCountPlan({ tags: ['a', 'b'] })).toBeNull();
  });
});
