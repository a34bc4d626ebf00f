import { describe, expect, it } from 'vitest';
import { checkTimestamp, MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS } from '../../src/domain/time/timestamp.ts';
import { toDate } from '../../src/store/sql.ts';

describe('timestamps Tally accepts', () => {
  it('reads RFC 3339 date-times with Z or an offset to the same instant as Date', () => {
    for (const s of [
      '2026-01-01T00:00:00Z',
      '2026-01-01t10:20:30.123456z',
      '2026-06-30 23:59:59.5+05:30',
      '2026-01-01T00:00:00-0800',
      '1000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
    ]) {
      const r = checkTimestamp(s);
      expect(r, s).toEqual({ ok: true, ms: new Date(s).getTime() });
    }
  });

  it('refuses impossible calendar dates and times instead of rolling them over', () => {
    for (const s of [
      '2026-02-30T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-01-01T23:59:60Z',
      '2026-01-01T00:00:00+24:00',
    ]) {
      expect(checkTimestamp(s).ok, s).toBe(false);
    }
    expect(checkTimestamp('2024-02-29T00:00:00Z').ok).toBe(true);
  });

  it('refuses instants outside years 1000..9999 UTC, offsets included', () => {
    for (const s of [
      '0000-01-01T00:00:00Z',
      '0999-12-31T23:59:59.999Z',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59-01:00',
      '1000-01-01T00:30:00+01:00',
    ]) {
      expect(checkTimestamp(s), s).toMatchObject({ ok: false, reason: expect.stringContaining('range') });
    }
  });

  it('refuses shapes V8 would misread or not read', () => {
    for (const s of [
      '2026-01-01T00:00:00',
      '2026-01-01T00:00:00+01',
      '+275760-09-13T00:00:00Z',
      '2026-1-1T00:00:00Z',
      '2026-01-01',
      'yesterday',
    ]) {
      expect(checkTimestamp(s).ok, s).toBe(false);
    }
    expect(checkTimestamp('2026-01-01', true)).toEqual({ ok: true, ms: Date.UTC(2026, 0, 1) });
    expect(checkTimestamp('2026-02-30', true).ok).toBe(false);
  });
});

describe('stored timestamps outside the range (written by an earlier version)', () => {
  it('read as the nearest bound instead of an Invalid Date', () => {
    expect(toDate('0001-01-01 00:00:00+00 BC').getTime()).toBe(MIN_TIMESTAMP_MS);
    expect(toDate('0001-01-01T00:00:00+00:00 BC').getTime()).toBe(MIN_TIMESTAMP_MS);
    expect(toDate('0500-01-01 00:00:00+00').getTime()).toBe(MIN_TIMESTAMP_MS);
    expect(toDate('10000-01-01T00:00:00+00:00').getTime()).toBe(MAX_TIMESTAMP_MS);
    expect(toDate('2026-01-01 10:00:00.123+00').toISOString()).toBe('2026-01-01T10:00:00.123Z');
  });
});

describe('the canonical UTC fast path', () => {
  it('agrees with the general path on every field value, valid or not', async () => {
    const fc = (await import('fast-check')).default;
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.option(fc.stringMatching(/^[0-9]{0,12}$/), { nil: undefined }),
        (y, mo, d, h, mi, s, frac) => {
          const canonical = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${frac === undefined ? '' : `.${frac}`}Z`;
          // the same instant with an explicit offset never takes the fast path
          expect(checkTimestamp(canonical), canonical).toEqual(checkTimestamp(canonical.replace(/Z$/, '+00:00')));
        },
      ),
      { numRuns: 20_000 },
    );
    for (const s of [
      '2024-02-29T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2000-02-29T23:59:59.999999999Z',
      '9999-12-31T23:59:59.9999Z',
      '0999-12-31T23:59:59Z',
      '2026-11-23T10:00:00.Z',
      '2026-11-23T10:00:00.29Z',
    ]) {
      expect(checkTimestamp(s), s).toEqual(checkTimestamp(s.replace(/Z$/, '+00:00')));
    }
  });
});
