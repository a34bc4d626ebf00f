// Langfuse reads stored input/output with lossless-json (`parseJsonPrioritised`): a number that
// survives the trip through a double stays a number, any other (a 20-digit id, 0.1234567890123456789)
// stays its source text as a string, and text that is not JSON is kept as is. Re-stringifying such a
// value therefore differs from JSON.parse + JSON.stringify, which changes token counts.
// JSON.parse with source access (Node >= 21) reproduces that without the dependency. Known gap:
// lossless-json rejects duplicate object keys (so Langfuse keeps the raw text); JSON.parse keeps the last.

type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown;
const parseWithSource = JSON.parse as (text: string, reviver: Reviver) => unknown;

export function parseJsonPrioritised(text: string): unknown {
  // most inputs are prose: a failed JSON.parse builds a SyntaxError (message and stack) for each
  if (cannotBeJson(text)) return text;
  try {
    return parseWithSource(text, (_key, value, context) =>
      typeof value === 'number' && context?.source !== undefined && !isSafeNumber(context.source) ? context.source : value,
    );
  } catch {
    return text;
  }
}

/**
 * True only when JSON.parse(text) would throw, judged from the first character after JSON's
 * whitespace: JSON text starts with { [ " - or a digit, or is exactly true, false or null.
 */
export function cannotBeJson(text: string): boolean {
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
  }
  if (i === text.length) return true;
  const c = text.charCodeAt(i);
  if (c === 0x7b || c === 0x5b || c === 0x22 || c === 0x2d || (c >= 0x30 && c <= 0x39)) return false;
  if (c === 0x74) return !text.startsWith('true', i);
  if (c === 0x66) return !text.startsWith('false', i);
  if (c === 0x6e) return !text.startsWith('null', i);
  return true;
}

// lossless-json 4.x isSafeNumber (approx: false).
function isSafeNumber(source: string): boolean {
  const str = String(Number.parseFloat(source));
  return source === str || countSignificantDigits(source) === countSignificantDigits(str);
}

function countSignificantDigits(value: string): number {
  let start = value[0] === '-' ? 1 : 0;
  while (value[start] === '0' || value[start] === '.') start++;
  let end = value.lastIndexOf('e');
  if (end === -1) end = value.lastIndexOf('E');
  if (end === -1) end = value.length;
  while (value[end - 1] === '0' || value[end - 1] === '.') end--;
  let digits = end >= start ? end - start : 0;
  const dot = value.indexOf('.', start);
  if (dot !== -1 && dot < end) digits--;
  return digits;
}
