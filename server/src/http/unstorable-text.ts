// Text that JSON can carry but PostgreSQL cannot store: a NUL character (in text or jsonb) and
// an unpaired UTF-16 surrogate (jsonb). Both arrive only as \u escapes, so a request body
// without "\u0000" or "\uD…" needs no walk at all; one with them is walked to name the field,
// so the client gets a 400 for that field (or that event) instead of a 500 for everything.
import type { ValidationIssue as Issue } from '../../../generated/client/types.gen.ts';

/** cheap pre-check on the raw JSON body: false means nothing in it can be unstorable */
export function mayHoldUnstorableText(raw: Buffer): boolean {
  return raw.indexOf('\\u0000') !== -1 || raw.indexOf('\\ud') !== -1 || raw.indexOf('\\uD') !== -1;
}

function problem(s: string): string | null {
  if (s.includes('\0')) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (!s.isWellFormed()) return 'contains an unpaired UTF-16 surrogate, which is not valid Unicode';
  return null;
}

/** the first string (value or key) that cannot be stored, as a validation issue */
export function findUnstorableText(value: unknown, path: (string | number)[] = []): Issue | null {
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
