// Values that JSON can carry but Tally cannot keep: a NUL character (PostgreSQL text and jsonb),
// an unpaired UTF-16 surrogate (jsonb), and a number too large for a double. The text ones
// arrive only as \u escapes, which a search of the raw body finds; the numbers come out of
// JSON.parse as ±Infinity, which a walk over the parsed numbers finds. A body with neither needs
// no further look; one with them is walked to name the field, so the client gets a 400 for that
// field (or that event) instead of a 500 or a silently changed value. Bytes that are not UTF-8
// reach here as INVALID_UTF8_MARK (put there by http/json-bytes.ts), lone surrogates no valid
// text decodes to.
import type { ValidationIssue as Issue } from '../../../generated/client/types.gen.ts';

/**
 * What the body decoder puts in place of each ill-formed UTF-8 sequence: two lone low
 * surrogates, which no valid UTF-8 decodes to, so the check below can name the field.
 */
export const INVALID_UTF8_MARK = '\uDFFF\uDFFF';

/** cheap pre-check on the raw JSON body: false means no string in it can be unstorable */
export function mayHoldUnstorableText(raw: Buffer): boolean {
  return raw.indexOf('\\u0000') !== -1 || raw.indexOf('\\ud') !== -1 || raw.indexOf('\\uD') !== -1;
}

/**
 * Whether a parsed body holds a number JSON.parse read as ±Infinity (a literal beyond ±1.8e308,
 * which JSON cannot send back: it would be answered as null). Walking the parsed values costs
 * per value, not per byte: a regular expression over the raw text for such literals took
 * 0.7-0.9 ms of a 266 KB batch of 100 text-heavy events (more than half of its JSON.parse); the
 * escape search above plus this walk take about 0.14 ms. Iterative, so a deeply nested body
 * cannot overflow the stack.
 */
export function holdsNonFiniteNumber(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return true;
    } else if (v !== null && typeof v === 'object') {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) if (typeof v[i] === 'number' || (v[i] !== null && typeof v[i] === 'object')) stack.push(v[i]);
      } else {
        for (const k in v) {
          const x = (v as Record<string, unknown>)[k];
          if (typeof x === 'number' || (x !== null && typeof x === 'object')) stack.push(x);
        }
      }
    }
  }
  return false;
}

function problem(s: string): string | null {
  if (s.includes('\0')) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (!s.isWellFormed())
    return s.includes(INVALID_UTF8_MARK)
      ? 'contains bytes that are not valid UTF-8'
      : 'contains an unpaired UTF-16 surrogate, which is not valid Unicode';
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
