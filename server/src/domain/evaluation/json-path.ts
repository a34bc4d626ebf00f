// JSONPath checks for evaluator mappings. Pure:
// syntax problems are told in Langfuse's words; forms jsonpath-plus would evaluate but the
// evaluator does not honour (filters, scripts, negative indices) are refused at storage.
import { JSONPath } from 'jsonpath-plus';

/** the part of the message after `Mapping for variable "<v>" has an invalid jsonPath "<p>". `, or null when the syntax is fine */
export function jsonPathSyntaxProblem(path: string): string | null {
  if (!path.startsWith('$')) return 'JSONPath expressions must start with "$".';
  const stack: string[] = [];
  let quote: string | null = null;
  for (const ch of path) {
    if (quote) {
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '(') stack.push(ch);
    else if (ch === ']' || ch === ')') {
      const open = stack.pop();
      if (open !== (ch === ']' ? '[' : '(')) return 'JSONPath expressions must use balanced brackets and parentheses.';
    }
  }
  if (quote) return 'JSONPath expressions must use balanced quotes, brackets, and parentheses.';
  if (stack.length) return 'JSONPath expressions must use balanced brackets and parentheses.';
  try {
    // the library parses lazily: evaluating against an empty document surfaces its errors without running scripts
    JSONPath({ path, json: {}, wrap: true, eval: false });
  } catch (e) {
    return (e as Error).message || 'JSONPath expression is invalid.';
  }
  return null;
}

/** a form the evaluator will not apply, with Langfuse's message, or null */
export function unsupportedJsonPath(path: string): string | null {
  if (/\[\s*\?/.test(path)) return 'Filter expressions ([?...]) are not supported and will not be applied.';
  if (/\[\s*\(/.test(path)) return 'Script expressions ([(...)]) are not supported. The evaluator will use the unfiltered value instead.';
  if (/\[\s*-\d+\s*\]/.test(path))
    return 'Negative array indices (for example, [-1]) are not supported. Use a slice such as [-1:] instead.';
  return null;
}

/**
 * The value a mapping entry extracts, as Langfuse's evaluator reads it: for an object or array, one match is
 * returned unwrapped, several as an array, none as undefined; an error falls back to the raw
 * value. Primitives are returned as they are. Script evaluation is off.
 */
export function extractJsonPath(value: unknown, path: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  try {
    const matches = JSONPath({ path, json: value as object, wrap: true, eval: false }) as unknown[];
    if (!Array.isArray(matches) || matches.length === 0) return undefined;
    return matches.length === 1 ? matches[0] : matches;
  } catch {
    return value;
  }
}
