// The remembered piece counts must give exactly js-tiktoken's own count, on real prose and
// code and on text built to stress the split (whitespace runs, scripts, digits, specials).
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encoder } from '../../src/domain/tokenizers/encoders.ts';

const require = createRequire(import.meta.url);
const { Tiktoken } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');

// the READMEs of installed packages: English prose, markdown, code samples, some other scripts
function realText(): string[] {
  const root = join(import.meta.dirname, '../../../node_modules');
  const texts: string[] = [];
  for (const dir of readdirSync(root).sort().slice(0, 150)) {
    try {
      texts.push(readFileSync(join(root, dir, 'README.md'), 'utf8'));
    } catch { /* no README */ }
  }
  return texts;
}

function stressText(seed: number): string {
  const parts = [' ', '  ', '\n', '\r\n', '\t', ' \n ', "'s", "'LL", 'don\'t', '123456', '3.14', 'Straße', 'naïve', '日本語', 'Ελληνικά', '😀',
    'x̄', 'ABCdef', 'camelCase', '<|endoftext|>', '<|endofprompt|>', '<|endof', '{"a":[1,2]}', '$$', '\u00a0', '   \n\n  ', '-->', '\\\\'];
  let s = '';
  for (let i = 0; i < 400; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    s += parts[seed % parts.length];
  }
  return s;
}

describe.each(['o200k_base', 'cl100k_base'] as const)('piece-count cache (%s)', (encoding) => {
  const plain = new Tiktoken(require(`js-tiktoken/ranks/${encoding}`));
  const exact = (text: string) => plain.encode(text, 'all').length;

  it('counts real text exactly as js-tiktoken does, on first sight and from memory', () => {
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
  });
});
