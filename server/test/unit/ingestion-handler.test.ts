// A batch the database could not store must come back as a 500 for the request (which SDKs
// retry), not as a 207 with a 500 per event (which they drop).
import type { SqlEntityManager } from '@mikro-orm/sql';
import { describe, expect, it } from 'vitest';
import { ingestionBatch } from '../../src/http/handlers/ingestion.ts';
import { componentValidators } from '../../src/http/openapi.ts';
import { createLogger } from '../../src/logger.ts';
import type { Services } from '../../src/services.ts';

describe('ingestion handler', () => {
  it('answers a storage failure with a 500 in the envelope error shape of the spec', async () => {
    const em = { transactional: async () => { throw new Error('Connection terminated unexpectedly'); } } as unknown as SqlEntityManager;
    const batch = [{ id: 'e1', timestamp: '2026-11-22T10:00:00.000Z', type: 'span-create', body: { id: 'o1' } }];
    const call = ingestionBatch({
      projectId: 'p', em, body: { batch }, params: {}, query: {}, log: createLogger('silent'), services: {} as Services, mayHoldUnstorableText: false,
    });
    const error = await call.then(() => null, (e: unknown) => e as { status: number; body: unknown });
    expect(error?.status).toBe(500);
    expect(error?.body).toEqual({ message: 'Invalid request data', errors: ['The batch could not be stored and nothing of it was applied; send it again'] });
    expect(componentValidators()('IngestionEnvelopeError')(error?.body)).toBe(true);
  });
});
