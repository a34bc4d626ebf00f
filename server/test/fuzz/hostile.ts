// The hostile corpus: strings, numbers, structures and encodings that have broken (or could
// break) a JSON/SQL service, and the mutations that put them into otherwise valid requests.
import fc from 'fast-check';
import type { LeafKind } from './schema-arbitrary.ts';
import { RawJson, clone, objectOf } from './wire.ts';

const long = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));

/** strings no well-behaved server should choke on (none contains a pattern the oracles look for) */
export const hostileStrings: string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '\ud800\u0000',
  '\ufffe',
  '\uffff',
  '\ufeffbom',
  '\u202eRTL',
  'e\u0301',
  '\r',
  '\r\n',
  '\n\t',
  '\\',
  '"',
  "'",
  '`',
  '\\u0000',
  '%00',
  '%',
  '%E0%A4%A',
  '%ZZ',
  '../../../../etc/passwd',
  '..',
  '.',
  "'; DROP TABLE models; --",
  "' OR '1'='1",
  '"; --',
  '$1',
  '?',
  ':name',
  '%s%s%s%n',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as plain text
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e309',
  '0x10',
  // timestamps at and past the edges of what JS Date and PostgreSQL timestamptz hold
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2025-13-01T00:00:00Z',
  '2025-01-01T24:00:00Z',
  '2025-01-01T23:59:60Z',
  '+275760-09-13T00:00:00Z',
  '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '294277-01-01T00:00:00Z',
  '1969-12-31T23:59:59.999999999Z',
  '2025-01-01T00:00:00+99:99',
  '2025-01-01T00:00:00',
  '2025-01-01',
  'T',
  '2025',
  // regular expressions as model match patterns
  '(a+)+$',
  '(?i)',
  '(?i)^(',
  '[',
  '(?<n>a)\\k<n>',
  '(?=x)x',
  '*',
  '\\p{L}',
  '(?i)^(gpt-4o)$',
  '.*',
  '^$',
  `(${'a|'.repeat(400)}b)`,
  long('x', 3000),
  long('é', 3000),
  long('😀', 4000),
  long('\u0000', 3000),
  long('\ud800', 3000),
  long('a', 9000),
];

/** names that are properties of every JS object: a lookup by such a key finds something */
export const prototypeNames = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  'toLocaleString',
];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...hostileStrings) },
  { weight: 2, arbitrary: fc.constantFrom(...prototypeNames) },
  // random text of 2.7 KB+ (PostgreSQL's btree entries end near 2704 bytes)
  { weight: 1, arbitrary: fc.string({ minLength: 2800, maxLength: 4000, unit: 'grapheme-ascii' }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }) },
  // a lone surrogate or NUL somewhere inside ordinary text
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 10 }), fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00'), fc.string({ maxLength: 10 }))
      .map(([a, b, c]) => a + b + c),
  },
);

/** numbers and numeric text: JS numbers, and raw JSON literals a JS number cannot hold */
export const hostileNumber: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  1e308,
  -1e308,
  -1,
  0,
  -0.0,
  0.5,
  -0.5,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  1e21,
  5e-324,
  1.7976931348623157e308,
  new RawJson('9007199254740993'),
  new RawJson('1e309'),
  new RawJson('-1e309'),
  new RawJson('1e-400'),
  new RawJson('-0'),
  new RawJson('12345678901234567890'),
  new RawJson('99999999999999999999'),
  new RawJson('123456789012345678901234567890.5'),
  new RawJson('1E+2'),
);

/** JSON nested `depth` levels deep, as raw text (cheap to build at any depth) */
export function deepJson(depth: number, kind: 'array' | 'object' | 'mixed'): RawJson {
  if (kind === 'array') return new RawJson('['.repeat(depth) + ']'.repeat(depth));
  if (kind === 'object') return new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
  return new RawJson(`${'[{"k":'.repeat(depth / 2)}null${'}]'.repeat(depth / 2)}`);
}

export const hostileStructure: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .constantFrom(200, 1000, 5000, 20000)
    .chain((d) => fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed').map((k) => deepJson(d, k))),
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    {},
    [],
    [null],
    [[]],
    [{}],
    '',
    0,
    objectOf([['__proto__', { polluted: true }]]),
    objectOf([['constructor', { prototype: { polluted: true } }]]),
    objectOf([
      ['__proto__', null],
      ['constructor', 'x'],
      ['prototype', 1],
    ]),
    objectOf([['\u0000', 1]]),
    objectOf([['\ud800', 'x']]),
    objectOf([['', '']]),
    objectOf([[long('k', 3000), 1]]),
    new RawJson('{"a":1,"a":2}'),
    new RawJson(`[${'0,'.repeat(20000)}0]`),
    new RawJson(`{${Array.from({ length: 3000 }, (_, i) => `"k${i}":${i}`).join(',')}}`),
  ),
);

/** anything at all where a value goes: a hostile value of any kind */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 3, arbitrary: hostileStructure },
);

export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    '\u0000',
    '\ud800',
    '',
    ' ',
    'x'.repeat(3000),
    'unknownField',
    'id',
    'type',
    '$ref',
    '0',
  ),
  fc.string({ maxLength: 12 }),
);

type Mutation =
  | { op: 'replace'; pick: number; value: unknown }
  | { op: 'delete'; pick: number }
  | { op: 'addKey'; pick: number; key: string; value: unknown }
  | { op: 'wrapInArray'; pick: number }
  | { op: 'stringify'; pick: number };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('replace' as const), pick: fc.nat(), value: hostileValue }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('addKey' as const),
      pick: fc.nat(),
      key: hostileKey,
      value: fc.oneof(hostileValue, fc.jsonValue({ maxDepth: 2 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('wrapInArray' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('stringify' as const), pick: fc.nat() }) },
);

/** a place in a JSON tree: a member or element of `parent`, or the root (parent null) */
type Slot = { parent: any; key: string | number };

function slots(root: unknown): Slot[] {
  const out: Slot[] = [{ parent: null, key: '' }];
  const walk = (v: unknown) => {
    if (v instanceof RawJson || v === null || typeof v !== 'object') return;
    if (Array.isArray(v))
      v.forEach((x, i) => {
        out.push({ parent: v, key: i });
        walk(x);
      });
    else
      for (const k of Object.keys(v)) {
        out.push({ parent: v, key: k });
        walk((v as any)[k]);
      }
  };
  walk(root);
  return out;
}

function objects(root: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (v: unknown) => {
    if (v instanceof RawJson || v === null || typeof v !== 'object') return;
    if (!Array.isArray(v)) out.push(v as Record<string, unknown>);
    for (const x of Object.values(v)) walk(x);
  };
  walk(root);
  return out;
}

function set(root: unknown, slot: Slot, value: unknown): unknown {
  if (slot.parent === null) return value;
  Object.defineProperty(slot.parent, slot.key, { value, enumerable: true, writable: true, configurable: true });
  return root;
}

/** applies mutations to a copy of a value; slots are picked by index, so the result shrinks well */
export function applyMutations(value: unknown, mutations: Mutation[]): unknown {
  let root = clone(value);
  for (const m of mutations) {
    if (m.op === 'addKey') {
      const objs = objects(root);
      if (objs.length === 0) {
        root = objectOf([[m.key, clone(m.value)]]);
        continue;
      }
      const o = objs[m.pick % objs.length];
      Object.defineProperty(o, m.key, { value: clone(m.value), enumerable: true, writable: true, configurable: true });
      continue;
    }
    const all = slots(root);
    // the root is a slot only for replace (a whole body swapped for a hostile value) and only sometimes
    const candidates = all.length > 1 && m.op !== 'replace' ? all.slice(1) : all;
    const slot = candidates[m.pick % candidates.length];
    const current = slot.parent === null ? root : slot.parent[slot.key];
    if (m.op === 'replace') root = set(root, slot, clone(m.value));
    else if (m.op === 'wrapInArray') root = set(root, slot, [current]);
    else if (m.op === 'stringify') root = set(root, slot, current instanceof RawJson ? current.text : (JSON.stringify(current) ?? 'null'));
    else if (m.op === 'delete' && slot.parent !== null) {
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
      else delete slot.parent[slot.key];
    }
  }
  return root;
}

export const mutations = fc.array(mutation, { minLength: 1, maxLength: 3 });

/**
 * A request value three ways: as the schema generates it; with hostile values in some of its
 * fields (each leaf of the schema has its own small chance, see hostileLeaves); and with those
 * plus structural mutations (fields removed, added, wrapped in arrays, swapped for anything).
 */
export function validOrHostile(
  valid: fc.Arbitrary<unknown>,
  withHostileLeaves: fc.Arbitrary<unknown>,
  validWeight = 1,
): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: validWeight, arbitrary: valid },
    { weight: 2, arbitrary: withHostileLeaves },
    { weight: 2, arbitrary: fc.tuple(withHostileLeaves, mutations).map(([v, ms]) => applyMutations(v, ms)) },
  );
}

export const hostileDateTime: fc.Arbitrary<string> = fc.constantFrom(
  ...hostileStrings.filter((s) => /^[+-]?\d{4,6}-\d\d/.test(s) || s === 'T'),
);

/** hostile values for one kind of schema leaf: mostly of its own type, sometimes of another */
function hostileFor(kind: LeafKind): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'string':
      return fc.oneof({ weight: 5, arbitrary: hostileString }, { weight: 1, arbitrary: hostileValue });
    case 'date-time':
      return fc.oneof(
        { weight: 5, arbitrary: hostileDateTime },
        { weight: 1, arbitrary: hostileString },
        { weight: 1, arbitrary: hostileNumber },
      );
    case 'number':
    case 'integer':
      return fc.oneof(
        { weight: 5, arbitrary: hostileNumber },
        { weight: 1, arbitrary: fc.constantFrom<unknown>('1', '', null, true, [1], { value: 1 }) },
      );
    case 'boolean':
      return fc.constantFrom<unknown>('true', 'false', 1, 0, null, [], {});
    case 'enum':
      return fc.oneof(fc.constantFrom<unknown>('', 'tokens', 'TOKENS ', 'Tokens', null, 0), hostileString);
    case 'null':
      return hostileValue;
    case 'any':
      return fc.oneof({ weight: 3, arbitrary: hostileStructure }, { weight: 1, arbitrary: hostileValue });
  }
}

/** the `leaf` hook of schema-arbitrary: each leaf is hostile with `percent` % chance */
export function hostileLeaves(percent: number) {
  return (kind: LeafKind, valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
    fc.oneof({ weight: 100 - percent, arbitrary: valid }, { weight: percent, arbitrary: hostileFor(kind) });
}

// ---- URLs ------------------------------------------------------------------------------------

/** percent-encodes text as UTF-8, and a lone surrogate as its WTF-8 bytes (invalid UTF-8) */
export function percentEncode(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  }
  return out;
}

/** path segments and query values as they go on the wire, some deliberately malformed */
export const rawUrlPiece: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileString.map(percentEncode) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '%E0%A4%A',
      '%00',
      '%',
      '%%',
      '%ZZ',
      '%C0%80',
      '%ED%A0%80',
      '%FF',
      '%2F',
      '%2e%2e',
      '..',
      '.',
      '%5C',
      'a%00b',
      '%u0000',
      '1e309',
      '12345678901234567890',
      '-1',
      '0.5',
      '0',
      '+1',
      '%201',
      '1%20',
      '0x1F',
      '1,2',
      '1e3',
      '00001',
      '-0',
    ),
  },
);

/** bytes 0x80-0xff and controls written unencoded on the request line (node sends the path as latin1) */
export const rawRequestLineBytes: fc.Arbitrary<string> = fc.constantFrom(
  '\u00ff',
  '\u00e9t\u00e9',
  'caf\u00c3\u00a9',
  '\u00ed\u00a0\u0080',
  '\u0080',
  'a\u00a0b',
);
