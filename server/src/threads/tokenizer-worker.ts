// Worker-thread entry of the tokenizer pool: runs the pure domain counting off the main thread.
// Plain erasable TypeScript so Node runs it directly (type stripping), inside or outside vitest.
import { parentPort } from 'node:worker_threads';
import { encoder } from '../domain/tokenizers/encoders.ts';
import { inferUsage, type TokenizerRef } from '../domain/tokenizers/index.ts';

export type WorkerRequest =
  | { id: number; kind: 'infer'; tokenizer: TokenizerRef; input: unknown; output: unknown }
  | { id: number; kind: 'warmup' };

export type WorkerResponse = { id: number; usage?: Record<string, number>; error?: string };

const port = parentPort;
if (!port) throw new Error('tokenizer-worker.ts must run as a worker thread');

// An encoder is built when a count first needs it (30-90 ms, up to ~25 MB each): a server whose
// events carry their usage never builds one, and one that prices only OpenAI models never builds
// Claude's. A warmup builds all three.
function handle(req: WorkerRequest): WorkerResponse {
  try {
    if (req.kind === 'warmup') {
      for (const e of ['o200k_base', 'cl100k_base', 'claude'] as const) encoder(e);
      return { id: req.id };
    }
    return { id: req.id, usage: inferUsage(req.tokenizer, req.input, req.output) };
  } catch (err) {
    return { id: req.id, error: err instanceof Error ? err.message : String(err) };
  }
}

// The pool posts the requests of one tick together (an array) and gets the answers together.
port.on('message', (message: WorkerRequest | WorkerRequest[]) => {
  port.postMessage(Array.isArray(message) ? message.map(handle) : handle(message));
});
