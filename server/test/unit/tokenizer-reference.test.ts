// Tally's OpenAI counts (bpe.ts's merge over js-tiktoken's rank files, configured in encoders.ts) must be exactly
// js-tiktoken's, the reference: on real text (the READMEs of installed packages), on text built to
// stress the split, and on a 10+ MB generated corpus of prose in many scripts, code, JSON, emoji,
// whitespace runs and special-token-looking strings (js-tiktoken's specials count as one token,
// like Langfuse's allowed_special "all"; others such as <|im_start|> are plain text).
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE, encoder, OPENAI_VOCABULARIES } from '../../src/domain/tokenizers/encoders.ts';
import { corpus, pieces } from '../fixtures/tokenizer-corpus.ts';

const require = createRequire(import.meta.url);
const { Tiktoken } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');

// the READMEs of installed packages: English prose, markdown, code samples, some other scripts
function realText(): string[] {
  const root = join(import.meta.dirname, '../../../node_modules');
  const texts: string[] = [];
  for (const dir of readdirSync(root).sort().slice(0, 150)) {
    try {
      texts.push(readFileSync(join(root, dir, 'README.md'), 'utf8'));
    } catch {
      /* no README */
    }
  }
  return texts;
}

function stressText(seed: number): string {
  const parts = [
    ' ',
    '  ',
    '\n',
    '\r\n',
    '\t',
    ' \n ',
    "'s",
    "'LL",
    "don't",
    '123456',
    '3.14',
    'Straße',
    'naïve',
    '日本語',
    'Ελληνικά',
    '😀',
    'x̄',
    'ABCdef',
    'camelCase',
    '<|endoftext|>',
    '<|endofprompt|>',
    '<|im_start|>',
    '<|endof',
    '{"a":[1,2]}',
    '$$',
    '\u00a0',
    '   \n\n  ',
    '-->',
    '\\\\',
    '\ud83d',
  ];
  let s = '';
  for (let i = 0; i < 400; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    s += parts[seed % parts.length];
  }
  return s;
}

const CORPUS_CHARS = 10_500_000;

describe.each(['o200k_base', 'cl100k_base'] as const)('OpenAI counts identical to js-tiktoken (%s)', (encoding) => {
  const ranks = require(`js-tiktoken/ranks/${encoding}`) as ConstructorParameters<typeof Tiktoken>[0] & {
    pat_str: string;
    special_tokens: Record<string, number>;
  };
  const plain = new Tiktoken(ranks);
  const exact = (text: string) => plain.encode(text, 'all').length;

  it("uses js-tiktoken's split pattern and special tokens", () => {
    expect(OPENAI_VOCABULARIES[encoding].pattern).toBe(ranks.pat_str);
    expect([...OPENAI_VOCABULARIES[encoding].specials].sort()).toEqual(Object.keys(ranks.special_tokens).sort());
  });

  it('counts real text exactly as js-tiktoken does, on first sight and again', () => {
    const texts = realText();
    expect(texts.length).toBeGreaterThan(20);
    for (const text of texts) {
      expect(encoder(encoding).count(text)).toBe(exact(text));
      expect(encoder(encoding).count(text)).toBe(exact(text));
    }
  });

  it('counts text that stresses the split exactly as js-tiktoken does', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const text = stressText(seed);
      expect(encoder(encoding).count(text)).toBe(exact(text));
    }
    expect(encoder(encoding).count('<|endoftext|>')).toBe(1);
    expect(encoder(encoding).count('a<|endoftext|>b<|endofprompt|>')).toBe(exact('a<|endoftext|>b<|endofprompt|>'));
    expect(encoder(encoding).count('')).toBe(0);
  });

  it(`counts a ${CORPUS_CHARS / 1e6} M-character generated corpus exactly as js-tiktoken does, piece by piece`, () => {
    const text = corpus(CORPUS_CHARS, encoding === 'o200k_base' ? 11 : 12);
    expect(Buffer.byteLength(text)).toBeGreaterThan(10_000_000);
    const enc = encoder(encoding);
    let mismatches = 0,
      tokens = 0;
    const first: string[] = [];
    for (const piece of pieces(text)) {
      const want = exact(piece);
      tokens += want;
      if (enc.count(piece) !== want && ++mismatches <= 3) first.push(JSON.stringify(piece.slice(0, 300)));
    }
    expect({ mismatches, first }).toEqual({ mismatches: 0, first: [] });
    expect(tokens).toBeGreaterThan(2_000_000);
  }, 300_000);
});

// The legacy Claude vocabulary: the package's own WASM encoder (what its countTokens() uses, NFKC
// first, its special tokens allowed) against Tally's remembered-piece count.
describe('Claude counts identical to @anthropic-ai/tokenizer', () => {
  const pkg = require('@anthropic-ai/tokenizer') as { getTokenizer(): { encode(text: string, allowedSpecial: 'all'): ArrayLike<number> } };
  const tok = pkg.getTokenizer();
  const exact = (text: string) => tok.encode(text.normalize('NFKC'), 'all').length;
  const claudeJson = require('@anthropic-ai/tokenizer/dist/cjs/claude.json') as { pat_str: string; special_tokens: Record<string, number> };

  it("uses the package's split pattern and special tokens", () => {
    expect(CLAUDE.pattern).toBe(claudeJson.pat_str);
    expect([...CLAUDE.specials].sort()).toEqual(Object.keys(claudeJson.special_tokens).sort());
  });

  it('counts real text, stress text and special tokens exactly as the package does', () => {
    for (const text of realText()) expect(encoder('claude').count(text)).toBe(exact(text));
    for (let seed = 1; seed <= 200; seed++) {
      const text = `${stressText(seed)}<EOT><META>x<META_START>y<META_END><SOS><EO`;
      expect(encoder('claude').count(text)).toBe(exact(text));
    }
    expect(encoder('claude').count('<META_START>')).toBe(1);
  });

  it(`counts a ${CORPUS_CHARS / 1e6} M-character generated corpus exactly as the package does, piece by piece`, () => {
    const text = corpus(CORPUS_CHARS, 13);
    const enc = encoder('claude');
    let mismatches = 0;
    const first: string[] = [];
    for (const piece of pieces(text))
      if (enc.count(piece) !== exact(piece) && ++mismatches <= 3) first.push(JSON.stringify(piece.slice(0, 300)));
    expect({ mismatches, first }).toEqual({ mismatches: 0, first: [] });
  }, 300_000);
});
