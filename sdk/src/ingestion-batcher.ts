// Batches ingestion events and sends them with the caller's `send` (usually
// `tally.ingestion.batch`), so instrumentation code only calls `add(event)`.
//
// Guarantees: an event leaves the batcher only when the server acknowledged it (listed in
// `successes`), or when it can never succeed (a 4xx per-event error, or larger than a request
// may be), or after `maxRetries` retries; each of the last three is reported to `onError`.
// Failed requests, 5xx/429 per-event errors and events the response does not mention are
// resent with exponential backoff and half jitter (backoff.ts). Event ids are kept as given, so a resend of an
// event the server did store after all (a lost response) changes nothing there.
//
// Plain ESM, no dependencies, no Node-only APIs (the interval timer is unref'd where the runtime
// has it, so an idle batcher never keeps a process alive; call shutdown() before exiting).
import type { IngestionEvent, IngestionResponse } from '../../generated/client/types.gen.ts';
import { halfJitterDelay } from './backoff.ts';

export type { IngestionEvent, IngestionResponse };

/** Why events were not (yet) delivered. */
export interface IngestionFailure {
  /**
   * `rejected`: the server answered a 4xx for these events (they will never succeed), dropped.
   * `gave-up`: still failing after `maxRetries` retries, dropped.
   * `too-large`: one event alone exceeds `maxBytes`, dropped.
   * `retrying`: a transient failure (failed request, 5xx/429 per-event error); resent later.
   */
  kind: 'rejected' | 'gave-up' | 'too-large' | 'retrying';
  events: IngestionEvent[];
  /** per-event HTTP status, or the status of a thrown error that carries one */
  status?: number;
  /** the server's per-event error, or the error `send` threw */
  error?: unknown;
  /** when kind is `retrying`: milliseconds until the resend */
  retryInMs?: number;
}

export interface IngestionBatcherOptions {
  /** Sends one batch; resolves with the server's 207 body, throws when the request failed. */
  send: (batch: IngestionEvent[]) => Promise<IngestionResponse>;
  /** Events per request (default 100). */
  maxEvents?: number;
  /** Approximate JSON bytes per request (default 3_500_000; the server refuses bodies over 4.5 MB). */
  maxBytes?: number;
  /** A queued event is sent at the latest this long after it was added (default 1000). */
  flushIntervalMs?: number;
  /** Resends of one event before it is given up (default 5). */
  maxRetries?: number;
  /** First backoff delay; doubles on each retry, with half jitter: a random 50-100% of it (default 500). */
  retryBaseMs?: number;
  /** Backoff cap (default 30_000). */
  retryMaxMs?: number;
  /** Failures, including transient ones (kind `retrying`). Exceptions thrown here are ignored. */
  onError?: (failure: IngestionFailure) => void;
}

interface Entry {
  event: IngestionEvent;
  bytes: number;
  retries: number;
  settle: () => void;
  done: Promise<void>;
}

const encoder = new TextEncoder();

export class IngestionBatcher {
  readonly #send: IngestionBatcherOptions['send'];
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #flushIntervalMs: number;
  readonly #maxRetries: number;
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;
  readonly #onError: IngestionBatcherOptions['onError'];

  /** ready to send */
  #queue: Entry[] = [];
  #queueBytes = 0;
  /** every event not yet acknowledged or dropped: queued, in flight or waiting for a retry */
  #outstanding = new Set<Entry>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #retryTimers = new Set<ReturnType<typeof setTimeout>>();
  #pumping = false;
  #drain = false;
  #closed = false;
  #acknowledged = 0;
  #dropped = 0;

  constructor(options: IngestionBatcherOptions) {
    if (typeof options?.send !== 'function') throw new TypeError('IngestionBatcher: `send` must be a function');
    this.#send = options.send;
    this.#maxEvents = Math.max(1, Math.floor(options.maxEvents ?? 100));
    this.#maxBytes = Math.max(1, options.maxBytes ?? 3_500_000);
    this.#flushIntervalMs = Math.max(0, options.flushIntervalMs ?? 1000);
    this.#maxRetries = Math.max(0, Math.floor(options.maxRetries ?? 5));
    this.#retryBaseMs = Math.max(0, options.retryBaseMs ?? 500);
    this.#retryMaxMs = Math.max(this.#retryBaseMs, options.retryMaxMs ?? 30_000);
    this.#onError = options.onError;
  }

  /** Events not yet acknowledged or given up. */
  get pending(): number {
    return this.#outstanding.size;
  }

  /** Counts so far: events the server acknowledged, events dropped (reported to onError). */
  get stats(): { acknowledged: number; dropped: number; pending: number } {
    return { acknowledged: this.#acknowledged, dropped: this.#dropped, pending: this.#outstanding.size };
  }

  /**
   * Queues one event (it must carry its `id`). Sent when `maxEvents` or `maxBytes` is reached,
   * after `flushIntervalMs`, or on flush()/shutdown(); after shutdown() it is sent at once.
   */
  add(event: IngestionEvent): void {
    const bytes = encoder.encode(JSON.stringify(event)).length + 1; // + the separating comma
    if (bytes + ENVELOPE_BYTES > this.#maxBytes) {
      this.#dropped++;
      this.#report({
        kind: 'too-large',
        events: [event],
        error: new Error(`event ${event.id} is ${bytes} bytes, over maxBytes (${this.#maxBytes})`),
      });
      return;
    }
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const entry: Entry = { event, bytes, retries: 0, settle, done };
    this.#outstanding.add(entry);
    this.#enqueue([entry]);
    if (this.#closed) this.#drainNow();
    else if (this.#full()) void this.#pump();
    else this.#armTimer();
  }

  /**
   * Sends everything queued now and resolves once every event added before the call is
   * acknowledged or given up (waiting out retry backoffs). Never rejects.
   */
  async flush(): Promise<void> {
    const waiting = [...this.#outstanding].map((e) => e.done);
    this.#drainNow();
    await Promise.all(waiting);
  }

  /**
   * Flushes and stops the interval timer; resolves when every event was acknowledged or given
   * up after retries (reported to onError). Events added afterwards are sent at once.
   */
  async shutdown(): Promise<void> {
    this.#closed = true;
    this.#clearTimer();
    // events added while flushing (by callbacks, other tasks) are waited for too
    while (this.#outstanding.size) await this.flush();
  }

  #enqueue(entries: Entry[], front = false) {
    if (front) this.#queue.unshift(...entries);
    else this.#queue.push(...entries);
    for (const e of entries) this.#queueBytes += e.bytes;
  }

  #armTimer() {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#drainNow();
    }, this.#flushIntervalMs);
    unref(this.#timer);
  }

  #clearTimer() {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #drainNow() {
    this.#drain = true;
    void this.#pump();
  }

  /** One request at a time, so an event is never in two requests at once. */
  async #pump() {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queue.length && (this.#drain || this.#full())) {
        const chunk = this.#takeChunk();
        if (!this.#queue.length) {
          this.#drain = false;
          this.#clearTimer();
        }
        await this.#sendChunk(chunk);
      }
      this.#drain = false;
    } finally {
      this.#pumping = false;
    }
    if (this.#queue.length) {
      if (this.#closed) this.#drainNow();
      else this.#armTimer();
    }
  }

  /** A full request's worth is queued (by count, or by bytes: requests are cut under maxBytes). */
  #full(): boolean {
    return this.#queue.length >= this.#maxEvents || this.#queueBytes + ENVELOPE_BYTES >= this.#maxBytes;
  }

  #takeChunk(): Entry[] {
    let n = 0;
    let bytes = ENVELOPE_BYTES;
    while (n < this.#queue.length && n < this.#maxEvents && (n === 0 || bytes + this.#queue[n]!.bytes <= this.#maxBytes)) {
      bytes += this.#queue[n]!.bytes;
      n++;
    }
    const chunk = this.#queue.splice(0, n);
    for (const e of chunk) this.#queueBytes -= e.bytes;
    return chunk;
  }

  async #sendChunk(chunk: Entry[]) {
    let res: IngestionResponse;
    try {
      res = await this.#send(chunk.map((e) => e.event));
      if (!res || !Array.isArray(res.successes) || !Array.isArray(res.errors))
        throw new TypeError('send() did not resolve with an IngestionResponse');
    } catch (error) {
      const status = statusOf(error);
      // a request the server refused as a whole with a 4xx (bad credentials, malformed body)
      // fails the same way next time; 408 and 429 are transient
      if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429)
        this.#drop('rejected', chunk, status, error);
      else this.#retry(chunk, status, error);
      return;
    }
    const acked = new Set(res.successes.map((s) => s.id));
    const errors = new Map(res.errors.map((e) => [e.id, e]));
    const transient = new Map<string, Entry[]>(); // by "status" key, to report together
    for (const entry of chunk) {
      const id = entry.event.id;
      if (acked.has(id)) {
        this.#acknowledged++;
        this.#settle(entry);
        continue;
      }
      const err = errors.get(id);
      if (err && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429) {
        this.#drop('rejected', [entry], err.status, err);
        continue;
      }
      // 5xx, 429, or not mentioned at all: not acknowledged, so it goes again
      const key = String(err?.status ?? 'missing');
      transient.set(key, [...(transient.get(key) ?? []), entry]);
    }
    for (const [key, entries] of transient) {
      const err = errors.get(entries[0]!.event.id);
      this.#retry(entries, key === 'missing' ? undefined : Number(key), err ?? new Error('event missing from the ingestion response'));
    }
  }

  #retry(entries: Entry[], status: number | undefined, error: unknown) {
    const giveUp = entries.filter((e) => e.retries >= this.#maxRetries);
    if (giveUp.length) this.#drop('gave-up', giveUp, status, error);
    const again = entries.filter((e) => e.retries < this.#maxRetries);
    if (!again.length) return;
    for (const e of again) e.retries++;
    const attempt = Math.max(...again.map((e) => e.retries));
    const delay = halfJitterDelay(attempt - 1, this.#retryBaseMs, this.#retryMaxMs);
    this.#report({ kind: 'retrying', events: again.map((e) => e.event), status, error, retryInMs: delay });
    const timer = setTimeout(() => {
      this.#retryTimers.delete(timer);
      this.#enqueue(again, true);
      this.#drainNow();
    }, delay);
    // not unref'd: an unacknowledged event keeps the process alive until sent or given up
    this.#retryTimers.add(timer);
  }

  #drop(kind: 'rejected' | 'gave-up', entries: Entry[], status: number | undefined, error: unknown) {
    this.#dropped += entries.length;
    this.#report({ kind, events: entries.map((e) => e.event), status, error });
    for (const e of entries) this.#settle(e);
  }

  #settle(entry: Entry) {
    this.#outstanding.delete(entry);
    entry.settle();
  }

  #report(failure: IngestionFailure) {
    try {
      this.#onError?.(failure);
    } catch {
      // a logging callback must not break delivery
    }
  }
}

/** `{"batch":[` … `]}` */
const ENVELOPE_BYTES = 12;

function statusOf(error: unknown): number | undefined {
  const s = (error as { status?: unknown } | null)?.status;
  return typeof s === 'number' && Number.isInteger(s) ? s : undefined;
}

function unref(timer: unknown) {
  (timer as { unref?: () => void } | null)?.unref?.();
}
