import { describe, expect, it } from 'vitest';
import { diff } from '../diff.ts';

describe('conformance body diff', () => {
  it('reports changed, missing and extra fields by JSON pointer', () => {
    expect(diff({ a: 1, b: { c: 'x' }, d: [1, 2] }, { a: 2, b: {}, d: [1, 2, 3], e: true })).toEqual([
      { pointer: '/a', expected: 1, actual: 2 },
      { pointer: '/b/c', expected: 'x', actual: '(missing)' },
      { pointer: '/d/length', expected: 2, actual: 3 },
      { pointer: '/e', expected: '(absent)', actual: true },
    ]);
  });

  it('skips ignored pointers, with * matching any array index', () => {
    const expected = { id: 'a', tiers: [{ id: 't1', name: 'Standard' }] };
    const actual = { id: 'b', tiers: [{ id: 't9', name: 'Standard' }] };
    expect(diff(expected, actual, { ignore: ['/id', '/tiers/*/id'] })).toEqual([]);
    expect(diff(expected, { ...actual, tiers: [{ id: 't9', name: 'Large' }] }, { ignore: ['/id', '/tiers/*/id'] })).toEqual([
      { pointer: '/tiers/0/name', expected: 'Standard', actual: 'Large' },
    ]);
  });

  it('compares only the listed pointers when `only` is given', () => {
    expect(
      diff(
        { meta: { page: 1, limit: 2, totalItems: 4 } },
        { meta: { page: 1, limit: 2, totalItems: 900 } },
        { only: ['/meta/page', '/meta/limit'] },
      ),
    ).toEqual([]);
    expect(diff({ meta: { page: 1 } }, { meta: { page: 2 } }, { only: ['/meta/page'] })).toHaveLength(1);
  });
});
