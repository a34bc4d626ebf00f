// A documented bound on how deeply JSON may nest. JSON.parse copes with any depth, but what
// follows does not: PostgreSQL's jsonb parser stops at its stack limit (a few thousand levels),
// so a deep value failed the whole ingestion batch with a 500, and recursive walks of a value
// would overflow the stack. A request (or, in a batch, one event) deeper than the limit is
// refused with a 400 naming where the limit was passed.
import type { ValidationIssue as Issue } from '../../../generated/client/types.gen.ts';

/** levels of objects and arrays, counted from the request body (in a batch: from each event) */
export const MAX_JSON_DEPTH = 100;

/** the path of the first container nested deeper than `limit`, or null; recursion stops at the limit */
function firstTooDeep(value: unknown, limit: number, depth: number, path: (string | number)[]): (string | number)[] | null {
  if (value === null || typeof value !== 'object') return null;
  if (depth > limit) return path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (v !== null && typeof v === 'object') {
        const found = firstTooDeep(v, limit, depth + 1, [...path, i]);
        if (found) return found;
      }
    }
    return null;
  }
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== null && typeof v === 'object') {
      const found = firstTooDeep(v, limit, depth + 1, [...path, k]);
      if (found) return found;
    }
  }
  return null;
}

/** an issue when `value` nests deeper than MAX_JSON_DEPTH (the value itself is level 1) */
export function findTooDeep(value: unknown, path: (string | number)[] = [], limit = MAX_JSON_DEPTH): Issue | null {
  const at = firstTooDeep(value, limit, 1, path);
  return at ? { code: 'too_big', path: at, message: `JSON nested deeper than ${limit} levels of objects and arrays` } : null;
}
