// Every piece of a request body arrives in a Buffer of its own (Node's HTTP parser copies each
// piece off the socket; a decoder's output comes in 64 KB pieces), which the body reader copies
// into one buffer and drops, or counts and drops. The memory behind such a Buffer goes back only
// when V8 collects the object, and a scavenge is triggered by JavaScript allocation, which a body
// streaming in hardly does: 12 uploads of 50 MB left hundreds of MB of dropped pieces resident
// until V8's external-memory limit started a full collection. With a young generation small
// enough to keep normal load light (server/node-flags: --max-semi-space-size), that garbage was
// most of what refusing hostile bodies held above normal load. So once this many body bytes have
// passed through since the last nudge, the reader asks V8 for a scavenge: the dropped pieces are
// young, and a scavenge of a 16 MB young generation costs a millisecond or two. Every 4 MB rather
// than 16: refusing hostile bodies (hostile-memory.test.ts, a scratch copy run alternately,
// 2026-11-29) peaked 66-84 MB above normal load in six runs at 4 MB, 62-90 in four at 16 MB and 112
// in one make test there (the test allows 100); ingestion with usage 11,443 against 11,804 events/s
// (server CPU 77 against 74 us per event) in one pair of bench/ingestion.ts runs.
//
// The nudge needs V8's gc() (server/node-flags: --expose-gc); without it (tests in process) the
// collection is left to V8, as before.

export const NUDGE_EVERY_BYTES = 4 * 1024 * 1024;

type Gc = (options: { type: 'minor' | 'major'; execution?: 'sync' | 'async' }) => unknown;

let passed = 0;

/** `bytes` of a body were read: their Buffer is dropped once copied or counted (a small body's pieces, once it is answered) */
export function bodyBytesPassed(bytes: number): void {
  // looked up on each call, not at import: a test (or a preload) may install it later
  const gc = (globalThis as { gc?: Gc }).gc;
  if (!gc) return;
  passed += bytes;
  if (passed < NUDGE_EVERY_BYTES) return;
  passed = 0;
  gc({ type: 'minor' });
}
