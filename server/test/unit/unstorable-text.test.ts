import { describe, expect, it } from 'vitest';
import { findUnstorableText, holdsNonFiniteNumber, mayHoldUnstorableText } from '../../src/domain/unstorable-text.ts';

describe('text PostgreSQL cannot store', () => {
  it('is suspected from the raw body only when it has a NUL or surrogate escape', () => {
    expect(mayHoldUnstorableText(Buffer.from(JSON.stringify({ a: 'plain ünïcode 😀' })))).toBe(false);
    expect(mayHoldUnstorableText(Buffer.from(JSON.stringify({ a: 'x\u0000' })))).toBe(true);
    expect(mayHoldUnstorableText(Buffer.from('{"a":"\\uD800"}'))).toBe(true);
    expect(mayHoldUnstorableText(Buffer.from('{"a":"\\ud83d\\ude00"}'))).toBe(true); // a pair: walked, then accepted
  });

  it('names the first bad value or key, and accepts paired surrogates', () => {
    expect(findUnstorableText({ a: ['ok', { b: 'smile 😀' }] })).toBeNull();
    expect(findUnstorableText({ a: ['ok', { b: 'x\u0000' }] })).toMatchObject({ path: ['a', 1, 'b'], code: 'invalid_string' });
    expect(findUnstorableText({ 'k\udc00': 1 })).toMatchObject({ path: ['k\udc00'], code: 'invalid_key' });
    expect(findUnstorableText('\ud800', ['name'])?.message).toMatch(/unpaired UTF-16 surrogate/);
  });
});

describe('numbers beyond a double', () => {
  it('are found among the parsed values (at any depth, keys or array items) and named by the walk', () => {
    const parsed = (json: string) => holdsNonFiniteNumber(JSON.parse(json));
    expect(parsed('{"a":1e309}')).toBe(true);
    expect(parsed('{"a":-1E+400}')).toBe(true);
    expect(parsed(`{"a":${'9'.repeat(310)}}`)).toBe(true);
    expect(parsed('{"batch":[{"body":{"usage":{"input":1}}},{"body":{"metadata":{"x":[0,[1,2e400]]}}}]}')).toBe(true);
    expect(parsed('{"a":1e30,"b":"the 1999 edition 1e999","c":[1.7976931348623157e308,-5e-400,null,true]}')).toBe(false);
    expect(holdsNonFiniteNumber(NaN)).toBe(true);
    expect(holdsNonFiniteNumber('Infinity')).toBe(false);
    // 100,000 levels: no stack overflow
    expect(parsed(`${'['.repeat(100_000)}1e999${']'.repeat(100_000)}`)).toBe(true);
    expect(findUnstorableText({ a: [1, Infinity] })).toMatchObject({ path: ['a', 1], code: 'too_big' });
    expect(findUnstorableText({ a: 1e308 })).toBeNull();
  });
});
