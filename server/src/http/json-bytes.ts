// Looks at a JSON body's bytes before JSON.parse sees them, for what parsing would hide or what
// it would cost too much to find out afterwards:
//
// - bytes that are not valid UTF-8. Decoding turns them into U+FFFD, indistinguishable from a
//   U+FFFD the client meant, so they were stored as such. A body with them (Buffer's native
//   isUtf8 says so, about 7 µs for a 270 KB body) is decoded here with each ill-formed sequence
//   replaced by INVALID_UTF8_MARK, two lone low surrogates: no valid UTF-8 decodes to one, so
//   the marked strings are exactly the ones that held the bytes, and domain/unstorable-text.ts refuses
//   them with the field (or, in a batch, the event) named, as it does NUL and lone surrogates.
// - nesting far beyond the depth the API takes (json-depth.ts). JSON.parse of 4 MB of `[[[[…`
//   builds two million arrays (about 150 MB and 2 s) before the depth check can refuse them.
//   `pruneDeepJson` empties every container at a depth past which everything is refused anyway,
//   so the parsed value is refused exactly as before, with the same path, without being built.
import { INVALID_UTF8_MARK } from '../domain/unstorable-text.ts';
import { isUtf8 } from 'node:buffer';

/** what an ill-formed UTF-8 sequence decodes to; two units, so an escaped high surrogate before it still leaves one unpaired */

/**
 * The length of the well-formed UTF-8 sequence at `i` (Unicode table 3-7), or minus the length
 * of the maximal ill-formed subpart there (what a decoder replaces with one U+FFFD).
 */
function sequenceAt(buf: Uint8Array, i: number): number {
  const b = buf[i]!;
  if (b < 0x80) return 1;
  let need: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) need = 1;
  else if (b === 0xe0) {
    need = 2;
    lo = 0xa0;
  } else if (b === 0xed) {
    need = 2;
    hi = 0x9f;
  } // no surrogates
  else if (b >= 0xe1 && b <= 0xef) need = 2;
  else if (b === 0xf0) {
    need = 3;
    lo = 0x90;
  } else if (b === 0xf4) {
    need = 3;
    hi = 0x8f;
  } // nothing past U+10FFFF
  else if (b >= 0xf1 && b <= 0xf3) need = 3;
  else return -1;
  for (let k = 1; k <= need; k++) {
    const c = buf[i + k];
    if (c === undefined || c < lo || c > hi) return -k;
    lo = 0x80;
    hi = 0xbf;
  }
  return need + 1;
}

/** the text of `raw`, with INVALID_UTF8_MARK for each ill-formed sequence; `invalid` says whether there was one */
export function decodeUtf8(raw: Buffer): { text: string; invalid: boolean } {
  if (isUtf8(raw)) return { text: raw.toString('utf8'), invalid: false };
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < raw.length; ) {
    if (raw[i]! < 0x80) {
      i++;
      continue;
    }
    const n = sequenceAt(raw, i);
    if (n > 0) {
      i += n;
      continue;
    }
    parts.push(raw.toString('utf8', from, i), INVALID_UTF8_MARK);
    i -= n;
    from = i;
  }
  parts.push(raw.toString('utf8', from));
  return { text: parts.join(''), invalid: true };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** the index of the quote closing the string whose content starts at `i`, or -1 */
function stringEnd(buf: Buffer, i: number): number {
  for (let from = i; ; ) {
    const q = buf.indexOf(QUOTE, from);
    if (q < 0) return -1;
    let b = q - 1;
    while (b >= i && buf[b] === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q; // not escaped
    from = q + 1;
  }
}

/** the index of the first `[` or `{` that opens level `keep + 1`, or -1; strings are skipped */
function firstBeyond(buf: Buffer, keep: number): number {
  let depth = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (c === QUOTE) {
      i = stringEnd(buf, i + 1);
      if (i < 0) return -1; // unterminated: JSON.parse says so
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > keep) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const DIGIT = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const HEX = (c: number | undefined) => c !== undefined && ((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66));
const LITERALS: Record<number, number[]> = {
  116: [0x74, 0x72, 0x75, 0x65],
  102: [0x66, 0x61, 0x6c, 0x73, 0x65],
  110: [0x6e, 0x75, 0x6c, 0x6c],
};

/** the end of the JSON string whose opening quote is at `i` (the index after its closing quote), or minus the offending index */
function skipString(buf: Buffer, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = buf[j]!;
    if (c === QUOTE) return j + 1;
    if (c < 0x20) return -j;
    if (c === BACKSLASH) {
      const e = buf[++j];
      if (e === 0x75) {
        for (let k = 1; k <= 4; k++) if (!HEX(buf[j + k])) return -(j + k);
        j += 4;
      } else if (
        e === undefined ||
        !(e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74)
      )
        return -j;
    }
  }
  return -end;
}

/** the end of the JSON number at `i`, or minus the offending index */
function skipNumber(buf: Buffer, i: number): number {
  let j = i;
  if (buf[j] === 0x2d) j++;
  if (buf[j] === 0x30) j++;
  else if (DIGIT(buf[j])) while (DIGIT(buf[j])) j++;
  else return -j;
  if (buf[j] === 0x2e) {
    if (!DIGIT(buf[++j])) return -j;
    while (DIGIT(buf[j])) j++;
  }
  if (buf[j] === 0x65 || buf[j] === 0x45) {
    j++;
    if (buf[j] === 0x2b || buf[j] === 0x2d) j++;
    if (!DIGIT(buf[j])) return -j;
    while (DIGIT(buf[j])) j++;
  }
  return j;
}

/**
 * Whether `buf[start, end)` is exactly one JSON value: -1 when it is, else the index where it
 * stops being one. Iterative, with the open containers on a byte stack, so any depth is fine.
 */
export function invalidJsonAt(buf: Buffer, start: number, end: number): number {
  const stack = new Uint8Array(Math.max(1, end - start)); // 1: array, 2: object
  let sp = 0;
  // 0 a value, 1 a value or `]`, 2 a key or `}`, 3 a key, 4 `:`, 5 after a value
  let want = 0;
  let i = start;
  while (i < end) {
    const c = buf[i]!;
    if (WS(c)) {
      i++;
      continue;
    }
    if (want === 5) {
      if (sp === 0) return i;
      if (c === 0x2c) {
        want = stack[sp - 1] === 1 ? 0 : 3;
        i++;
        continue;
      }
      if ((c === 0x5d && stack[sp - 1] === 1) || (c === 0x7d && stack[sp - 1] === 2)) {
        sp--;
        i++;
        continue;
      }
      return i;
    }
    if (want === 4) {
      if (c !== 0x3a) return i;
      want = 0;
      i++;
      continue;
    }
    if (want === 2 || want === 3) {
      if (want === 2 && c === 0x7d) {
        sp--;
        want = 5;
        i++;
        continue;
      }
      if (c !== QUOTE) return i;
      const j = skipString(buf, i, end);
      if (j < 0) return -j;
      i = j;
      want = 4;
      continue;
    }
    // a value (want 0 or 1)
    if (want === 1 && c === 0x5d) {
      sp--;
      want = 5;
      i++;
      continue;
    }
    if (c === 0x5b) {
      stack[sp++] = 1;
      want = 1;
      i++;
      continue;
    }
    if (c === 0x7b) {
      stack[sp++] = 2;
      want = 2;
      i++;
      continue;
    }
    let j: number;
    if (c === QUOTE) j = skipString(buf, i, end);
    else if (c === 0x2d || DIGIT(c)) j = skipNumber(buf, i);
    else if (LITERALS[c]) {
      const lit = LITERALS[c]!;
      j = i;
      for (const l of lit) {
        if (buf[j] !== l) {
          j = -j;
          break;
        }
        j++;
      }
    } else return i;
    if (j < 0) return -j;
    if (j > end) return end;
    i = j;
    want = 5;
  }
  return want === 5 && sp === 0 ? -1 : end;
}

/**
 * The JSON text `raw` with every container at level `keep` that holds containers emptied (`[]`
 * or `{}`), so nothing deeper than `keep` levels is left to parse; `raw` itself when nothing is
 * that deep. The containers at level `keep` stay, so a depth check with a limit below `keep`
 * finds the same first container past it, at the same path. A body whose removed part is not
 * valid JSON gives `{ invalidAt }`, the byte offset of the first error in it: removing it must
 * not make an invalid body valid.
 */
export function pruneDeepJson(raw: Buffer, keep: number): Buffer | { invalidAt: number } {
  let at = firstBeyond(raw, keep);
  if (at < 0) return raw;
  const pieces: Buffer[] = [];
  let copied = 0;
  // from here on: a walk that knows where each container at level `keep` opened
  let depth = keep + 1;
  const opens = new Int32Array(keep + 2);
  // the openers of the levels above `at`, found again from the start
  {
    let d = 0;
    for (let i = 0; i < at; i++) {
      const c = raw[i]!;
      if (c === QUOTE) {
        i = stringEnd(raw, i + 1);
        if (i < 0) return raw; // cannot happen: firstBeyond walked past these strings
      } else if (c === 0x5b || c === 0x7b) opens[++d] = i;
      else if (c === 0x5d || c === 0x7d) d--;
    }
  }
  for (let i = at; i < raw.length; ) {
    // the container at level `keep` that holds `i`: skip to its end, then keep it empty
    const open = opens[keep]!;
    let d = depth;
    let j = i + 1;
    for (; j < raw.length && d >= keep; j++) {
      const c = raw[j]!;
      if (c === QUOTE) {
        j = stringEnd(raw, j + 1);
        if (j < 0) {
          j = raw.length;
          break;
        }
      } else if (c === 0x5b || c === 0x7b) d++;
      else if (c === 0x5d || c === 0x7d) d--;
    }
    // j is one past the closer of the container at level `keep` (or the end of an unbalanced body)
    const close = j - 1;
    if (d >= keep) return { invalidAt: raw.length };
    const bad = invalidJsonAt(raw, open, close + 1);
    if (bad >= 0) return { invalidAt: bad };
    pieces.push(raw.subarray(copied, open + 1), raw.subarray(close, close + 1));
    copied = close + 1;
    // on to the next container past level `keep`, tracking levels from the closer's parent
    depth = keep - 1;
    at = -1;
    for (let k = close + 1; k < raw.length; k++) {
      const c = raw[k]!;
      if (c === QUOTE) {
        k = stringEnd(raw, k + 1);
        if (k < 0) break;
      } else if (c === 0x5b || c === 0x7b) {
        opens[++depth] = k;
        if (depth > keep) {
          at = k;
          break;
        }
      } else if (c === 0x5d || c === 0x7d) depth--;
    }
    if (at < 0) break;
    i = at;
  }
  pieces.push(raw.subarray(copied));
  return Buffer.concat(pieces);
}
