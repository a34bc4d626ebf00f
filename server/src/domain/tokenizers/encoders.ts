// One encoder per vocabulary per thread. Building one costs CPU (30-90 ms) and a few MB, so it
// must never happen per call: a worker builds each when a count first needs it (tokenizer-worker.ts).
// The rank files are required lazily (up to 2.3 MB of source), so importing this module is cheap.
//
// Every vocabulary is counted by bpe.ts's byte-pair merge over tiktoken's rank files: js-tiktoken's
// for o200k_base and cl100k_base (the reference; Langfuse uses the WASM tiktoken, which agrees with
// it), @anthropic-ai/tokenizer's claude.json for Claude. What makes the counts the reference's:
// - the pre-tokenisation pattern is the rank file's `pat_str` (kept here; a test checks them);
// - special tokens are the reference's set, split off here as one token each (allowed_special "all",
//   like Langfuse), and nothing else is special (`<|im_start|>` is plain text for js-tiktoken);
// - each piece of the split is merged on its own, so the count of a text is the sum over its pieces.
// The count of each piece is remembered (pieceCountCache): words repeat (Zipf), and a Map hit is
// cheaper than a merge. Tests compare the counts with js-tiktoken's and the Claude package's on a
// 10+ MB corpus.
// Rejected: js-tiktoken itself (0.2-0.4 M tokens/s on mixed text, 100-170 MB per vocabulary per
// thread); gpt-tokenizer's encoder (used until 2026-11-28: as fast, but its Map of 200,000 strings
// took o200k_base to +66 MB RSS, the three vocabularies to +109 MB per thread, against +23 MB now).
import { createRequire } from 'node:module';
import { rankTable } from './bpe.ts';

export type Encoding = 'o200k_base' | 'cl100k_base' | 'claude';

export interface Encoder {
  count(text: string): number;
}

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
    // The package counts with the WASM tiktoken over claude.json (NFKC first, its special tokens
    // allowed); the same ranks are counted here by the same merge (a test compares with the
    // package's own encoder on a 10+ MB corpus).
    const table = rankTable(loadRanks('@anthropic-ai/tokenizer/claude.json'));
    const count = splitSpecials(CLAUDE.specials, pieceCountCache(new RegExp(CLAUDE.pattern, 'gu'), table.count));
    return { count: (text) => count(text.normalize('NFKC')) };
  }
  const { pattern, specials } = OPENAI_VOCABULARIES[encoding];
  const table = rankTable(loadRanks(`js-tiktoken/ranks/${encoding}`));
  return { count: splitSpecials(specials, pieceCountCache(new RegExp(pattern, 'gu'), table.count)) };
}

/**
 * A rank file's `bpe_ranks` text. The module is dropped from require's cache once read: the
 * table keeps what it needs, and the source (2.3 MB for o200k_base) can go. Through a require of
 * its own: a require function's parent module lists every module it loaded among its children,
 * so with the module-wide one the three rank texts (4 MB) stayed for the life of the thread (a
 * heap snapshot of a tokenizer worker, 2026-11-29).
 */
function loadRanks(id: string): string {
  const load = createRequire(import.meta.url);
  const path = load.resolve(id);
  try {
    return (load(path) as { bpe_ranks: string }).bpe_ranks;
  } finally {
    delete load.cache[path];
  }
}

// bounds of the remembered pieces: a piece can be a long run of spaces or dashes, which repeats
// too (code indentation, markdown rules) and costs the most to count, so the bound is on characters
const PIECES_MAX = 100_000;
const PIECE_CHARS_TOTAL_MAX = 2_000_000;

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
