// Inline token-counting throughput (no worker hop), per vocabulary: Tally's counter and js-tiktoken
// (the reference) on the same text in the same run. The text is realistic mixed material (prose in
// several languages and scripts, code, JSON, emoji, whitespace runs; server/test/fixtures/
// tokenizer-corpus.ts) in pieces of about 2 KB, as events carry it. Counts must be identical.
// Run: node bench/tokenizers.ts   (figures only; no test asserts timing). BENCH_TOKENIZER_MB (default 2).
import { createRequire } from 'node:module';
import { encoder } from '../server/src/domain/tokenizers/encoders.ts';
import { corpus, pieces } from '../server/test/fixtures/tokenizer-corpus.ts';

const require = createRequire(import.meta.url);

interface Pass {
  tokens: number;
  ms: number;
}
function pass(count: (s: string) => number, texts: string[]): Pass {
  const t = performance.now();
  let tokens = 0;
  for (const s of texts) tokens += count(s);
  return { tokens, ms: performance.now() - t };
}
const mtps = (p: Pass) => (p.tokens / p.ms / 1000).toFixed(2);

export async function run(): Promise<string[]> {
  const lines: string[] = [];
  const chars = Number(process.env.BENCH_TOKENIZER_MB ?? 2) * 1e6;
  const texts = pieces(corpus(chars, 5), 2000);
  lines.push(
    `text: ${(chars / 1e6).toFixed(1)} M chars of mixed prose/code/CJK/JSON in ${texts.length} pieces of ~2 KB; one thread; "first" = first pass (caches empty), "best" = best of 3`,
  );
  const { Tiktoken } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
  for (const encoding of ['cl100k_base', 'o200k_base'] as const) {
    let t = performance.now();
    const tally = encoder(encoding);
    const tallyBuild = performance.now() - t;
    t = performance.now();
    const ref = new Tiktoken(require(`js-tiktoken/ranks/${encoding}`));
    const refBuild = performance.now() - t;
    const refCount = (s: string) => ref.encode(s, 'all').length;
    const tallyRuns = [pass(tally.count, texts), pass(tally.count, texts), pass(tally.count, texts)];
    const refRuns = [pass(refCount, texts), pass(refCount, texts), pass(refCount, texts)];
    const best = (runs: Pass[]) => runs.reduce((a, b) => (b.ms < a.ms ? b : a));
    const same = tallyRuns[0]!.tokens === refRuns[0]!.tokens;
    lines.push(
      `${encoding.padEnd(12)} Tally ${mtps(best(tallyRuns)).padStart(5)} M tokens/s (first ${mtps(tallyRuns[0]!)}; build ${tallyBuild.toFixed(0)} ms)   ` +
        `js-tiktoken ${mtps(best(refRuns)).padStart(5)} M tokens/s (first ${mtps(refRuns[0]!)}; build ${refBuild.toFixed(0)} ms)   ` +
        `ratio ${(best(refRuns).ms / best(tallyRuns).ms).toFixed(1)}x   ${tallyRuns[0]!.tokens} tokens, ${same ? 'identical counts' : `COUNTS DIFFER: js-tiktoken ${refRuns[0]!.tokens}`}   (target >= 1.5 M tokens/s)`,
    );
    if (!same) throw new Error(lines.join('\n'));
  }
  // the legacy Claude vocabulary (WASM tiktoken inside @anthropic-ai/tokenizer), for reference
  const claude = encoder('claude');
  const c = [pass(claude.count, texts), pass(claude.count, texts)];
  lines.push(`claude       Tally ${mtps(c[1]!)} M tokens/s (first ${mtps(c[0]!)})   (@anthropic-ai/tokenizer, no alternative)`);
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) for (const line of await run()) console.log(line);
