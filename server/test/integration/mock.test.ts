import type { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHandlers } from '../../../sdk/mocks/index.ts';
import { basic } from '../support/start.ts';
import { createMockApp } from '../../src/mock.ts';

let url = '';
let close = () => {};
beforeAll(async () => {
  const app = await createMockApp();
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

const auth = { authorization: `Basic ${Buffer.from('pk:sk').toString('base64')}` };

describe('mock server (make mock)', () => {
  it('answers an operation with its first success example', async () => {
    const res = await fetch(`${url}/api/public/models`, { headers: auth });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.meta).toMatchObject({ page: 1, limit: 2 });
    // the example agrees with itself: a full page of its limit, and the page count of its total
    expect(body.data).toHaveLength(body.meta.limit);
    expect(body.meta.totalPages).toBe(Math.ceil(body.meta.totalItems / body.meta.limit));
    expect(body.data.map((m: { isLangfuseManaged: boolean }) => m.isLangfuseManaged)).toEqual([false, true]);
  });

  it('answers the example a Prefer header names, with its status', async () => {
    const res = await fetch(`${url}/api/public/models/abc`, { headers: { ...auth, prefer: 'example=unknownId' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'No model with this id found.', error: 'LangfuseNotFoundError' });
  });

  it('validates requests like the real server', async () => {
    const res = await fetch(`${url}/api/public/models`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ modelName: 'x' }),
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.map((i: { path: string[] }) => i.path[0]).sort()).toEqual(['matchPattern', 'unit']);
    expect((await fetch(`${url}/api/public/models`)).status).toBe(401);
  });

  it("answers a bad body with the 400 the server gives, in each operation's error style (make mock and msw alike)", async () => {
    const msw = setupServer(...createHandlers({ baseUrl: 'http://msw.mock.invalid' }));
    msw.listen({ onUnhandledFrame: 'bypass' });
    try {
      const cases: [string, string, unknown][] = [
        ['POST', '/api/public/models', {}],
        ['POST', '/api/public/models', { modelName: 'x', matchPattern: '^x$', unit: 'PARSECS', inputPrice: 'cheap' }],
        ['POST', '/api/public/ingestion', { batch: 'not-a-list' }],
        ['POST', '/api/public/unstable/evaluators', { name: '' }],
        ['POST', '/api/public/alerts', { name: 'a', query: { view: 'observations', metric: {} }, condition: { operator: 'gt', alert: 1 } }],
        ['PUT', '/api/public/llm-connections', { provider: 'p' }],
      ];
      for (const [method, path, body] of cases) {
        const send = (origin: string, authorization: string) =>
          fetch(origin + path, { method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const server = await send(inject('baseUrl'), basic(inject('projectA')));
        const serverBody = await server.json();
        expect(server.status, `${method} ${path} on the server: ${JSON.stringify(serverBody)}`).toBe(400);
        for (const origin of [url, 'http://msw.mock.invalid']) {
          const mocked = await send(origin, auth.authorization);
          expect(mocked.status, `${method} ${path} on ${origin}`).toBe(400);
          expect(await mocked.json(), `${method} ${path} on ${origin}`).toEqual(serverBody);
        }
      }
    } finally {
      msw.close();
    }
  });
});
