// One encoder per vocabulary per thread. Building one costs CPU (~0.1-0.3 s) and tens of MB, so it
// must never happen per call: the worker threads build theirs when they start (tokenizer-worker.ts).
// The rank tables are required lazily (several MB of source), so importing this module is cheap.
//
// OpenAI vocabularies: counted with gpt-tokenizer's byte-pair encoder, configured to give exactly
// js-tiktoken's counts (the reference; Langfuse uses the WASM tiktoken, which agrees with it):
// - the pre-tokenisation pattern is js-tiktoken's `pat_str` (gpt-tokenizer's own cl100k_base pattern
//   is the newer tiktoken one, `\s+$|\s*[\r\n]|…|\s`, which splits some whitespace runs differently);
// - special tokens are js-tiktoken's set, split off here as one token each (allowed_special "all",
//   like Langfuse), and nothing else is special: `<|im_start|>`, which gpt-tokenizer's cl100k_base
//   knows, is plain text for js-tiktoken. gpt-tokenizer's own special-token search is not used (its
//   sticky regex only finds a special token at the start of the remaining text).
// Each piece of the split is byte-pair encoded on its own, so the count of a text is the sum over
// its pieces, and the count of each piece is remembered (pieceCountCache): words repeat (Zipf), and
// a Map hit is cheaper than gpt-tokenizer's own path (rank lookup, then an LRU merge cache that
// re-inserts on every hit): 3.4 -> 5.9 M tokens/s on cl100k_base, 2.4 -> 3.5 on o200k_base (mixed
// 2 KB pieces, one run). gpt-tokenizer's merge cache is switched off: the Map in front of it does
// that job. A test compares the counts with js-tiktoken's on a 10+ MB corpus.
// Rejected: js-tiktoken itself (0.15-0.35 M tokens/s on mixed text, 100-170 MB per vocabulary per
// thread, which the same piece cache brought to about 1 M).
import { createRequire } from 'node:module';

export type Encoding = 'o200k_base' | 'cl100k_base' | 'claude';

export interface Encoder {
  count(text: string): number;
}

const require = createRequire(import.meta.url);
const cache = new Map<Encoding, Encoder>();

/** js-tiktoken 1.0.21's `pat_str` and special tokens of each vocabulary (a test checks them against the package). */
export const OPENAI_VOCABULARIES = {
  cl100k_base: {
    pattern:
      "('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    specials: ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|endofprompt|>'],
  },
  o200k_base: {
    pattern:
      "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    specials: ['<|endoftext|>', '<|endofprompt|>'],
  },
} as const;

/** @anthropic-ai/tokenizer 0.0.4's claude.json `pat_str` and special tokens (a test checks them against the package). */
export const CLAUDE = {
  pattern: "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
  specials: ['<EOT>', '<META>', '<META_START>', '<META_END>', '<SOS>'],
} as const;

export function encoder(encoding: Encoding): Encoder {
  let enc = cache.get(encoding);
  if (!enc) {
    enc = build(encoding);
    cache.set(encoding, enc);
  }
  return enc;
}

export function isEncoderLoaded(encoding: Encoding): boolean {
  return cache.has(encoding);
}

function build(encoding: Encoding): Encoder {
  if (encoding === 'claude') {
    // countTokens() of the package builds (and frees) a WASM encoder on every call (~50-100 ms);
    // getTokenizer() gives the same encoder to keep. Same normalisation and special-token rule
    // (NFKC first, its special tokens allowed); the pieces of its pattern are remembered like the
    // OpenAI ones (a test compares with the package's own encoder on a 10+ MB corpus).
    const { getTokenizer } = require('@anthropic-ai/tokenizer') as {
      getTokenizer(): { encode(text: string, allowedSpecial: 'all'): ArrayLike<number> };
    };
    const tok = getTokenizer();
    const countPlain = pieceCountCache(new RegExp(CLAUDE.pattern, 'gu'), (piece) => tok.encode(piece, 'all').length);
    const count = splitSpecials(CLAUDE.specials, countPlain);
    return { count: (text) => count(text.normalize('NFKC')) };
  }
  return { count: openaiCounter(encoding) };
}

interface GptEncodingLike {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  setMergeCacheSize(size: number): void;
}

// bounds of the remembered pieces: a piece can be a long run of spaces or dashes, which repeats
// too (code indentation, markdown rules) and costs the most to count, so the bound is on characters
const PIECES_MAX = 100_000;
const PIECE_CHARS_TOTAL_MAX = 2_000_000;

function openaiCounter(encoding: 'o200k_base' | 'cl100k_base'): (text: string) => number {
  const { pattern, specials } = OPENAI_VOCABULARIES[encoding];
  // The class's constructor is private in its types; getEncodingApi would use gpt-tokenizer's own
  // pattern and specials, so the parameters are given here (the same shape getEncodingParams makes).
  const { GptEncoding } = require('gpt-tokenizer/GptEncoding') as { GptEncoding: new (params: unknown) => GptEncodingLike };
  const bpe = (require(`gpt-tokenizer/bpeRanks/${encoding}`) as { default: (string | number[])[] }).default;
  const tok = new GptEncoding({
    bytePairRankDecoder: bpe,
    // ids are never returned by a count; the map only has to hold the names
    specialTokensEncoder: new Map(specials.map((s, i) => [s, 1_000_000 + i])),
    tokenSplitRegex: new RegExp(pattern, 'gu'),
  });
  tok.setMergeCacheSize(0);
  // Nothing special inside a segment: the text between special tokens is all plain text.
  const plain = { disallowedSpecial: new Set<string>() };
  const countPlain = pieceCountCache(new RegExp(pattern, 'gu'), (piece) => tok.countTokens(piece, plain));
  return splitSpecials(specials, countPlain);
}

/** special tokens count one each; the text between them is counted as plain text */
function splitSpecials(specials: readonly string[], countPlain: (segment: string) => number): (text: string) => number {
  const escapeRegex = (s: string) => s.replace(/[\\^$*+?.()|[\]{}]/g, '\\$&');
  const special = new RegExp(specials.map(escapeRegex).join('|'), 'g');
  // the prefix all special tokens share ("<|", "<"): text without it has none of them
  let marker = specials[0]!;
  for (const s of specials) while (!s.startsWith(marker)) marker = marker.slice(0, -1);
  return (text) => {
    if (!text.includes(marker)) return countPlain(text);
    let total = 0,
      start = 0;
    for (const m of text.matchAll(special)) {
      total += countPlain(text.slice(start, m.index)) + 1;
      start = m.index + m[0].length;
    }
    return total + countPlain(text.slice(start));
  };
}

/**
 * The count of a plain-text segment as the sum of its pieces' counts, each remembered. A piece is
 * counted by the encoder itself the first time: re-matching one piece alone gives the same single
 * piece, because no alternative of the pattern that failed at its start can succeed on a prefix of
 * it (the only lookahead, `\s+(?!\S)`, precedes the plain `\s+`, which matches the same whitespace).
 */
function pieceCountCache(pattern: RegExp, countPiece: (piece: string) => number): (segment: string) => number {
  const counts = new Map<string, number>();
  let chars = 0;
  return (segment) => {
    let total = 0;
    for (const [piece] of segment.matchAll(pattern)) {
      let n = counts.get(piece);
      if (n === undefined) {
        n = countPiece(piece);
        if (counts.size >= PIECES_MAX || chars + piece.length > PIECE_CHARS_TOTAL_MAX) {
          counts.clear();
          chars = 0;
        }
        counts.set(piece, n);
        chars += piece.length;
      }
      total += n;
    }
    return total;
  };
}
