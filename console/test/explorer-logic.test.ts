// The explorer's pure parts: time ranges from the URL, the observation tree (with bad data),
// and cost lines of each costStatus.
import { describe, expect, it } from 'vitest';
import type { Observation } from '../../sdk/index.ts';
import { costLines } from '../src/pages/explorer/cost-lines.ts';
import { inputValue, resolveWindow } from '../src/pages/explorer/time-range.ts';
import { buildTree, flatten } from '../src/pages/explorer/tree.ts';

const o = (id: string, over: Partial<Observation> = {}): Observation =>
  ({
    id,
    parentObservationId: null,
    startTime: '2026-11-22T10:00:00.000Z',
    usageDetails: {},
    costDetails: {},
    costStatus: 'none',
    unpricedUsageKeys: [],
    usagePricedAs: {},
    ...over,
  }) as Observation;

describe('time range', () => {
  const now = new Date('2026-11-27T15:30:00.000Z');
  it('counts a preset back from now, month to date from the 1st, nothing for all time', () => {
    expect(resolveWindow({ range: '1h' }, now)).toEqual({ window: { from: '2026-11-27T14:30:00.000Z' } });
    expect(resolveWindow({ range: 'mtd' }, now)).toEqual({ window: { from: '2026-11-01T00:00:00.000Z' } });
    expect(resolveWindow({}, now)).toEqual({ window: {} });
  });
  it('reads custom ends as UTC, a bare "to" date through its end, and refuses what cannot be meant', () => {
    expect(resolveWindow({ from: '2026-11-01T08:00', to: '2026-11-02' }, now).window).toEqual({
      from: '2026-11-01T08:00:00.000Z',
      to: '2026-11-03T00:00:00.000Z',
    });
    expect(resolveWindow({ range: 'custom', from: '2026-11-01T08:00+02:00' }, now).window).toEqual({ from: '2026-11-01T06:00:00.000Z' });
    expect(resolveWindow({ from: '2026-02-30' }, now).error).toBe('From: "2026-02-30" is not a real date');
    expect(resolveWindow({ from: 'yesterday' }, now).error).toMatch(/^From: "yesterday" is not a date/);
    expect(resolveWindow({ to: '0002-01-01' }, now).error).toBe('To: the year 0002 is not between 1970 and 9999');
    expect(resolveWindow({ from: '2026-11-02', to: '2026-11-01' }, now).error).toBe('From must be before To');
  });
});

describe('observation tree', () => {
  it('puts children under parents in start order; an unknown parent makes a root', () => {
    const roots = buildTree([
      o('b', { parentObservationId: 'a', startTime: '2026-11-22T10:00:02.000Z' }),
      o('c', { parentObservationId: 'a', startTime: '2026-11-22T10:00:01.000Z' }),
      o('a'),
      o('orphan', { parentObservationId: 'elsewhere', startTime: '2026-11-22T10:00:05.000Z' }),
    ]);
    expect(roots.map((r) => r.obs.id)).toEqual(['a', 'orphan']);
    expect(roots[0]!.children.map((c) => c.obs.id)).toEqual(['c', 'b']);
  });
  it('shows every observation once when parents form a loop, or one is its own parent', () => {
    const roots = buildTree([
      o('x', { parentObservationId: 'y' }),
      o('y', { parentObservationId: 'x' }),
      o('z', { parentObservationId: 'x' }),
      o('self', { parentObservationId: 'self' }),
    ]);
    expect(
      flatten(roots)
        .map((n) => n.id)
        .sort(),
    ).toEqual(['self', 'x', 'y', 'z']);
  });
});

describe('cost lines', () => {
  it('an ingested cost has no unit price (it was sent), an only-total cost is one line', () => {
    expect(costLines(o('i', { costStatus: 'ingested', usageDetails: { input: 10 }, costDetails: { input: 0.5, total: 0.5 } }))).toEqual([
      { usageType: 'input', units: 10, price: null, cost: 0.5, pricedAs: undefined },
    ]);
    expect(costLines(o('t', { costStatus: 'inferred', usageDetails: { total: 4 }, costDetails: { total: 0.02 } }))).toEqual([
      { usageType: 'total', units: 4, price: 0.005, cost: 0.02, pricedAs: undefined },
    ]);
  });
  it('an unpriced one lists its keys without a price', () => {
    expect(costLines(o('u', { costStatus: 'unpriced', usageDetails: { input: 3 }, unpricedUsageKeys: ['input'] }))).toEqual([
      { usageType: 'input', units: 3, price: null, cost: null },
    ]);
  });
});

describe('range fields', () => {
  it("show a link's window to the millisecond when it has one, else to the minute", () => {
    expect(inputValue('2026-11-27T10:23:45.124Z')).toBe('2026-11-27T10:23:45.124');
    expect(inputValue('2026-11-27T10:23:00.000Z')).toBe('2026-11-27T10:23');
    expect(inputValue('2026-11-22', true)).toBe('2026-11-23T00:00');
  });
});
