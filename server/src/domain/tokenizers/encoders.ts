// One encoder per vocabulary per thread, built on first use: building one costs 0.1-0.8 s of CPU
// (o200k_base is the slowest) and tens of MB, so it must never happen per call. The rank tables are
// required lazily too (several MB of source), so importing this module is cheap.
import { createRequire } from 'node:module';

export type Encoding = 'o200k_base' | 'cl100k_base' | 'claude';

interface Encoder {
  count(text: string): number;
}

const require = createRequire(import.meta.url);
const cache = new Map<Encoding, Encoder>();

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
    // getTokenizer() gives the same encoder to keep. Same normalisation and special-token rule.
    const { getTokenizer } = require('@anthropic-ai/tokenizer') as {
      getTokenizer(): { encode(text: string, allowedSpecial: 'all'): ArrayLike<number> };
    };
    const tok = getTokenizer();
    return { count: (text) => tok.encode(text.normalize('NFKC'), 'all').length };
  }
  const { Tiktoken } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
  const ranks = require(`js-tiktoken/ranks/${encoding}`) as ConstructorParameters<typeof Tiktoken>[0];
  const tok = new Tiktoken(ranks);
  // 'all': Langfuse encodes with allowed_special "all", so `<|endoftext|>` is one token, not an error.
  return { count: pieceCountCache(ranks, (piece) => tok.encode(piece, 'all').length) };
}

// bounds of the remembered pieces: a piece can be a long run of spaces or dashes, which repeats
// too (code indentation, markdown rules) and costs the most to count, so the bound is on characters
const PIECES_MAX = 200_000;
const PIECE_CHARS_TOTAL_MAX = 8_000_000;

/**
 * js-tiktoken's count, with the count of each piece remembered. encode() splits the text at
 * special tokens, then into pieces with the vocabulary's pattern, and byte-pair encodes each
 * piece on its own (UTF-8 bytes, joined into a string key, looked up, merged), so the count of
 * a text is the sum over its pieces. Words repeat (Zipf): remembering the few thousand common
 * pieces leaves the split and a Map lookup for most of them. A piece is counted by the library
 * itself the first time: re-matching one piece alone gives the same single piece, because no
 * alternative of the pattern that failed at its start can succeed on a prefix of it (the only
 * lookahead, `\s+(?!\S)`, precedes the plain `\s+`, which matches the same whitespace).
 * A test compares both on real text.
 */
function pieceCountCache(ranks: { pat_str: string; special_tokens: Record<string, number> }, countPiece: (piece: string) => number): (text: string) => number {
  const pattern = new RegExp(ranks.pat_str, 'gu');
  const escape = (s: string) => s.replace(/[\\^$*+?.()|[\]{}]/g, '\\$&');
  const specials = new RegExp(Object.keys(ranks.special_tokens).map(escape).join('|'), 'g');
  const counts = new Map<string, number>();
  let chars = 0;
  const countSegment = (segment: string) => {
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
  return (text) => {
    let total = 0, start = 0;
    for (const special of text.matchAll(specials)) {
      total += countSegment(text.slice(start, special.index)) + 1;
      start = special.index + special[0].length;
    }
    return total + countSegment(text.slice(start));
  };
}
