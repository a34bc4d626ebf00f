// Inline token-counting throughput (no worker hop) on ~1 MB of text, per vocabulary.
// Run: node bench/tokenizers.ts   (figures only; no test asserts timing)
import { countTokens, type TokenizerRef } from '../server/src/domain/tokenizers/index.ts';

const WORDS = (
  'the of and to in is that for it as with was on be by this are from at or an have not which but ' +
  'model usage tokens cost input output trace observation generation latency prompt completion ' +
  'Langfuse pricing tier cache read write naïve über café 日本語 テキスト données größe ' +
  '{"role":"user"} 42 3.14 2026-11-22 https://example.com/a?b=c user@example.com ' +
  'def main(): return x + 1 const y = await f(z); SELECT * FROM t WHERE id = $1'
).split(' ');

function corpus(chars: number): string {
  let seed = 7;
  const parts: string[] = [];
  for (let n = 0; n < chars; ) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const w = WORDS[seed % WORDS.length]! + (seed % 11 === 0 ? '.\n' : seed % 5 === 0 ? ', ' : ' ');
    parts.push(w);
    n += w.length;
  }
  return parts.join('');
}

const text = corpus(1_000_000);
const tokenizers: [string, TokenizerRef][] = [
  ['o200k_base (gpt-4o)', { tokenizerId: 'openai', tokenizerConfig: { tokenizerModel: 'gpt-4o' } }],
  ['cl100k_base (gpt-4)', { tokenizerId: 'openai', tokenizerConfig: { tokenizerModel: 'gpt-4' } }],
  ['claude (legacy BPE)', { tokenizerId: 'claude', tokenizerConfig: null }],
];

console.log(`text: ${(text.length / 1e6).toFixed(2)} M chars`);
for (const [name, tok] of tokenizers) {
  let t = performance.now();
  countTokens(tok, 'warm up');
  const buildMs = performance.now() - t;
  const runs: number[] = [];
  let tokens = 0;
  for (let i = 0; i < 3; i++) {
    t = performance.now();
    tokens = countTokens(tok, text)!;
    runs.push(performance.now() - t);
  }
  const best = Math.min(...runs);
  console.log(
    `${name.padEnd(20)} encoder build ${buildMs.toFixed(0).padStart(4)} ms   ${tokens} tokens in ${best.toFixed(0)} ms` +
      `   ${((tokens / best) * 1000 / 1e6).toFixed(2)} M tokens/s   ${((text.length / best) * 1000 / 1e6).toFixed(2)} M chars/s`,
  );
}
