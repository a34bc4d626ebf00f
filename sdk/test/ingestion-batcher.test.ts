import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IngestionBatcher, type IngestionEvent, type IngestionFailure, type IngestionResponse } from '../src/ingestion-batcher.ts';

const ev = (i: number, extra: Record<string, unknown> = {}): IngestionEvent =>
  ({ id: `evt-${i}`, timestamp: '2026-01-01T00:00:00Z', type: 'span-create', body: { id: `obs-${i}`, ...extra } }) as IngestionEvent;

type Responder = (batch: IngestionEvent[], call: number) => IngestionResponse | Promise<IngestionResponse>;
const allOk: Responder = (batch) => ({ successes: batch.map((e) => ({ id: e.id, status: 201 as const })), errors: [] });

function fakeSend(respond: Responder = allOk) {
  const batches: string[][] = [];
  const send = vi.fn(async (batch: IngestionEvent[]) => {
    batches.push(batch.map((e) => e.id));
    return respond(batch, batches.length);
  });
  return { send, batches, ids: () => batches.flat() };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(Math, 'random').mockReturnValue(0.5);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('IngestionBatcher: when it sends', () => {
  it('flushes as soon as maxEvents are queued, without waiting for the interval', async () => {
    const f = fakeSend();
    const b = new IngestionBatcher({ send: f.send, maxEvents: 3, flushIntervalMs: 60_000 });
    for (let i = 0; i < 7; i++) b.add(ev(i));
    await vi.advanceTimersByTimeAsync(0);
    expect(f.batches).toEqual([
      ['evt-0', 'evt-1', 'evt-2'],
      ['evt-3', 'evt-4', 'evt-5'],
    ]);
    await b.shutdown();
    expect(f.batches.at(-1)).toEqual(['evt-6']);
  });

  it('keeps each request under maxBytes', async () => {
    const f = fakeSend();
    const b = new IngestionBatcher({ send: f.send, maxBytes: 1000, flushIntervalMs: 60_000 });
    const big = 'x'.repeat(300);
    for (let i = 0; i < 6; i++) b.add(ev(i, { input: big }));
    await vi.advanceTimersByTimeAsync(0);
    // ~390 bytes each: two per request, sent as soon as the third would not fit
    expect(f.batches).toEqual([
      ['evt-0', 'evt-1'],
      ['evt-2', 'evt-3'],
    ]);
    for (const batch of f.send.mock.calls) expect(JSON.stringify({ batch: batch[0] }).length).toBeLessThanOrEqual(1000);
    await b.shutdown();
    expect(f.ids()).toEqual(['evt-0', 'evt-1', 'evt-2', 'evt-3', 'evt-4', 'evt-5']);
  });

  it('drops and reports an event larger than a request may be', async () => {
    const f = fakeSend();
    const onError = vi.fn();
    const b = new IngestionBatcher({ send: f.send, maxBytes: 200, onError });
    b.add(ev(1, { input: 'y'.repeat(500) }));
    b.add(ev(2));
    await b.shutdown();
    expect(f.ids()).toEqual(['evt-2']);
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'too-large', events: [expect.objectContaining({ id: 'evt-1' })] }),
    );
    expect(b.stats).toEqual({ acknowledged: 1, dropped: 1, pending: 0 });
  });

  it('flushes a partial batch after flushIntervalMs', async () => {
    const f = fakeSend();
    const b = new IngestionBatcher({ send: f.send, flushIntervalMs: 1000 });
    b.add(ev(1));
    b.add(ev(2));
    await vi.advanceTimersByTimeAsync(999);
    expect(f.send).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(f.batches).toEqual([['evt-1', 'evt-2']]);
    b.add(ev(3));
    await vi.advanceTimersByTimeAsync(1000);
    expect(f.batches).toEqual([['evt-1', 'evt-2'], ['evt-3']]);
    expect(b.pending).toBe(0);
  });

  it('shutdown sends what is queued and resolves once it is acknowledged; later adds go at once', async () => {
    const f = fakeSend(async (batch) => {
      await new Promise((r) => setTimeout(r, 50));
      return allOk(batch, 0);
    });
    const b = new IngestionBatcher({ send: f.send, flushIntervalMs: 60_000 });
    b.add(ev(1));
    b.add(ev(2));
    let done = false;
    const p = b.shutdown().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(f.batches).toEqual([['evt-1', 'evt-2']]);
    expect(done).toBe(false); // the request has not answered yet
    await vi.advanceTimersByTimeAsync(50);
    await p;
    expect(b.stats).toEqual({ acknowledged: 2, dropped: 0, pending: 0 });
    b.add(ev(3));
    await vi.advanceTimersByTimeAsync(0);
    expect(f.batches.at(-1)).toEqual(['evt-3']);
  });

  it('flush() sends now and resolves when those events are acknowledged', async () => {
    const f = fakeSend();
    const b = new IngestionBatcher({ send: f.send, flushIntervalMs: 60_000 });
    b.add(ev(1));
    await b.flush();
    expect(f.batches).toEqual([['evt-1']]);
    expect(b.pending).toBe(0);
    await b.flush(); // nothing queued: resolves, sends nothing
    expect(f.send).toHaveBeenCalledTimes(1);
  });
});

describe('IngestionBatcher: delivery', () => {
  it('retries a failed request with backoff, same ids, until acknowledged', async () => {
    const onError = vi.fn();
    const f = fakeSend((batch, call) => {
      if (call <= 2) throw new TypeError('fetch failed');
      return allOk(batch, call);
    });
    const b = new IngestionBatcher({ send: f.send, retryBaseMs: 100, onError });
    b.add(ev(1));
    b.add(ev(2));
    const p = b.shutdown();
    await vi.advanceTimersByTimeAsync(0);
    expect(f.send).toHaveBeenCalledTimes(1);
    // backoff: 100 ms cap → 75 ms with Math.random() = 0.5, then 200 → 150 ms
    await vi.advanceTimersByTimeAsync(74);
    expect(f.send).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(f.send).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(150);
    await p;
    expect(f.batches).toEqual([
      ['evt-1', 'evt-2'],
      ['evt-1', 'evt-2'],
      ['evt-1', 'evt-2'],
    ]);
    expect(onError.mock.calls.map((c: unknown[]) => c[0] as IngestionFailure).map((x) => [x.kind, x.retryInMs])).toEqual([
      ['retrying', 75],
      ['retrying', 150],
    ]);
    expect(b.stats).toEqual({ acknowledged: 2, dropped: 0, pending: 0 });
  });

  it('resends only the events with a 5xx (or 429, or no) per-event outcome; acknowledged ones never again', async () => {
    const f = fakeSend((batch, call) => {
      if (call === 1) {
        return {
          successes: [{ id: 'evt-1', status: 201 }],
          errors: [
            { id: 'evt-2', status: 500, message: 'database unavailable' },
            { id: 'evt-3', status: 429 },
          ],
          // evt-4 is missing from the response: not acknowledged
        };
      }
      return allOk(batch, call);
    });
    const b = new IngestionBatcher({ send: f.send, retryBaseMs: 10 });
    for (let i = 1; i <= 4; i++) b.add(ev(i));
    const p = b.shutdown();
    await vi.runAllTimersAsync();
    await p;
    expect(f.batches[0]).toEqual(['evt-1', 'evt-2', 'evt-3', 'evt-4']);
    expect(f.batches.slice(1).flat().sort()).toEqual(['evt-2', 'evt-3', 'evt-4']);
    expect(f.ids().filter((id) => id === 'evt-1')).toHaveLength(1);
    expect(b.stats).toEqual({ acknowledged: 4, dropped: 0, pending: 0 });
  });

  it('drops and reports 4xx per-event errors at once (they never succeed)', async () => {
    const onError = vi.fn();
    const f = fakeSend(() => ({
      successes: [{ id: 'evt-1', status: 201 }],
      errors: [{ id: 'evt-2', status: 400, message: 'Invalid request data', error: [{ path: ['body', 'id'] }] }],
    }));
    const b = new IngestionBatcher({ send: f.send, onError });
    b.add(ev(1));
    b.add(ev(2));
    await b.shutdown();
    expect(f.send).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toMatchObject({
      kind: 'rejected',
      status: 400,
      events: [{ id: 'evt-2' }],
      error: { message: 'Invalid request data' },
    });
    expect(b.stats).toEqual({ acknowledged: 1, dropped: 1, pending: 0 });
  });

  it('a request refused as a whole with a 4xx (bad credentials) is reported, not retried', async () => {
    const onError = vi.fn();
    const f = fakeSend(() => {
      throw Object.assign(new Error('Unauthorized'), { status: 401 });
    });
    const b = new IngestionBatcher({ send: f.send, onError });
    b.add(ev(1));
    await b.shutdown();
    expect(f.send).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toMatchObject({ kind: 'rejected', status: 401 });
  });

  it('gives up after maxRetries, reports it, and shutdown still resolves', async () => {
    const onError = vi.fn();
    const f = fakeSend((batch) => ({ successes: [], errors: batch.map((e) => ({ id: e.id, status: 503 })) }));
    const b = new IngestionBatcher({ send: f.send, maxRetries: 3, retryBaseMs: 100, onError });
    b.add(ev(1));
    const p = b.shutdown();
    await vi.runAllTimersAsync();
    await p;
    expect(f.send).toHaveBeenCalledTimes(4); // first try + 3 retries
    const kinds = onError.mock.calls.map((c: unknown[]) => c[0] as IngestionFailure).map((x) => x.kind);
    expect(kinds).toEqual(['retrying', 'retrying', 'retrying', 'gave-up']);
    expect(onError.mock.calls.at(-1)![0]).toMatchObject({ status: 503, events: [{ id: 'evt-1' }] });
    expect(b.stats).toEqual({ acknowledged: 0, dropped: 1, pending: 0 });
  });

  it('events added while a request is in flight are sent in a later request, each exactly once', async () => {
    let release!: () => void;
    const f = fakeSend(async (batch, call) => {
      if (call === 1) await new Promise<void>((r) => (release = r));
      return allOk(batch, call);
    });
    const b = new IngestionBatcher({ send: f.send, maxEvents: 2 });
    b.add(ev(1));
    b.add(ev(2)); // full: sent, and held
    await vi.advanceTimersByTimeAsync(0);
    b.add(ev(3));
    b.add(ev(4)); // full again, but one request at a time
    await vi.advanceTimersByTimeAsync(0);
    expect(f.send).toHaveBeenCalledTimes(1);
    release();
    await b.shutdown();
    expect(f.batches).toEqual([
      ['evt-1', 'evt-2'],
      ['evt-3', 'evt-4'],
    ]);
  });

  it('a throwing onError does not break delivery', async () => {
    let calls = 0;
    const f = fakeSend((batch) => (++calls === 1 ? { successes: [], errors: [{ id: 'evt-1', status: 502 }] } : allOk(batch, calls)));
    const b = new IngestionBatcher({
      send: f.send,
      retryBaseMs: 1,
      onError: () => {
        throw new Error('logger broke');
      },
    });
    b.add(ev(1));
    const p = b.shutdown();
    await vi.runAllTimersAsync();
    await p;
    expect(b.stats).toEqual({ acknowledged: 1, dropped: 0, pending: 0 });
  });
});
