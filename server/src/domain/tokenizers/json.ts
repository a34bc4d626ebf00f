// Langfuse reads stored input/output with lossless-json (`parseJsonPrioritised`): a number that
// survives the trip through a double stays a number, any other (a 20-digit id, 0.1234567890123456789)
// stays its source text as a string, and text that is not JSON is kept as is. Re-stringifying such a
// value therefore differs from JSON.parse + JSON.stringify, which changes token counts.
// JSON.parse with source access (Node >= 21) reproduces that without the dependency. Known gap:
// lossless-json rejects duplicate object keys (so Langfuse keeps the raw text); JSON.parse keeps the last.

type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown;
const parseWithSource = JSON.parse as (text: string, reviver: Reviver) => unknown;

export function parseJsonPrioritised(text: string): unknown {
  try {
    return parseWithSource(text, (_key, value, context) =>
      typeof value === 'number' && context?.source !== undefined && !isSafeNumber(context.source) ? context.source : value,
    );
  } catch {
    return text;
  }
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
