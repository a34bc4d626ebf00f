// Compares a response body with an example. Pointers in `ignore` (with `*` for any
// segment) are skipped; with `only`, nothing but those pointers is compared.
export interface Difference {
  pointer: string;
  expected: unknown;
  actual: unknown;
}

const segs = (p: string) => p.split('/').slice(1);
function matches(pattern: string, pointer: string): boolean {
  const a = segs(pattern);
  const b = segs(pointer);
  return a.length === b.length && a.every((s, i) => s === '*' || s === b[i]);
}

function at(value: unknown, pointer: string): unknown {
  return segs(pointer).reduce<any>((o, k) => (o == null ? undefined : o[k]), value);
}

function walk(expected: unknown, actual: unknown, pointer: string, ignore: string[], out: Difference[]) {
  if (ignore.some((p) => matches(p, pointer))) return;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) out.push({ pointer: `${pointer}/length`, expected: expected.length, actual: actual.length });
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) walk(expected[i], actual[i], `${pointer}/${i}`, ignore, out);
    return;
  }
  if (
    expected &&
    actual &&
    typeof expected === 'object' &&
    typeof actual === 'object' &&
    !Array.isArray(expected) &&
    !Array.isArray(actual)
  ) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const k of keys) {
      const p = `${pointer}/${k}`;
      if (!(k in (actual as object))) {
        if (!ignore.some((i) => matches(i, p))) out.push({ pointer: p, expected: (expected as any)[k], actual: '(missing)' });
        continue;
      }
      if (!(k in (expected as object))) {
        if (!ignore.some((i) => matches(i, p))) out.push({ pointer: p, expected: '(absent)', actual: (actual as any)[k] });
        continue;
      }
      walk((expected as any)[k], (actual as any)[k], p, ignore, out);
    }
    return;
  }
  if (!Object.is(expected, actual) && !(expected === 0 && actual === 0)) out.push({ pointer: pointer || '/', expected, actual });
}

export function diff(expected: unknown, actual: unknown, opts: { ignore?: string[]; only?: string[] } = {}): Difference[] {
  const out: Difference[] = [];
  if (opts.only?.length) {
    for (const p of opts.only) walk(at(expected, p), at(actual, p), p, opts.ignore ?? [], out);
  } else walk(expected, actual, '', opts.ignore ?? [], out);
  return out;
}

export function formatDifferences(diffs: Difference[]): string {
  return diffs.map((d) => `    at ${d.pointer}: expected ${JSON.stringify(d.expected)}, got ${JSON.stringify(d.actual)}`).join('\n');
}
