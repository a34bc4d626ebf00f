// Token counting without blocking the event loop. The encoders count ~5-10 M tokens/s (encoders.ts),
// so a 2 MB input would still stall every request for a few hundred ms: large values go to worker
// threads. Small ones are counted inline when this thread has the encoder, where the thread hop
// would cost more than the count itself.
//
// Memory: a worker holds ~20 MB of its own (its V8 isolate and modules, loaded type-stripped from
// server/preload's cache: Node's own stripper would add 17-19 MB) and ~30 MB with all three
// encoders (bpe.ts; 150-250 MB before 2026-11-28). So a worker starts when a count first needs
// one, builds only the vocabularies asked for, and is stopped after `idleMs` without a request,
// which gives all of it back (a thread's heap goes with it); the next count starts one again.
// Langfuse semantics: on failure or timeout (30 s) the count is skipped entirely (undefined).
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { encoder } from '../domain/tokenizers/encoders.ts';
import { inferUsage, isTokenizerReady, type InferredUsage, type TokenizerRef } from '../domain/tokenizers/index.ts';
import type { WorkerRequest, WorkerResponse } from './tokenizer-worker.ts';

export interface TokenizerPoolOptions {
  /** worker threads at most (Langfuse LANGFUSE_TOKEN_COUNT_WORKER_POOL_SIZE, default 2) */
  size?: number;
  /** input+output below this many characters (string length, or JSON length) are counted inline */
  inlineBelowChars?: number;
  /** per call; default 30 000 ms like Langfuse */
  timeoutMs?: number;
  /** told why a count was skipped (worker crash, timeout) so the caller can log it */
  onError?: (reason: string) => void;
  /**
   * Start every worker now and build all its encoders (0.15 s of CPU for the three, in its own thread), so
   * no count waits for one. Default false: a worker starts on first use, an encoder when first needed.
   */
  startWorkers?: boolean;
  /** stop a worker after this long without a request, giving its memory back (default 5 min; 0 keeps them) */
  idleMs?: number;
}

export interface TokenizerPool {
  inferUsage(tokenizer: TokenizerRef, input: unknown, output: unknown): Promise<InferredUsage | undefined>;
  /**
   * Builds every encoder on this thread too (blocks ~0.15 s, adds ~25 MB: only where small values
   * should be counted inline) and resolves when every worker has built its own.
   */
  warmup(): Promise<void>;
  /** Resolves when every worker has started and built its encoders. */
  ready(): Promise<void>;
  /** live worker threads */
  readonly threads: number;
  /** Terminates the workers; pending and later calls resolve undefined. */
  close(): Promise<void>;
}

const WORKER_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 1024 };

interface Slot {
  worker: Worker;
  /** when it last had a request in flight (performance.now()) */
  lastActive: number;
  pending: Map<number, (usage: InferredUsage | undefined) => void>;
  /** requests of this tick, posted together (an ingestion batch asks for up to 2 counts per event at once) */
  queue: WorkerRequest[];
}

const WORKER_URL = new URL('./tokenizer-worker.ts', import.meta.url);
let workerExecArgv: string[] | null = null;

/**
 * A worker with the parent's Node flags (a test runner's loaders, --conditions), except those a
 * worker refuses: --input-type (a file-based worker will not start with it) and V8's own flags,
 * such as server/node-flags' --liftoff-only, which apply to the whole
 * process anyway. Node names the ones it refuses; they are left out from then on.
 */
function startWorker(): Worker {
  workerExecArgv ??= process.execArgv.filter((a) => !a.startsWith('--input-type'));
  try {
    return new Worker(WORKER_URL, { execArgv: workerExecArgv, resourceLimits: WORKER_HEAP });
  } catch (e) {
    const refused =
      (e as { code?: string }).code === 'ERR_WORKER_INVALID_EXEC_ARGV' ? /flags: (.*)$/.exec((e as Error).message)?.[1] : undefined;
    if (!refused) throw e;
    const bad = new Set(refused.split(', '));
    workerExecArgv = workerExecArgv.filter((a) => !bad.has(a));
    return new Worker(WORKER_URL, { execArgv: workerExecArgv, resourceLimits: WORKER_HEAP });
  }
}

export function createTokenizerPool(options: TokenizerPoolOptions = {}): TokenizerPool {
  const size = Math.max(1, options.size ?? 2);
  const inlineBelowChars = options.inlineBelowChars ?? 8_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const onError = options.onError ?? (() => {});
  const idleMs = options.idleMs ?? 300_000;
  const slots: Slot[] = [];
  let nextId = 0;
  let closed = false;

  function spawn(): Slot {
    // A small young generation: the requests' strings die young, and V8's default (sized for the
    // whole process) let a busy worker's heap grow by 100-200 MB before collecting them. The old
    // generation keeps room for one very large value (a body holds at most a few MB of text).
    // V8 takes --max-semi-space-size (server/node-flags, for the main thread) over a worker's
    // resource limits, so the flag goes back to V8's "not set" first; the main thread's heap was
    // sized when it was made and keeps its 16 MB. Not put back afterwards: the worker's isolate is
    // made later, on its own thread (a reset right after `new Worker` raced it and lost, which is
    // why an earlier attempt saw no change). make bench's tokenised phase, 2026-11-29: the worker's
    // heap 22-34 MB instead of 48-49, its young generation 4 MB instead of 32, events/s unchanged
    // within the runs' noise (5,058 and 5,334 against 5,175 and 5,224).
    setFlagsFromString('--max-semi-space-size=0');
    // A thread about to add ~50 MB: first a full collection of this thread's heap, when the process
    // allows one (server/node-flags' --expose-gc), so the two do not peak together. Once per thread
    // start (after 5 idle minutes at most once per burst of counting); 50-64 ms on a synthetic 150 MB
    // heap, the server's is smaller.
    // make bench's tokenised phase, 2026-11-29, six alternating pairs: what it added to the peak
    // 44-57 MB against 42-74, peaks 270-289 MB against 278-310, events/s unchanged.
    (globalThis as { gc?: (options: { type: 'major' }) => void }).gc?.({ type: 'major' });
    const worker = startWorker();
    const slot: Slot = { worker, lastActive: performance.now(), pending: new Map(), queue: [] };
    worker.on('message', (message: WorkerResponse | WorkerResponse[]) => {
      for (const res of Array.isArray(message) ? message : [message]) {
        const done = slot.pending.get(res.id);
        if (res.error) onError(`tokenizer worker failed: ${res.error}`);
        done?.(res.error ? undefined : res.usage);
      }
    });
    worker.on('error', (err) => {
      onError(`tokenizer worker crashed: ${err.message}`);
      retire(slot);
    });
    worker.on('exit', () => retire(slot));
    // After the listeners (a 'message' listener re-refs the worker's port): an idle pool must not
    // keep the process alive; a pending call's timer does.
    worker.unref();
    slots.push(slot);
    return slot;
  }

  // Also used on timeout: the worker is stuck in a synchronous count, so killing it is the only way
  // to get the core back. Requests queued behind it are dropped with it.
  function retire(slot: Slot): void {
    const i = slots.indexOf(slot);
    if (i !== -1) slots.splice(i, 1);
    for (const done of [...slot.pending.values()]) done(undefined);
    void slot.worker.terminate();
  }

  function pick(): Slot {
    const idle = slots.find((s) => s.pending.size === 0);
    if (idle) return idle;
    if (slots.length < size) return spawn();
    return slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
  }

  function send(slot: Slot, request: WorkerRequest): Promise<InferredUsage | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        onError(`token count timed out after ${timeoutMs} ms`);
        retire(slot);
        // a started pool keeps its threads started: the replacement builds its encoders now, not
        // on the next event (not after a crash: a worker that cannot start would loop)
        if (eager && !closed) warm(spawn());
      }, timeoutMs);
      slot.lastActive = performance.now();
      slot.pending.set(request.id, (usage) => {
        clearTimeout(timer);
        slot.pending.delete(request.id);
        slot.lastActive = performance.now();
        resolve(usage);
      });
      // one message per slot and tick: a message costs a structured clone and a wake-up on both
      // threads, which for the ~1-3 KB values of typical events is more than the count itself
      if (slot.queue.push(request) === 1) queueMicrotask(() => flush(slot));
    });
  }

  function flush(slot: Slot): void {
    const requests = slot.queue.splice(0);
    if (requests.length === 0 || !slots.includes(slot)) return;
    slot.worker.postMessage(requests.length === 1 ? requests[0] : requests);
  }

  // a started worker builds every encoder first; its answer is not waited for (nor timed: the
  // counts queued behind it are)
  function warm(slot: Slot): void {
    slot.worker.postMessage({ id: ++nextId, kind: 'warmup' } satisfies WorkerRequest);
  }

  const eager = options.startWorkers ?? false;
  if (eager) while (slots.length < size) warm(spawn());

  // one check per pool, a quarter of the idle time apart (at most every 30 s): no timer per request
  const sweep =
    idleMs > 0
      ? setInterval(
          () => {
            const now = performance.now();
            for (const s of [...slots]) if (s.pending.size === 0 && now - s.lastActive >= idleMs) retire(s);
          },
          Math.min(30_000, Math.max(10, idleMs / 4)),
        )
      : null;
  sweep?.unref();

  return {
    inferUsage(tokenizer, input, output) {
      if (closed) return Promise.resolve(undefined);
      const a = prepare(input);
      const b = prepare(output);
      const ref = { tokenizerId: tokenizer.tokenizerId, tokenizerConfig: cloneJson(tokenizer.tokenizerConfig) };
      // Inline only with the encoder already built here: building one blocks for up to ~0.8 s.
      if (a.size + b.size < inlineBelowChars && isTokenizerReady(ref)) {
        try {
          return Promise.resolve(inferUsage(ref, a.payload, b.payload));
        } catch (err) {
          onError(`token count failed: ${err instanceof Error ? err.message : String(err)}`);
          return Promise.resolve(undefined);
        }
      }
      return send(pick(), { id: ++nextId, kind: 'infer', tokenizer: ref, input: a.payload, output: b.payload });
    },

    async warmup() {
      if (closed) return;
      for (const e of ['o200k_base', 'cl100k_base', 'claude'] as const) encoder(e);
      while (slots.length < size) spawn();
      await Promise.all(slots.map((s) => send(s, { id: ++nextId, kind: 'warmup' })));
    },

    async ready() {
      if (closed) return;
      while (slots.length < size) spawn();
      await Promise.all(slots.map((s) => send(s, { id: ++nextId, kind: 'warmup' })));
    },

    get threads() {
      return slots.length;
    },

    async close() {
      closed = true;
      if (sweep) clearInterval(sweep);
      const all = slots.splice(0);
      for (const slot of all) for (const done of [...slot.pending.values()]) done(undefined);
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
}

// Objects are sent as their JSON text: it gives the size for the inline decision, posts as a flat
// string instead of a deep structured clone, and counts the same (Langfuse counts the stored JSON
// text). Empty arrays stay arrays: they mean "nothing to count", while the text "[]" counts 3.
function prepare(value: unknown): { payload: unknown; size: number } {
  if (typeof value === 'string') return { payload: value, size: value.length };
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return { payload: value, size: 0 };
  try {
    const json = JSON.stringify(value);
    return { payload: json, size: json?.length ?? 0 };
  } catch {
    return { payload: undefined, size: 0 }; // BigInt or a cycle: not countable, like Langfuse's stringify failing
  }
}

function cloneJson(value: unknown): unknown {
  try {
    return value === undefined ? null : JSON.parse(JSON.stringify(value));
  } catch {
    return null;
  }
}
