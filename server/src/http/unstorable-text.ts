// Values that JSON can carry but Tally cannot keep: a NUL character (PostgreSQL text and jsonb),
// an unpaired UTF-16 surrogate (jsonb), and a number too large for a double. The text ones
// arrive only as \u escapes and the numbers only as long literals, so a request body without
// them needs no walk at all; one with them is walked to name the field, so the client gets a
// 400 for that field (or that event) instead of a 500 or a silently changed value.
import type { ValidationIssue as Issue } from '../../../generated/client/types.gen.ts';

// A number literal beyond ±1.8e308 parses to ±Infinity, which JSON cannot send back (it would
// be answered as null): such a literal has an exponent of three digits or 309+ digits.
const HUGE_NUMBER = /\d[eE]\+?\d{3}|\d{309}/;

/** cheap pre-check on the raw JSON body: false means nothing in it can be unstorable */
export function mayHoldUnstorableText(raw: Buffer): boolean {
  return raw.indexOf('\\u0000') !== -1 || raw.indexOf('\\ud') !== -1 || raw.indexOf('\\uD') !== -1 || HUGE_NUMBER.test(raw.toString('latin1'));
}

function problem(s: string): string | null {
  if (s.includes('\0')) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (!s.isWellFormed()) return 'contains an unpaired UTF-16 surrogate, which is not valid Unicode';
  return null;
}

/** the first string (value or key) that cannot be stored, as a validation issue */
export function findUnstorableText(value: unknown, path: (string | number)[] = []): Issue | null {
  if (typeof value === 'number') {
    return Number.isFinite(value) ? null : { code: 'too_big', path, message: 'Number is beyond the range of a double (about ±1.8e308)' };
  }
  if (typeof value === 'string') {
    const p = problem(value);
    return p ? { code: 'invalid_string', path, message: `Text ${p}` } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const issue = findUnstorableText(value[i], [...path, i]);
      if (issue) return issue;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = problem(k);
      if (p) return { code: 'invalid_key', path: [...path, k], message: `Key ${p}` };
      const issue = findUnstorableText(v, [...path, k]);
      if (issue) return issue;
    }
  }
  return null;
}
