// A batch the database could not store must come back as a 5xx for the request (which SDKs
// retry), not as a 207 with a 5xx per event (which they drop): 503 with Retry-After when
// concurrent writes kept it from being applied, 500 for any other storage failure.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { describe, expect, it } from 'vitest';
import { ingestionBatch } from '../../src/http/handlers/ingestion.ts';
import { componentValidators } from '../../src/http/openapi.ts';
import { contentionCounters } from '../../src/ingestion/pipeline.ts';
import { createLogger } from '../../src/logger.ts';
import type { Services } from '../../src/app-context.ts';
import { ConcurrentWriteError } from '../../src/store/sql.ts';

const batch = [{ id: 'e1', timestamp: '2026-11-22T10:00:00.000Z', type: 'span-create' as const, body: { id: 'o1' } }];

/** the handler's outcome when every transaction it opens fails with `error` */
async function answerWhenEveryAttemptThrows(error: unknown) {
  let attempts = 0;
  const em = {
    transactional: async () => {
      attempts++;
      throw error;
    },
  } as unknown as SqlEntityManager;
  const call = ingestionBatch({
    projectId: 'p',
    publicKey: 'pk-lf-p',
    em,
    body: { batch },
    params: {},
    query: {},
    log: createLogger('silent'),
    services: {} as Services,
    mayHoldUnstorableText: false,
    signal: new AbortController().signal,
  });
  const outcome = await call.then(
    (r) => r as { status: number; body: unknown; headers?: Record<string, string> },
    (e: unknown) => e as { status: number; body: unknown; headers?: undefined },
  );
  return { ...outcome, attempts };
}

const isEnvelopeError = (body: unknown) => componentValidators()('IngestionEnvelopeError')(body);

describe('ingestion handler', () => {
  it('answers a storage failure with a 500 in the envelope error shape of the spec, without calling it invalid data', async () => {
    const r = await answerWhenEveryAttemptThrows(new Error('Connection terminated unexpectedly'));
    expect(r.status).toBe(500);
    expect(r.attempts).toBe(1);
    expect(r.body).toEqual({
      message: 'The batch could not be stored',
      errors: ['The database failed and nothing of the batch was applied; send it again'],
    });
    expect(isEnvelopeError(r.body)).toBe(true);
  });

  it.each([
    ['a row changed by a concurrent batch on every attempt', new ConcurrentWriteError('1 observations changed concurrently')],
    ['a deadlock on every attempt', Object.assign(new Error('deadlock detected'), { code: '40P01' })],
  ])('answers %s with 503 and Retry-After after applying it again a bounded number of times', async (_, error) => {
    const before = contentionCounters.gaveUp;
    const r = await answerWhenEveryAttemptThrows(error);
    expect(r.status).toBe(503);
    expect(r.headers).toEqual({ 'retry-after': '1' });
    expect(r.attempts).toBeGreaterThan(1);
    expect(r.attempts).toBeLessThanOrEqual(10);
    expect(r.body).toMatchObject({
      message:
        'The batch could not be applied because of concurrent writes to the same observations or traces; nothing of it was stored. Retry after 1 s.',
    });
    expect(isEnvelopeError(r.body)).toBe(true);
    expect(contentionCounters.gaveUp).toBe(before + 1);
  });

  it('answers a row lock waited for too long with 503 at once (the wait was the retry)', async () => {
    const r = await answerWhenEveryAttemptThrows(
      new Error('wrapped', { cause: Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }) }),
    );
    expect(r.status).toBe(503);
    expect(r.attempts).toBe(1);
    expect(r.headers).toEqual({ 'retry-after': '1' });
    expect(r.body).toMatchObject({ errors: ['rows of the batch stayed locked by other batches for more than 5000 ms'] });
  });
});
