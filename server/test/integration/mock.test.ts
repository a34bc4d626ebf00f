import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
