// CORS (issue 27): a page on any origin may call the public API with its own Authorization header,
// as Langfuse allows: the preflight is answered 204 before method dispatch (not 405), the origin is
// reflected, credentials are never allowed, and the headers a client reads are exposed. The same
// on `make mock`. Paths outside /api/public (the console) get no CORS headers.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockApp } from '../../src/mock.ts';
import { basic, startTestServer, type TestServer } from '../support/start.ts';

const ORIGIN = 'http://app.example.test:5173';
let t: TestServer;
let mockUrl = '';
let closeMock = () => {};

beforeAll(async () => {
  t = await startTestServer();
  const server = (await createMockApp()).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  mockUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeMock = () => server.close();
});
afterAll(async () => {
  closeMock();
  await t?.server.close();
});

const preflight = (base: string, path: string, method: string, headers = 'authorization, content-type') =>
  fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

describe.each([
  ['server', () => t.server.url],
  ['mock', () => mockUrl],
])('CORS on the %s', (_name, base) => {
  it('answers a preflight 204 with the origin reflected, the asked headers allowed and no credentials', async () => {
    for (const [path, method] of [
      ['/api/public/models', 'POST'],
      ['/api/public/llm-connections', 'PUT'],
      ['/api/public/models/some-id', 'DELETE'],
      ['/api/public/ingestion', 'POST'],
    ] as const) {
      const res = await preflight(base(), path, method);
      expect(res.status, `${method} ${path}`).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-allow-methods')?.split(',')).toContain(method);
      expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('vary')?.toLowerCase()).toContain('origin');
    }
  });

  it('reflects the origin on an answer and exposes the request id and backoff headers', async () => {
    const auth = _name === 'server' ? basic(t.projectA) : `Basic ${Buffer.from('pk:sk').toString('base64')}`;
    const res = await fetch(`${base()}/api/public/models?limit=1`, { headers: { origin: ORIGIN, authorization: auth } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const exposed = res.headers.get('access-control-expose-headers')?.split(',') ?? [];
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'retry-after']));
    // an error answer carries them too, so a browser can read the message
    const denied = await fetch(`${base()}/api/public/models`, { headers: { origin: ORIGIN } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });
});

describe('CORS stays on the public API', () => {
  it('the console and the docs page get no CORS headers, nor a path that only looks like the API in another case', async () => {
    const res = await fetch(`${t.server.url}/`, { headers: { origin: ORIGIN } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    // the API's routes are case-sensitive: /API/PUBLIC/… is no route, and its OPTIONS is answered as one
    const upper = await preflight(t.server.url, '/API/PUBLIC/MODELS', 'GET');
    expect(upper.status).not.toBe(204);
    expect(upper.headers.get('content-type')).toMatch(/^application\/json/);
    expect(upper.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('the spec served at /api/public/openapi.json names a relative server, so /docs calls its own origin', async () => {
    const res = await fetch(`${t.server.url}/api/public/openapi.json`);
    const spec = (await res.json()) as { servers: { url: string }[] };
    expect(spec.servers.map((s) => s.url)).toEqual(['/']);
  });
});
