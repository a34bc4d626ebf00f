import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { countTokens, inferUsage, type TokenizerRef } from '../../src/domain/tokenizers/index.ts';
import { createTokenizerPool, type TokenizerPool } from '../../src/threads/tokenizer-pool.ts';
import { SERVER_NODE_FLAGS } from '../../../bench/lib.ts';

const gpt4o: TokenizerRef = { tokenizerId: 'openai', tokenizerConfig: { tokenizerModel: 'gpt-4o', tokensPerMessage: 3, tokensPerName: 1 } };
const claude: TokenizerRef = { tokenizerId: 'claude', tokenizerConfig: null };

// Varied prose (a seeded word salad), so the count is not a best case of one repeated sentence.
function text(chars: number): string {
  const words = ['token', 'usage', 'cost', 'model', 'Langfuse', 'naïve', 'über', '日本', 'JSON', '{"a":1}', '42', 'the', 'of', 'and'];
  let seed = 42;
  const parts: string[] = [];
  for (let n = 0; n < chars; ) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const w = words[seed % words.length]! + (seed % 7 === 0 ? '.\n' : ' ');
    parts.push(w);
    n += w.length;
  }
  return parts.join('');
}

let pool: TokenizerPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('tokenizer pool', () => {
  it('counts small values inline once the encoder is built on this thread', async () => {
    countTokens(gpt4o, 'warm'); // builds o200k_base here
    pool = createTokenizerPool({ startWorkers: false });
    expect(await pool.inferUsage(gpt4o, 'hello world', 'hello world')).toEqual({ input: 2, output: 2, total: 4 });
    expect(await pool.inferUsage(gpt4o, '', '')).toEqual({ input: 0, output: 0 });
    expect(await pool.inferUsage({ tokenizerId: null, tokenizerConfig: null }, 'a', 'b')).toBeUndefined();
    expect(pool.threads).toBe(0);
  });

  it('sends a small value to a worker rather than build a cold encoder on this thread', async () => {
    pool = createTokenizerPool({ startWorkers: false });
    expect(await pool.inferUsage(claude, 'hello world!', null)).toEqual({ input: 3, total: 3 });
    expect(pool.threads).toBe(1);
  }, 30_000);

  it('starts no thread until a count needs one', async () => {
    pool = createTokenizerPool({ size: 2 });
    expect(pool.threads).toBe(0);
    const input = text(20_000);
    expect(await pool.inferUsage(gpt4o, input, null)).toEqual(inferUsage(gpt4o, input, null));
    expect(pool.threads).toBe(1);
  }, 30_000);

  it('stops a worker idle for idleMs, giving its memory back, and starts another for the next count', async () => {
    pool = createTokenizerPool({ idleMs: 100 });
    const input = text(20_000);
    const expected = inferUsage(claude, input, null);
    expect(await pool.inferUsage(claude, input, null)).toEqual(expected);
    expect(pool.threads).toBe(1);
    const deadline = Date.now() + 5_000;
    while (pool.threads > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(pool.threads).toBe(0);
    expect(await pool.inferUsage(claude, input, null)).toEqual(expected);
    expect(pool.threads).toBe(1);
  }, 30_000);

  it('collects the main heap once per thread start where gc is exposed, never per count', async () => {
    const g = globalThis as { gc?: unknown };
    const before = g.gc;
    const calls: unknown[] = [];
    g.gc = (options: unknown) => calls.push(options);
    try {
      pool = createTokenizerPool({ size: 1, idleMs: 100 });
      const input = text(20_000);
      for (let i = 0; i < 3; i++) await pool.inferUsage(claude, input, null);
      expect(calls).toEqual([{ type: 'major' }]);
      const deadline = Date.now() + 5_000;
      while (pool.threads > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      await pool.inferUsage(claude, input, null);
      expect(calls).toHaveLength(2);
    } finally {
      g.gc = before;
    }
  }, 30_000);

  it('with startWorkers, starts its workers with the pool, each building every encoder', async () => {
    pool = createTokenizerPool({ size: 2, startWorkers: true });
    expect(pool.threads).toBe(2);
    await pool.ready();
    // a cold encoder costs ~0.1-0.3 s to build: ready workers answer a first count much faster
    const t = performance.now();
    expect(await pool.inferUsage(claude, 'hello world!', null)).toEqual({ input: 3, total: 3 });
    expect(await pool.inferUsage(gpt4o, 'hello world', null)).toEqual({ input: 2, total: 2 });
    expect(performance.now() - t).toBeLessThan(100);
  }, 30_000);

  it('counts a 2 MB input in a worker, same as inline, while the event loop keeps ticking', async () => {
    const input = text(2_000_000);
    const output = [{ role: 'assistant', content: text(5_000) }]; // an object: sent as its JSON
    const expected = inferUsage(gpt4o, input, JSON.stringify(output));
    expect(expected!.input).toBeGreaterThan(300_000);

    pool = createTokenizerPool({ size: 2, startWorkers: false });
    let last = performance.now();
    let maxGap = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    const got = await pool.inferUsage(gpt4o, input, output);
    const took = performance.now() - started;
    clearInterval(tick);

    expect(got).toEqual(expected);
    expect(pool.threads).toBe(1);
    console.info(`worker count: ${took.toFixed(0)} ms, max event-loop gap ${maxGap.toFixed(1)} ms`);
    expect(maxGap).toBeLessThan(300); // counting it inline blocks for seconds
  }, 60_000);

  it('spreads concurrent calls over the workers', async () => {
    pool = createTokenizerPool({ size: 2, inlineBelowChars: 0, startWorkers: false });
    const results = await Promise.all([1, 2, 3].map(() => pool!.inferUsage(gpt4o, 'hello world', null)));
    expect(results).toEqual([1, 2, 3].map(() => ({ input: 2, total: 2 })));
    expect(pool.threads).toBe(2);
  }, 30_000);

  it('resolves undefined on timeout, drops the stuck worker and keeps serving', async () => {
    const errors: string[] = [];
    pool = createTokenizerPool({ timeoutMs: 20, onError: (e) => errors.push(e), startWorkers: false });
    expect(await pool.inferUsage(gpt4o, text(500_000), 'x')).toBeUndefined();
    expect(errors).toEqual(['token count timed out after 20 ms']);
    expect(pool.threads).toBe(0);
    await pool.close();

    pool = createTokenizerPool({ timeoutMs: 30_000 });
    expect(await pool.inferUsage(gpt4o, text(20_000), null)).toEqual(inferUsage(gpt4o, text(20_000), null));
  }, 60_000);

  it('replaces a worker dropped on timeout at once when the pool starts its workers', async () => {
    const errors: string[] = [];
    pool = createTokenizerPool({ size: 1, timeoutMs: 20, onError: (e) => errors.push(e), startWorkers: true });
    expect(await pool.inferUsage(gpt4o, text(500_000), 'x')).toBeUndefined();
    expect(errors).toEqual(['token count timed out after 20 ms']);
    expect(pool.threads).toBe(1);
  }, 60_000);

  it('close() terminates the workers and settles pending calls with undefined', async () => {
    pool = createTokenizerPool({ inlineBelowChars: 0 });
    await pool.warmup();
    expect(pool.threads).toBe(2);
    const pending = pool.inferUsage(gpt4o, text(2_000_000), null);
    await pool.close();
    expect(await pending).toBeUndefined();
    expect(pool.threads).toBe(0);
    expect(await pool.inferUsage(gpt4o, 'hello world', null)).toBeUndefined();
  }, 60_000);

  it('never keeps the process alive: a script that forgets close() still exits', () => {
    const poolUrl = new URL('../../src/threads/tokenizer-pool.ts', import.meta.url).href;
    const script = `
      const { createTokenizerPool } = await import(${JSON.stringify(poolUrl)});
      const pool = createTokenizerPool({ inlineBelowChars: 0 }); // workers started with the pool
      await pool.ready();
      const usage = await pool.inferUsage({ tokenizerId: 'claude', tokenizerConfig: null }, 'hello world!', '');
      console.log(JSON.stringify({ usage, threads: pool.threads }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
      timeout: 20_000,
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ usage: { input: 3, output: 0, total: 3 }, threads: 2 });
  }, 30_000);

  it('starts its workers in a process run with the V8 flags make run gives the server (a worker refuses them)', () => {
    const poolUrl = new URL('../../src/threads/tokenizer-pool.ts', import.meta.url).href;
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const flags = SERVER_NODE_FLAGS;
    expect(flags.length).toBeGreaterThan(0);
    const script = `
      const { createTokenizerPool } = await import(${JSON.stringify(poolUrl)});
      const pool = createTokenizerPool({ inlineBelowChars: 0 });
      const usage = await pool.inferUsage({ tokenizerId: 'claude', tokenizerConfig: null }, 'hello world!', '');
      console.log(JSON.stringify({ usage, threads: pool.threads }));
      await pool.close();`;
    const out = execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
      cwd: root,
      timeout: 20_000,
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ usage: { input: 3, output: 0, total: 3 }, threads: 1 });
  }, 30_000);
});
