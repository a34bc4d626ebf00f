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
  return { count: (text) => tok.encode(text, 'all').length };
}
