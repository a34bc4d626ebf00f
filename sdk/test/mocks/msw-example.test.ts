// What a frontend team writes: their code calls Tally through the generated client; in tests
// msw answers every operation from the spec's examples (@tally/sdk/mocks), so no server runs.
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../generated/client/client/index.ts';
import { TallySdk } from '../../../generated/client/sdk.gen.ts';
import { createHandlers, mockOperation } from '../../mocks/index.ts';

const baseUrl = 'http://tally.test';
const server = setupServer(...createHandlers({ baseUrl }));
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

// the generated class on a fetch client: a non-2xx throws (the methods' types say so);
// `throwOnError: false` on a call returns { data, error, response } instead
const client = createClient({ baseUrl, headers: { authorization: `Basic ${btoa('pk-lf-test:sk-lf-test')}` }, throwOnError: true });
const tally = new TallySdk({ client });

// the frontend's own code under test: a model picker's options
async function modelOptions(): Promise<string[]> {
  const { data } = await tally.models.list({ query: { page: 1, limit: 2 } });
  return data.data.map((m) => `${m.modelName} (${m.unit})`);
}

describe('a frontend test against the msw mocks', () => {
  it('gets the default example of the lowest success status', async () => {
    const options = await modelOptions();
    expect(options.length).toBeGreaterThan(0);
    expect(options.every((o) => / \(\w+\)$/.test(o))).toBe(true);
  });

  it('picks another example with a Prefer header, status included', async () => {
    const { data, error, response } = await tally.models.get({
      path: { id: 'nope' },
      headers: { prefer: 'example=unknownId' },
      throwOnError: false,
    });
    expect(response?.status).toBe(404);
    expect(data).toBeUndefined();
    expect(error).toEqual({ message: 'No model with this id found.', error: 'LangfuseNotFoundError' });
  });

  it('overrides one operation for one test with mockOperation', async () => {
    server.use(mockOperation('models_list', { status: 401 }, { baseUrl }));
    const { response } = await tally.models.list({ throwOnError: false });
    expect(response?.status).toBe(401);
    await expect(modelOptions()).rejects.toBeDefined(); // the frontend's code sees the failure
  });

  it('sets the example per operation for a whole handler set', async () => {
    server.use(...createHandlers({ baseUrl, examples: { models_get: 'unknownId' } }));
    const { response } = await tally.models.get({ path: { id: 'x' }, throwOnError: false });
    expect(response?.status).toBe(404);
    expect(response?.headers.get('x-tally-mock-example')).toBe('unknownId');
  });

  it('answers the ingestion endpoint with its 207 multi-status example', async () => {
    const { data, response } = await tally.ingestion.batch({ body: { batch: [] } });
    expect(response?.status).toBe(207);
    expect(data).toHaveProperty('successes');
    expect(data).toHaveProperty('errors');
  });
});
