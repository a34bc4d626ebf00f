// The one definition of a timestamp Tally accepts: RFC 3339 with a real calendar date, an
// offset (or Z), and an instant between 1000-01-01 and 9999-12-31 UTC. Outside that range a
// value could be stored (PostgreSQL keeps 4713 BC) but not returned as RFC 3339: year 0000
// reads back as "1 BC" and year 10000 as "+010000-…", so one accepted event would break every
// later read of its rows. Impossible dates (02-30) are refused rather than rolled over.

const SHAPE = /^(\d{4})-(\d\d)-(\d\d)(?:[Tt ](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-]\d\d:?\d\d))?$/;

export const MIN_TIMESTAMP_MS = Date.UTC(1000, 0, 1);
export const MAX_TIMESTAMP_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
// said in request validation's messages too (shared/validation/issues.ts)
import { TIMESTAMP_RANGE_TEXT } from '../../../../shared/validation/issues.ts';
export { TIMESTAMP_RANGE_TEXT };

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

export type TimestampCheck = { ok: true; ms: number } | { ok: false; reason: string };

/**
 * Reads a date-time (`dateOnly: false`) or a date (`true`; midnight UTC). Date.UTC maps
 * years 0–99 to 19xx, so the year is checked before it is used.
 */
export function checkTimestamp(value: string, dateOnly = false): TimestampCheck {
  if (!dateOnly) {
    const ms = canonicalUtc(value);
    if (ms !== undefined) return { ok: true, ms };
  }
  const m = SHAPE.exec(value);
  if (!m || (dateOnly ? m[4] !== undefined : m[4] === undefined)) {
    return { ok: false, reason: dateOnly ? 'expected a date (YYYY-MM-DD)' : 'expected an RFC 3339 date-time with Z or an offset' };
  }
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1000) return { ok: false, reason: `outside the supported range: ${TIMESTAMP_RANGE_TEXT}` };
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return { ok: false, reason: 'not a calendar date' };
  let ms = Date.UTC(year, month - 1, day);
  if (!dateOnly) {
    const [h, min, s] = [Number(m[4]), Number(m[5]), Number(m[6])];
    if (h > 23 || min > 59 || s > 59) return { ok: false, reason: 'not a time of day' };
    const zone = m[8]!;
    let offsetMin = 0;
    if (zone !== 'Z' && zone !== 'z') {
      const digits = zone.slice(1).replace(':', '');
      const [oh, om] = [Number(digits.slice(0, 2)), Number(digits.slice(2))];
      if (oh > 23 || om > 59) return { ok: false, reason: 'not a valid offset' };
      offsetMin = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
    }
    const frac = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
    ms += ((h * 60 + min - offsetMin) * 60 + s) * 1000 + frac;
  }
  if (ms < MIN_TIMESTAMP_MS || ms > MAX_TIMESTAMP_MS) return { ok: false, reason: `outside the supported range: ${TIMESTAMP_RANGE_TEXT}` };
  return { ok: true, ms };
}

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** two decimal digits at i, or -1 */
function d2(v: string, i: number): number {
  const a = v.charCodeAt(i) - 48,
    b = v.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * The form SDKs send (`2026-11-23T10:00:00.123Z`: UTC, `T`, 0-9 fraction digits), read without
 * the regular expression: every event carries several timestamps, and the general path's match
 * arrays were a visible share of ingestion's allocations. Anything else, valid or not, returns
 * undefined and takes the general path, which this agrees with (a unit test compares them).
 */
function canonicalUtc(v: string): number | undefined {
  const n = v.length;
  if (
    n < 20 ||
    n > 30 ||
    v.charCodeAt(n - 1) !== 90 /* Z */ ||
    v[4] !== '-' ||
    v[7] !== '-' ||
    v[10] !== 'T' ||
    v[13] !== ':' ||
    v[16] !== ':'
  )
    return undefined;
  const hi = d2(v, 0),
    lo = d2(v, 2),
    month = d2(v, 5),
    day = d2(v, 8),
    h = d2(v, 11),
    min = d2(v, 14),
    s = d2(v, 17);
  if (hi < 10 || lo < 0 || month < 1 || month > 12 || day < 1 || h < 0 || h > 23 || min < 0 || min > 59 || s < 0 || s > 59)
    return undefined;
  const year = hi * 100 + lo;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > DAYS[month]! + (leap ? 1 : 0)) return undefined;
  let frac = 0;
  if (n > 20) {
    if (v[19] !== '.' || n === 21) return undefined;
    for (let i = 20; i < n - 1; i++) {
      const c = v.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return undefined;
    }
    frac = Math.floor(Number(`0${v.slice(19, n - 1)}`) * 1000); // as the general path rounds
  }
  const ms = Date.UTC(year, month - 1, day, h, min, s) + frac;
  return ms <= MAX_TIMESTAMP_MS ? ms : undefined;
}

export const isTimestamp = (value: string) => checkTimestamp(value).ok;
export const isDate = (value: string) => checkTimestamp(value, true).ok;
