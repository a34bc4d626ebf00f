// The compact byte-pair counter (domain/tokenizers/bpe.ts) on its own: the merge against
// js-tiktoken's on single long pieces, where the order of merges matters most and where
// tiktoken's own merge is quadratic; a 1 MB piece; rank text it cannot read.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { rankTable } from '../../src/domain/tokenizers/bpe.ts';

const require = createRequire(import.meta.url);
const { Tiktoken } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');

describe.each(['o200k_base', 'cl100k_base'] as const)('byte-pair counts of single pieces (%s)', (encoding) => {
  const ranks = require(`js-tiktoken/ranks/${encoding}`) as ConstructorParameters<typeof Tiktoken>[0];
  const reference = new Tiktoken(ranks);
  const table = rankTable(ranks.bpe_ranks);
  // a piece the split pattern would leave whole is encoded as one piece by js-tiktoken too
  const exact = (piece: string) => reference.encode(piece).length;

  it('merges long runs and mixed single pieces exactly as js-tiktoken does', () => {
    const pieces = [
      ' '.repeat(1200),
      '-'.repeat(1001),
      'a'.repeat(999),
      'ab'.repeat(600),
      'Supercalifragilisticexpialidocious'.repeat(20),
      '日本語のテキスト'.repeat(100),
      '😀'.repeat(300),
      'x̄'.repeat(400),
      '=+'.repeat(500),
      'é',
      'hello',
      ' world',
    ];
    for (const p of pieces) expect(table.count(p), JSON.stringify(p.slice(0, 20))).toBe(exact(p));
    // js-tiktoken's merge is quadratic: these pieces cost it seconds on a busy machine
  }, 60_000);

  it("counts a piece of a million bytes (tiktoken's own merge rescans every part after each one)", () => {
    const n = table.count(' '.repeat(1_000_000));
    // whitespace tokens are at most a few dozen bytes long
    expect(n).toBeGreaterThan(1_000_000 / 200);
    expect(n).toBeLessThan(1_000_000 / 2);
    // and the same again (its scratch is not kept, the kept one still works)
    expect(table.count(' '.repeat(1_000_000))).toBe(n);
    expect(table.count(' '.repeat(1200))).toBe(exact(' '.repeat(1200)));
  }, 60_000);

  it('counts an empty piece as none and any single byte as one token', () => {
    expect(table.count('')).toBe(0);
    for (const c of ['a', ' ', '\n', '\u0000', '~']) expect(table.count(c)).toBe(1);
  });
});

describe('rank text', () => {
  it("reads ranks from each line's first rank on, skipping none", () => {
    // "YQ==" a, "Yg==" b, "YWI=" ab: ab merges, so "ab" is one token and "abab" two
    const table = rankTable('! 0 YQ== Yg==\n! 2 YWI=');
    expect(table.count('ab')).toBe(1);
    expect(table.count('abab')).toBe(2);
    expect(table.count('ba')).toBe(2);
  });

  it('refuses text that is not a rank file, naming where', () => {
    expect(() => rankTable('YQ== Yg==')).toThrow(/must start with "! " at 0/);
    expect(() => rankTable('! 0 YQ== Y*==')).toThrow(/"\*" is not base64 at 10/);
  });
});
