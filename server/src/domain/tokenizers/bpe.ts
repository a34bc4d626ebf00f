// Byte-pair counting over a compact rank table. The vocabularies ship as tiktoken's rank files
// (lines of `! <first rank> <base64 token> <base64 token> …`); the libraries that read them keep
// each token as its own string or array in a Map, tens of MB per vocabulary per thread (o200k_base:
// +66 MB RSS with gpt-tokenizer, 100-170 MB with js-tiktoken; Claude's WASM tiktoken +38 MB). Here
// all tokens' bytes sit in one Uint8Array and an open-addressing hash table of Int32 maps bytes to
// the token: about 5 MB of arrays for o200k_base by their sizes (+17 MB RSS measured in all, the
// rank file read and dropped). A count
// needs no token ids, only how many parts the merge ends with.
//
// The merge is tiktoken's (`_byte_pair_merge`): start from single bytes, repeatedly merge the
// adjacent pair whose concatenation has the lowest rank (the leftmost of equals) until no
// adjacent pair is a token. tiktoken rescans all parts after each merge (quadratic in the piece's
// bytes); here the pairs wait in a min-heap keyed by (rank, position), which
// picks the same pair every time, so the count is the same in O(n log n).

const NONE = -1;
// heap keys: rank * 2^32 + part start (exact in a double for ranks below 2^21)
const POS = 2 ** 32;

export interface RankTable {
  count(piece: string): number;
}

/** tiktoken's rank text (`bpe_ranks`) as a compact table */
export function rankTable(bpeRanks: string): RankTable {
  const { bytes, starts, ranks, tokens } = decodeRanks(bpeRanks);
  let size = 1;
  while (size < tokens * 2) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size).fill(NONE);
  for (let k = 0; k < tokens; k++) {
    let i = hash(bytes, starts[k]!, starts[k + 1]!) & mask;
    while (slots[i] !== NONE) i = (i + 1) & mask;
    slots[i] = k;
  }

  /** the rank of buf[from..to) as one token, NONE when it is none */
  const rankOf = (buf: Uint8Array, from: number, to: number): number => {
    const len = to - from;
    let i = hash(buf, from, to) & mask;
    for (;;) {
      const k = slots[i]!;
      if (k === NONE) return NONE;
      const s = starts[k]!;
      if (starts[k + 1]! - s === len) {
        let j = 0;
        while (j < len && bytes[s + j] === buf[from + j]) j++;
        if (j === len) return ranks[k]!;
      }
      i = (i + 1) & mask;
    }
  };

  const encoder = new TextEncoder();
  // scratch of the merge, kept for pieces up to KEEP bytes; a longer one gets its own, dropped after
  const kept = scratch(KEEP);

  return {
    count(piece) {
      const w = piece.length * 3 <= KEEP ? kept : scratch(piece.length * 3);
      const n = encoder.encodeInto(piece, w.buf).written;
      if (n <= 1 || rankOf(w.buf, 0, n) !== NONE) return n === 0 ? 0 : 1;
      return mergedParts(w, n, rankOf);
    },
  };
}

const KEEP = 4096;

interface Scratch {
  buf: Uint8Array;
  next: Int32Array;
  prev: Int32Array;
  pair: Int32Array;
  heap: Float64Array;
}

const scratch = (bytes: number): Scratch => ({
  buf: new Uint8Array(bytes),
  next: new Int32Array(bytes),
  prev: new Int32Array(bytes),
  pair: new Int32Array(bytes),
  // each merge adds at most two pairs to the n - 1 of the start
  heap: new Float64Array(3 * bytes),
});

/** how many parts the merge of buf[0..n) ends with */
function mergedParts(w: Scratch, n: number, rankOf: (buf: Uint8Array, from: number, to: number) => number): number {
  const { buf, next, prev, pair, heap } = w;
  let heapLen = 0;
  const push = (key: number) => {
    let i = heapLen++;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (heap[up]! <= key) break;
      heap[i] = heap[up]!;
      i = up;
    }
    heap[i] = key;
  };
  const pop = (): number => {
    const top = heap[0]!;
    const last = heap[--heapLen]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= heapLen) break;
      if (child + 1 < heapLen && heap[child + 1]! < heap[child]!) child++;
      if (heap[child]! >= last) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  };
  // part s spans [s, next[s]); pair[s] is the rank of part s joined with the part after it
  for (let s = 0; s < n; s++) {
    next[s] = s + 1;
    prev[s] = s - 1;
    const r = s + 2 <= n ? rankOf(buf, s, s + 2) : NONE;
    pair[s] = r;
    if (r !== NONE) push(r * POS + s);
  }
  let parts = n;
  while (heapLen > 0) {
    const key = pop();
    const s = key % POS;
    // stale once either part merged with another: the pair's span grew, and with it its rank
    if (pair[s] !== (key - s) / POS) continue;
    const gone = next[s]!;
    const after = next[gone]!;
    next[s] = after;
    if (after < n) prev[after] = s;
    pair[gone] = NONE;
    parts--;
    const r1 = after < n ? rankOf(buf, s, next[after]!) : NONE;
    pair[s] = r1;
    if (r1 !== NONE) push(r1 * POS + s);
    const p = prev[s]!;
    if (p >= 0) {
      const r0 = rankOf(buf, p, after);
      pair[p] = r0;
      if (r0 !== NONE) push(r0 * POS + p);
    }
  }
  return parts;
}

function hash(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h >>> 0;
}

const BASE64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) BASE64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/**
 * The tokens of a rank text, decoded straight from its characters (no string per token: the
 * file's 200,000 substrings would be the largest transient of a worker's start).
 */
function decodeRanks(text: string): { bytes: Uint8Array; starts: Uint32Array; ranks: Int32Array; tokens: number } {
  // upper bounds first: every token is at least one base64 quadruple, 3 bytes per 4 characters
  let words = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 32) words++;
  const bytes = new Uint8Array(Math.ceil((text.length * 3) / 4));
  const starts = new Uint32Array(words + 2);
  const ranks = new Int32Array(words + 1);
  let tokens = 0;
  let out = 0;
  let i = 0;
  while (i < text.length) {
    // a line: "! <first rank>" then its tokens, each separated by one space
    let end = text.indexOf('\n', i);
    if (end < 0) end = text.length;
    if (text.charCodeAt(i) !== 33 || text.charCodeAt(i + 1) !== 32) throw new Error(`rank text: a line must start with "! " at ${i}`);
    let j = i + 2;
    let rank = 0;
    while (j < end && text.charCodeAt(j) !== 32) rank = rank * 10 + (text.charCodeAt(j++) - 48);
    while (j < end) {
      j++; // the space before a token
      starts[tokens] = out;
      ranks[tokens] = rank++;
      let acc = 0;
      let bits = 0;
      while (j < end) {
        const c = text.charCodeAt(j);
        if (c === 32) break;
        j++;
        if (c === 61) continue; // '=' padding
        const v = c < 128 ? BASE64[c]! : -1;
        if (v < 0) throw new Error(`rank text: "${text[j - 1]}" is not base64 at ${j - 1}`);
        acc = ((acc << 6) | v) & 0xffff;
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          bytes[out++] = (acc >> bits) & 0xff;
        }
      }
      tokens++;
    }
    i = end + 1;
  }
  starts[tokens] = out;
  return { bytes: bytes.slice(0, out), starts: starts.slice(0, tokens + 1), ranks: ranks.slice(0, tokens), tokens };
}
