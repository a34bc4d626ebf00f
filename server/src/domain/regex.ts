// One regex engine for model match patterns and tier usage-detail patterns. RE2 runs in
// linear time, so user-supplied patterns cannot stall ingestion (Langfuse needs safe-regex2
// for that), and it accepts the leading `(?i)` that Langfuse patterns carry for Postgres.
import RE2 from 're2';

/**
 * Compiles `pattern` with RE2, or returns the compile error instead of throwing, so callers
 * can turn it into a validation message. Avoid the `g`/`y` flags: they make `test()` stateful.
 */
export function compileRe2(pattern: string, flags = ''): RE2 | Error {
  try {
    return new RE2(pattern, flags);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

/** Escapes a literal for use inside a pattern (dots included: `gpt-4.1` must not match `gpt-4x1`). */
export function escapeRegex(literal: string): string {
  return literal.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
