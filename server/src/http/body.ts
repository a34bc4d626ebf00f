// Request bodies, read into memory under one budget for the whole process (in place of
// express.json and express.raw, whose errors these keep: the same types, statuses and messages).
//
// Each request was bounded on its own (4.5 MB of JSON, 32 MB of OTLP after decompression), but
// not how many of them were held at once: a dozen 50 MB uploads or compression bombs to the OTLP
// endpoint buffered 32 MB each (and 64 MB while the pieces were joined), and the server's RSS
// tripled while it refused them. Here every byte buffered for a body (after decompression), and
// the working memory of a brotli or zstd decoder, is taken from a shared budget first, and given
// back when the response is over. A request that finds the budget spent stops reading (TCP pushes
// back on its client) and goes on, in arrival order, as others give theirs back. When waiting
// cannot end (every request holding bytes waits for more: the youngest gives way) or lasts over
// BODY_WAIT_MS, the request drops what it holds and is read on without keeping anything: past
// its limit it is answered 413 as before; within it, 503 with Retry-After. A body of unknown
// length is copied into one buffer as it comes, never joined from pieces; one body of the largest
// size always fits.
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { constants as zc, createBrotliDecompress, createGunzip, createInflate, createZstdDecompress } from 'node:zlib';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { bodyBytesPassed } from './body-gc.ts';
import { decodeUtf8, pruneDeepJson } from './json-bytes.ts';
import { mayHoldUnstorableText } from '../domain/unstorable-text.ts';

const MB = 1024 * 1024;

/**
 * Bytes of request bodies (and decoders) held at once: the largest body (32 MB of OTLP) and room
 * beside it. make bench (bench/hostile-memory.ts) on PostgreSQL: hostile peak +47 MB over the
 * normal-load peak with 48 MB, +46 with 64; a smaller budget mostly means more waiting.
 */
export const BODY_BUDGET_BYTES = 48 * MB;
/** how long a request waits for budget before it is answered 503 */
export const BODY_WAIT_MS = 10_000;
export const BUSY_RETRY_AFTER_SECONDS = 2;
/** bodies of unknown length take budget in steps of this much */
const STEP = 256 * 1024;
/** up to this much, a body of unknown length is kept as the pieces it came in */
const SMALL = 256 * 1024;
/** what a decoder holds while it runs: zlib's window and buffers; brotli's ring buffer (up to 16 MB); zstd's window, capped below */
const DECODER_BYTES: Record<string, number> = { gzip: 128 * 1024, deflate: 128 * 1024, br: 17 * MB, zstd: 9 * MB };
const ZSTD_WINDOW_LOG_MAX = 23; // 8 MB: what zstd uses up to level 19; the library's default allows 128 MB per stream
/** JSON bodies larger than this are checked for nesting on their bytes before JSON.parse (below it, the parse costs little) */
export const PRUNE_MIN_BYTES = 256 * 1024;

/** an error in body-parser's shape, which the error handlers read */
export interface BodyError extends Error {
  status: number;
  statusCode: number;
  type: string;
  expose: boolean;
  retryAfterSeconds?: number;
}

export function bodyError(status: number, type: string, message: string): BodyError {
  return Object.assign(new Error(message), { status, statusCode: status, type, expose: true });
}

const busyError = () =>
  Object.assign(
    bodyError(
      503,
      'body.busy',
      `The server is reading as many request bodies as its memory allows; retry after ${BUSY_RETRY_AFTER_SECONDS} s`,
    ),
    { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS },
  );

interface Waiter {
  claim: Claim;
  bytes: number;
  granted: () => void;
  timer: NodeJS.Timeout;
}

/** one request's share of the budget */
export class Claim {
  held = 0;
  waiter: Waiter | null = null;
  closed = false;
  /** called when the budget takes the claim away (waited too long, or gave way to an older request) */
  onEvict: (e: BodyError) => void = () => {};
  readonly seq: number;
  constructor(seq: number) {
    this.seq = seq;
  }
}

export class BodyBudget {
  used = 0;
  private seq = 0;
  private readonly queue: Waiter[] = [];
  private readonly claims = new Set<Claim>();
  readonly capacity: number;
  readonly maxWaitMs: number;
  constructor(capacity: number, maxWaitMs: number) {
    this.capacity = capacity;
    this.maxWaitMs = maxWaitMs;
  }

  open(): Claim {
    const c = new Claim(this.seq++);
    this.claims.add(c);
    return c;
  }

  /** `bytes` for `claim`: true when taken now; otherwise false, and `granted` runs once they are (not if the claim is evicted or closed first) */
  take(claim: Claim, bytes: number, granted: () => void): boolean {
    if (claim.closed) return false;
    if (!this.queue.length && this.fits(claim, bytes)) {
      this.used += bytes;
      claim.held += bytes;
      return true;
    }
    const w: Waiter = { claim, bytes, granted, timer: setTimeout(() => this.evict(w), this.maxWaitMs) };
    w.timer.unref();
    claim.waiter = w;
    this.queue.push(w);
    this.pump();
    return false;
  }

  release(claim: Claim, bytes: number): void {
    const n = Math.min(bytes, claim.held);
    claim.held -= n;
    this.used -= n;
    this.pump();
  }

  /** gives back everything the claim holds; it takes nothing more */
  close(claim: Claim): void {
    if (claim.closed) return;
    claim.closed = true;
    this.claims.delete(claim);
    if (claim.waiter) this.unqueue(claim.waiter);
    this.used -= claim.held;
    claim.held = 0;
    this.pump();
  }

  /** within the budget, or the only request holding any: one request alone always goes on */
  private fits(claim: Claim, bytes: number): boolean {
    return this.used + bytes <= this.capacity || this.used === claim.held;
  }

  private unqueue(w: Waiter): void {
    clearTimeout(w.timer);
    w.claim.waiter = null;
    const i = this.queue.indexOf(w);
    if (i >= 0) this.queue.splice(i, 1);
  }

  private pump(): void {
    while (this.queue.length) {
      const head = this.queue[0]!;
      if (this.fits(head.claim, head.bytes)) {
        this.unqueue(head);
        this.used += head.bytes;
        head.claim.held += head.bytes;
        // never from inside take(): its caller has yet to learn that it must wait
        process.nextTick(() => {
          if (!head.claim.closed) head.granted();
        });
        continue;
      }
      // a holder that is not waiting will give its bytes back; if none is, nothing will
      for (const c of this.claims) if (c.held > 0 && !c.waiter) return;
      let victim: Waiter | undefined;
      for (const w of this.queue) if (w.claim.held > 0 && (!victim || w.claim.seq > victim.claim.seq)) victim = w;
      if (!victim) return;
      this.evict(victim);
    }
  }

  /** the claim gives back what it took for its body and drops the rest of it (its decoder, if any, runs on) */
  private evict(w: Waiter): void {
    this.unqueue(w);
    w.claim.onEvict(busyError());
    this.pump();
  }
}

/** the budget every request body of this process is read under */
export const bodyBudget = new BodyBudget(BODY_BUDGET_BYTES, BODY_WAIT_MS);

/** as type-is: a request has a body when it says how long it is or how it is sent */
export const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length'] ?? NaN));

/** reads what is left of the request and calls back when it has ended or the connection is gone */
function drain(req: IncomingMessage, then: () => void): void {
  if (req.complete || req.destroyed) {
    then();
    return;
  }
  let done = false;
  const once = () => {
    if (!done) {
      done = true;
      then();
    }
  };
  req.once('end', once);
  req.once('close', once);
  req.once('error', once);
  req.on('data', (chunk: Buffer) => bodyBytesPassed(chunk.length));
  req.resume();
}

function decoderFor(encoding: string): Transform {
  switch (encoding) {
    case 'gzip':
      return createGunzip({ chunkSize: 64 * 1024 });
    case 'deflate':
      return createInflate({ chunkSize: 64 * 1024 });
    case 'br':
      return createBrotliDecompress({ chunkSize: 64 * 1024 });
    default:
      return createZstdDecompress({ chunkSize: 64 * 1024, params: { [zc.ZSTD_d_windowLogMax]: ZSTD_WINDOW_LOG_MAX } });
  }
}

/**
 * The request's body as bytes, inflated as its Content-Encoding says, at most `limit` of them,
 * held under `claim` (which the caller closes when the response is over). Errors are body-parser's:
 * 413 entity.too.large (after the rest is read off, so the client sees the answer), 415
 * encoding.unsupported, 400 for undecodable data or a request cut short; and 503 body.busy when
 * the budget took the claim away. Such a request is still read to its end (or its limit), its
 * bytes counted and dropped, so a body over the limit is answered 413 as it would have been.
 */
export function readBody(req: IncomingMessage, budget: BodyBudget, claim: Claim, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const encoding = String(req.headers['content-encoding'] || 'identity').toLowerCase();
    if (encoding !== 'identity' && !(encoding in DECODER_BYTES)) {
      return reject(bodyError(415, 'encoding.unsupported', `unsupported content encoding "${encoding}"`));
    }
    const length = encoding === 'identity' && req.headers['content-length'] !== undefined ? Number(req.headers['content-length']) : NaN;
    if (length > limit) return void drain(req, () => reject(bodyError(413, 'entity.too.large', 'request entity too large')));

    let settled = false;
    let started = false;
    let decoder: Transform | null = null;
    let decoderHeld = 0;
    let source: NodeJS.ReadableStream = req;
    let whole: Buffer | null = null; // a declared length, filled in place
    let chunks: Buffer[] = []; // an unknown length, while it is small
    let into: Buffer | null = null; // an unknown length past SMALL: room for `limit`, resident only as written
    let received = 0;
    let taken = 0; // taken for `whole`, `chunks` or `into`
    const pending: Buffer[] = []; // arrived while waiting for budget
    let waiting = false;
    let ended = false;
    let dropping: BodyError | null = null; // evicted: bytes are counted, not kept

    const stopReading = () => {
      source.removeListener('data', onData);
      source.removeListener('end', onEnd);
      req.removeListener('close', onClose);
      if (decoder) {
        req.unpipe(decoder);
        decoder.removeListener('error', onDecoderError);
        decoder.on('error', () => {});
        decoder.destroy();
        decoder = null;
      }
    };
    const fail = (e: BodyError, readOff = true) => {
      if (settled) return;
      settled = true;
      stopReading();
      chunks = [];
      into = null;
      whole = null;
      pending.length = 0;
      budget.close(claim);
      if (readOff) drain(req, () => reject(e));
      else reject(e);
    };
    const succeed = (body: Buffer) => {
      settled = true;
      stopReading();
      req.resume(); // anything after the compressed stream
      resolve(body);
    };

    const store = (chunk: Buffer) => {
      received += chunk.length;
      bodyBytesPassed(chunk.length);
      if (received > limit) return fail(bodyError(413, 'entity.too.large', 'request entity too large'));
      if (dropping) return;
      if (whole) {
        if (received > whole.length) return fail(bodyError(400, 'request.size.invalid', 'request size did not match content length'));
        chunk.copy(whole, received - chunk.length);
      } else if (into) chunk.copy(into, received - chunk.length);
      else if (received <= SMALL) chunks.push(chunk);
      else {
        // Buffer.allocUnsafe leaves the pages untouched: RSS grows with what is copied in, and
        // nothing is copied twice (a list of pieces joined at the end peaked at twice the body)
        into = Buffer.allocUnsafe(limit);
        let at = 0;
        for (const c of chunks) at += c.copy(into, at);
        chunk.copy(into, at);
        chunks = [];
      }
    };
    const onData = (chunk: Buffer) => {
      if (settled) return;
      if (waiting) return void pending.push(chunk);
      if (dropping || whole || received + chunk.length <= taken) return store(chunk);
      const step = Math.max(STEP, chunk.length);
      const granted = () => {
        taken += step;
        waiting = false;
        store(chunk);
        go();
      };
      if (budget.take(claim, step, granted)) {
        taken += step;
        return store(chunk);
      }
      if (settled) return;
      if (dropping) return store(chunk); // evicted within take(): the chunk is counted, and reading goes on
      waiting = true;
      source.pause();
    };
    /** after a wait: the chunks that arrived meanwhile, then on */
    const go = () => {
      while (!settled && !waiting && pending.length) onData(pending.shift()!);
      if (settled || waiting) return;
      if (ended) finish();
      else source.resume();
    };
    const onEnd = () => {
      ended = true;
      if (!settled && !waiting) finish();
    };
    const finish = () => {
      if (dropping) return fail(dropping, false);
      if (whole) {
        if (received !== whole.length) return fail(bodyError(400, 'request.size.invalid', 'request size did not match content length'));
        return succeed(whole);
      }
      budget.release(claim, decoderHeld + taken - received);
      decoderHeld = 0;
      taken = received;
      if (into) return succeed(into.subarray(0, received));
      succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    const onClose = () => {
      if (!req.complete) fail(bodyError(400, 'request.aborted', 'request aborted'), false);
    };
    const onDecoderError = (e: Error) =>
      fail(Object.assign(bodyError(400, 'encoding.invalid', e.message), { code: (e as NodeJS.ErrnoException).code }));

    const start = () => {
      if (settled || started) return;
      started = true;
      if (decoder) {
        decoder.on('error', onDecoderError);
        req.pipe(decoder);
      }
      source.on('data', onData);
      source.on('end', onEnd);
      req.on('close', onClose);
      req.on('error', () => fail(bodyError(400, 'request.aborted', 'request aborted'), false));
    };

    claim.onEvict = (e) => {
      if (settled || dropping) return;
      dropping = e;
      for (const c of pending) store(c);
      pending.length = 0;
      chunks = [];
      into = null;
      whole = null;
      waiting = false;
      budget.release(claim, claim.held - decoderHeld);
      taken = 0;
      if (settled) return;
      if (!started && encoding !== 'identity') return fail(e); // no decoder to count with: read off and answer
      start();
      if (ended) finish();
      else source.resume();
    };

    if (!Number.isNaN(length)) {
      // the declared length is taken at once, so a request of known length waits holding nothing
      const begin = () => {
        whole = Buffer.allocUnsafe(length);
        taken = length;
        start();
      };
      if (budget.take(claim, length, begin)) begin();
      return;
    }
    if (encoding === 'identity') return start();
    const begin = () => {
      decoderHeld = DECODER_BYTES[encoding]!;
      decoder = decoderFor(encoding);
      source = decoder;
      start();
    };
    if (budget.take(claim, DECODER_BYTES[encoding]!, begin)) begin();
  });
}

/** the claim of a request, closed when its response is over */
function claimFor(res: Response, budget: BodyBudget): Claim {
  const claim = budget.open();
  res.once('close', () => budget.close(claim));
  return claim;
}

/** the charset parameter of the Content-Type, lower-cased */
function charsetOf(req: IncomingMessage): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(String(req.headers['content-type'] ?? ''))?.[1]?.toLowerCase();
}

const OTHER_UTF = new Set(['utf-16', 'utf-16le', 'utf-16be']);

export interface JsonBodyOptions {
  limit: number;
  /** media types read as JSON (as express.json's `type`) */
  type: string[];
  /** levels of nesting kept in a large body: containers deeper than this are emptied unparsed (json-bytes.ts) */
  keepDepth: number;
  /** the body may hold text that cannot be stored: NUL or surrogate escapes, or bytes that are not UTF-8 */
  mayHoldUnstorable: (req: Request) => void;
  budget?: BodyBudget;
}

/** JSON bodies, as express.json({ limit, type, strict: true }) with a verify hook, under the budget */
export function jsonBody(opts: JsonBodyOptions): RequestHandler {
  const budget = opts.budget ?? bodyBudget;
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.readableEnded || !hasBody(req) || !req.is(opts.type)) return next();
    const charset = charsetOf(req) ?? 'utf-8';
    if (!charset.startsWith('utf-') || (charset !== 'utf-8' && !OTHER_UTF.has(charset))) {
      return next(bodyError(415, 'charset.unsupported', `unsupported charset "${charset.toUpperCase()}"`));
    }
    readBody(req, budget, claimFor(res, budget), opts.limit).then((bytes) => {
      let raw = bytes;
      if (charset !== 'utf-8') raw = Buffer.from(new TextDecoder(charset).decode(raw), 'utf8');
      else if (raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) raw = raw.subarray(3); // a BOM, as iconv-lite dropped it
      if (raw.length > PRUNE_MIN_BYTES) {
        const pruned = pruneDeepJson(raw, opts.keepDepth);
        if (!Buffer.isBuffer(pruned)) {
          return next(
            bodyError(
              400,
              'entity.parse.failed',
              `Unexpected token in JSON at position ${raw.toString('utf8', 0, pruned.invalidAt).length}`,
            ),
          );
        }
        raw = pruned;
      }
      const { text, invalid } = decodeUtf8(raw);
      if (invalid || mayHoldUnstorableText(raw)) opts.mayHoldUnstorable(req);
      if (text.length === 0) {
        req.body = {}; // as body-parser: an empty body is a common client mistake
        return next();
      }
      // JSON's four whitespace characters (RFC 8259), named by code so the set is exact
      // biome-ignore lint/suspicious/noControlCharactersInRegex: tab, LF and CR are the point
      const first = /^[\x20\x09\x0a\x0d]*(.?)/.exec(text)![1];
      if (first !== '{' && first !== '[')
        return next(bodyError(400, 'entity.parse.failed', 'Unexpected token: a JSON body must be an object or an array'));
      try {
        req.body = JSON.parse(text);
      } catch (e) {
        return next(bodyError(400, 'entity.parse.failed', (e as Error).message));
      }
      next();
    }, next);
  };
}

/** any body as bytes, as express.raw({ type: () => true, limit }), under the budget */
export function rawBody(opts: { limit: number; budget?: BodyBudget }): RequestHandler {
  const budget = opts.budget ?? bodyBudget;
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.readableEnded || !hasBody(req)) return next();
    readBody(req, budget, claimFor(res, budget), opts.limit).then((body) => {
      req.body = body;
      next();
    }, next);
  };
}
