// fast-check arbitraries derived from the JSON Schemas (2020-12, as OpenAPI 3.1 writes them) of the
// bundled spec. It covers the keywords the spec uses: $ref, type (also as a list), enum, const,
// properties, required, additionalProperties, items, minItems/maxItems, oneOf/anyOf/allOf,
// minimum/maximum, minLength/maxLength, pattern (only the spec's ^[^\r]*$) and the formats
// date-time and date. A value is meant to be valid; when a combination is too loose to be
// (oneOf members that overlap), the server's answer still has to be a declared one.
import fc from 'fast-check';

type Schema = Record<string, any>;

export function resolve(spec: any, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string'; i++) {
    if (i > 20 || !s.$ref.startsWith('#/')) throw new Error(`cannot resolve ${s.$ref}`);
    s = s.$ref
      .slice(2)
      .split('/')
      .reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  return s;
}

/** allOf members folded into one schema (properties merged, required united, const/enum win) */
function mergeAll(spec: any, schemas: Schema[]): Schema {
  const out: Schema = {};
  for (const raw of schemas) {
    let s = resolve(spec, raw);
    if (s.allOf) s = { ...mergeAll(spec, s.allOf), ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'allOf')) };
    for (const [k, v] of Object.entries(s)) {
      if (k === 'properties') {
        out.properties ??= {};
        for (const [p, ps] of Object.entries(v as Schema))
          out.properties[p] = out.properties[p] ? mergeAll(spec, [out.properties[p], ps as Schema]) : ps;
      } else if (k === 'required') out.required = [...new Set([...(out.required ?? []), ...(v as string[])])];
      else if (k === 'const' || k === 'enum') {
        delete out.const;
        delete out.enum;
        out[k] = v;
      } else if (k === 'description' || k === 'discriminator' || k === 'examples' || k === 'default') continue;
      else out[k] = v;
    }
  }
  return out;
}

export interface ArbitraryOptions {
  /** strings for fields with no tighter schema (names, ids, free text) */
  text: fc.Arbitrary<string>;
  /** values for schemas that allow anything ({}: input, output, metadata, tokenizerConfig) */
  anyJson: fc.Arbitrary<unknown>;
  /** strings for some properties by name (ids to share between requests, model names) */
  byName?: Record<string, fc.Arbitrary<unknown>>;
  /** properties whose free-form maps (additionalProperties: true) hold numbers: usage and cost details */
  numericMaps?: string[];
  /** wraps the generator of every leaf (the hook through which hostile values reach each field) */
  leaf?: (kind: LeafKind, valid: fc.Arbitrary<unknown>) => fc.Arbitrary<unknown>;
}

export type LeafKind = 'string' | 'date-time' | 'number' | 'integer' | 'boolean' | 'null' | 'enum' | 'any';

const dateTime = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString()),
  },
  {
    weight: 1,
    arbitrary: fc
      .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().replace(/\.\d{3}Z$/, '+05:30')),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '2024-01-01T00:00:00Z',
      '2024-02-29T23:59:59.999999Z',
      '2025-06-15T12:00:00.123-08:00',
      '1970-01-01T00:00:00.000Z',
    ),
  },
);
const date = fc
  .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

export function arbitraryFor(spec: any, schema: Schema, opts: ArbitraryOptions, name?: string, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 12) return fc.constant(null);
  let s = resolve(spec, schema);
  if (s.allOf) s = mergeAll(spec, [s]);
  const leaf = (kind: LeafKind, valid: fc.Arbitrary<unknown>) => (opts.leaf ? opts.leaf(kind, valid) : valid);
  if (name && opts.byName?.[name] && !s.const && !s.enum) return leaf(s.format === 'date-time' ? 'date-time' : 'string', opts.byName[name]);
  // a const stays (it picks the oneOf member, as the discriminator does); an enum is a leaf
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return leaf('enum', fc.constantFrom(...(s.enum as unknown[])));
  if (s.oneOf || s.anyOf) {
    const members = (s.oneOf ?? s.anyOf) as Schema[];
    // sibling keywords (e.g. type) apply to every member
    const rest = Object.fromEntries(
      Object.entries(s).filter(([k]) => k !== 'oneOf' && k !== 'anyOf' && k !== 'discriminator' && k !== 'description'),
    );
    return fc.oneof(
      ...members.map((m) => arbitraryFor(spec, Object.keys(rest).length ? mergeAll(spec, [rest, m]) : m, opts, name, depth + 1)),
    );
  }
  const types: string[] | undefined = Array.isArray(s.type)
    ? s.type
    : s.type
      ? [s.type]
      : s.properties
        ? ['object']
        : s.items
          ? ['array']
          : undefined;
  if (!types) return leaf('any', opts.anyJson);
  if (types.length > 1) {
    return fc.oneof(
      ...types.map((t) => ({ weight: t === 'null' ? 1 : 4, arbitrary: arbitraryFor(spec, { ...s, type: t }, opts, name, depth + 1) })),
    );
  }
  switch (types[0]) {
    case 'null':
      return leaf('null', fc.constant(null));
    case 'boolean':
      return leaf('boolean', fc.boolean());
    case 'integer': {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1_000_000);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1_000_000_000);
      // valid extremes too: the bounds, 32-bit and 53-bit limits
      const edges = [min, max, 2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, -(2 ** 53 - 1)].filter(
        (n) => n >= min && n <= max && Number.isSafeInteger(n),
      );
      return leaf(
        'integer',
        fc.oneof(
          { weight: 7, arbitrary: fc.integer({ min, max: Math.min(max, min + 100_000) }) },
          { weight: 1, arbitrary: fc.integer({ min, max: Math.min(max, Number.MAX_SAFE_INTEGER) }) },
          { weight: 2, arbitrary: fc.constantFrom(...edges) },
        ),
      );
    }
    case 'number': {
      const min = s.minimum ?? -1e6;
      const max = s.maximum ?? 1e9;
      // valid extremes too: a number schema without a maximum allows the largest double
      const edges = [min, s.maximum, 5e-324, 1e-9, 1e21, 1e300, 1e308, Number.MAX_VALUE, -Number.MAX_VALUE].filter(
        (n): n is number => n !== undefined && n >= (s.minimum ?? -Infinity) && n <= (s.maximum ?? Infinity),
      );
      return leaf(
        'number',
        fc.oneof(
          { weight: 5, arbitrary: fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 1e6)) }) },
          { weight: 3, arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)) },
          { weight: 2, arbitrary: fc.constantFrom(...edges) },
        ),
      );
    }
    case 'string': {
      if (s.format === 'date-time') return leaf('date-time', dateTime);
      if (s.format === 'date') return leaf('date-time', date);
      const minLength = s.minLength ?? 0;
      const maxLength = s.maxLength;
      let a = opts.text;
      if (s.pattern === '^[^\\r]*$') a = a.map((t) => t.replace(/\r/g, ''));
      // any other pattern: strings that match it (fast-check builds them from the regex)
      else if (s.pattern) return leaf('string', fc.stringMatching(new RegExp(s.pattern)));
      return leaf(
        'string',
        a
          .map((t) => (maxLength !== undefined && [...t].length > maxLength ? [...t].slice(0, maxLength).join('') : t))
          .map((t) => (t.length < minLength ? t + 'x'.repeat(minLength - t.length) : t)),
      );
    }
    case 'array': {
      const items = s.items ? arbitraryFor(spec, s.items, opts, undefined, depth + 1) : opts.anyJson;
      const minLength = s.minItems ?? 0;
      return fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(s.maxItems ?? 3, 3)) });
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set<string>(s.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [p, ps] of Object.entries(props)) model[p] = arbitraryFor(spec, ps, opts, p, depth + 1);
      // required names with no property schema: anything
      for (const r of required) model[r] ??= opts.anyJson;
      const known = fc.record(model, { requiredKeys: [...required] });
      const ap = s.additionalProperties;
      if (ap === undefined || ap === false || Object.keys(props).length > 0) return known;
      const numeric = name !== undefined && opts.numericMaps?.includes(name);
      const values =
        ap !== true
          ? arbitraryFor(spec, ap, opts, undefined, depth + 1)
          : numeric
            ? leaf('number', fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.double({ min: 0, max: 1e6, noNaN: true })))
            : opts.anyJson;
      return fc
        .tuple(
          known,
          fc.dictionary(fc.oneof(opts.text, fc.constantFrom('input', 'output', 'total', 'input_cached_tokens')), values, { maxKeys: 4 }),
        )
        .map(([k, extra]) => ({ ...extra, ...k }));
    }
    default:
      throw new Error(`no generator for type ${types[0]}`);
  }
}
