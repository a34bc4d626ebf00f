// What a tokenizer thread keeps once its encoders are built: the tables, not the rank files they
// were read from (o200k_base's text alone is 2.3 MB; the three together 4 MB, for the life of the
// thread when the module that required them kept them among its children).
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

const WORKER = new URL('../../src/threads/tokenizer-worker.ts', import.meta.url);

/** the worker's heap after a full collection (a heap snapshot collects first), as the snapshot's text */
async function heapText(worker: Worker): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await worker.getHeapSnapshot()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('tokenizer thread memory', () => {
  it('keeps no rank file text once every encoder is built', async () => {
    const worker = new Worker(WORKER);
    try {
      worker.postMessage({ id: 1, kind: 'warmup' });
      await new Promise((r) => worker.once('message', r));
      const text = await heapText(worker);
      // every rank file starts with the first tokens of the byte alphabet, base64: "! 0 IQ== Ig== Iw=="
      expect(text.length).toBeGreaterThan(1_000_000);
      expect(text.includes('IQ== Ig== Iw== JA==')).toBe(false);
    } finally {
      await worker.terminate();
    }
  }, 60_000);
});
