import { describe, expect, it } from 'vitest';
import { findUnstorableText, mayHoldUnstorableText } from '../../src/http/unstorable-text.ts';

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
    expect(findUnstorableText({ ['k\udc00']: 1 })).toMatchObject({ path: ['k\udc00'], code: 'invalid_key' });
    expect(findUnstorableText('\ud800', ['name'])?.message).toMatch(/unpaired UTF-16 surrogate/);
  });
});

describe('numbers beyond a double', () => {
  it('are flagged by the raw pre-check and named by the walk', () => {
    expect(mayHoldUnstorableText(Buffer.from('{"a":1e309}'))).toBe(true);
    expect(mayHoldUnstorableText(Buffer.from('{"a":-1E+400}'))).toBe(true);
    expect(mayHoldUnstorableText(Buffer.from(`{"a":${'9'.repeat(310)}}`))).toBe(true);
    expect(mayHoldUnstorableText(Buffer.from('{"a":1e30,"b":"the 1999 edition"}'))).toBe(false);
    expect(findUnstorableText({ a: [1, Infinity] })).toMatchObject({ path: ['a', 1], code: 'too_big' });
    expect(findUnstorableText({ a: 1e308 })).toBeNull();
  });
});
