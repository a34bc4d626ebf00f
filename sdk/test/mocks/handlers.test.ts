// Every operation of the spec has an msw handler, it answers the example the shared picker
// chooses, and `make mock` answers the same for the same request.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, mockedOperations } from '../../mocks/index.ts';
import { answerFor, parsePrefer, pickExample } from '../../mocks/examples.ts';
import { createMockApp } from '../../../server/src/mock.ts';

const spec = JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
// read from the spec here, not through the module under test
const operations: Array<{ operationId: string; method: string; path: string; operation: any }> = [];
for (const [path, item] of Object.entries<any>(spec.paths)) {
  for (const method of METHODS)
    if (item[method]) operations.push({ operationId: item[method].operationId, method, path, operation: item[method] });
}

const baseUrl = 'http://tally.test';
const server = setupServer(...createHandlers({ baseUrl }));
let mockUrl = '';
let mockServer: Server;
beforeAll(async () => {
  server.listen({ onUnhandledFrame: 'bypass' }); // the make-mock server on 127.0.0.1 is real
  const app = await createMockApp();
  mockServer = app.listen(0, '127.0.0.1');
  await new Promise((r) => mockServer.once('listening', r));
  mockUrl = `http://127.0.0.1:${(mockServer.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  mockServer?.close();
});

const auth = `Basic ${btoa('pk:sk')}`;
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'abc');
/** the body a request of the operation sends: its first request example (a body the server accepts), else {} */
function bodyOf(op: { operation: any }): unknown {
  const examples = op.operation.requestBody?.content?.['application/json']?.examples ?? {};
  const first = Object.values<any>(examples)[0];
  return first ? first.value : {};
}
function call(origin: string, op: { method: string; path: string; operation: any }, prefer?: string) {
  const hasBody = !['get', 'head', 'delete'].includes(op.method);
  return fetch(origin + concrete(op.path), {
    method: op.method.toUpperCase(),
    headers: { authorization: auth, ...(hasBody ? { 'content-type': 'application/json' } : {}), ...(prefer ? { prefer } : {}) },
    body: hasBody ? JSON.stringify(bodyOf(op)) : undefined,
  });
}

describe('msw handlers (@tally/sdk/mocks)', () => {
  it('cover every operation of the spec, one handler each', () => {
    expect(operations.length).toBeGreaterThan(30);
    const mocked = mockedOperations()
      .map((o) => `${o.method} ${o.path} ${o.operationId}`)
      .sort();
    expect(mocked).toEqual(operations.map((o) => `${o.method} ${o.path} ${o.operationId}`).sort());
    expect(createHandlers({ baseUrl })).toHaveLength(operations.length);
  });

  it.each(operations.map((o) => [o.operationId, o] as const))('%s answers its default example', async (_id, op) => {
    const res = await call(baseUrl, op);
    const expected = answerFor(op.operation, {}, bodyOf(op));
    expect(res.headers.get('x-tally-mock-operation')).toBe(op.operationId);
    expect(res.status).toBe(expected.status);
    expect(String(res.status)).toMatch(/^2/);
    if (expected.contentType) expect(await res.json()).toEqual(expected.body);
  });

  it('answers every named example through the Prefer header', async () => {
    let n = 0;
    for (const op of operations) {
      for (const [status, response] of Object.entries<any>(op.operation.responses)) {
        for (const name of Object.keys(response.content?.['application/json']?.examples ?? {})) {
          const res = await call(baseUrl, op, `example=${name}`);
          const expected = pickExample(op.operation, { example: name });
          expect(res.status, `${op.operationId} ${name}`).toBe(expected.status);
          expect(await res.json()).toEqual(expected.body);
          // a name used under two statuses answers the lowest; each name answers one of its own
          expect(Object.keys(op.operation.responses[expected.status].content['application/json'].examples)).toContain(name);
          if (Number(status) === expected.status) n++;
        }
      }
    }
    expect(n).toBeGreaterThan(100);
  });

  it('answers the same as make mock for the same request', async () => {
    let compared = 0;
    for (const op of operations) {
      const names = [
        undefined,
        ...Object.values<any>(op.operation.responses).flatMap((r) => Object.keys(r.content?.['application/json']?.examples ?? {})),
      ];
      for (const name of names) {
        const prefer = name ? `example=${name}` : undefined;
        const fromMock = await call(mockUrl, op, prefer);
        const expected = pickExample(op.operation, parsePrefer(prefer));
        // make mock validates the request first; a made-up path id or empty body may not pass
        if (
          fromMock.status === 400 &&
          (expected.status !== 400 || fromMock.headers.get('x-tally-mock-example') !== (expected.example ?? null))
        )
          continue;
        const fromMsw = await call(baseUrl, op, prefer);
        expect(fromMock.status, `${op.operationId} ${name}`).toBe(fromMsw.status);
        const text = await fromMock.text();
        if (expected.contentType) expect(JSON.parse(text)).toEqual(await fromMsw.json());
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('chooses by Prefer code=, then by option, then the lowest 2xx', () => {
    const op = operations.find((o) => o.operationId === 'models_get')!.operation;
    expect(pickExample(op).status).toBe(200);
    expect(pickExample(op, parsePrefer('code=404')).status).toBe(404);
    expect(pickExample(op, parsePrefer(null, { example: 'unknownId' })).status).toBe(404);
    expect(pickExample(op, parsePrefer('example=projectModel', { example: 'unknownId' })).status).toBe(200);
    expect(pickExample(op, { status: 401 })).toMatchObject({ status: 401, contentType: null });
  });

  it('answers 400 naming the known examples when Prefer names one the operation does not have', async () => {
    const op = operations.find((o) => o.operationId === 'models_get')!.operation;
    for (const choice of [{ example: 'doesNotExist' }, { status: 418 }]) {
      const answer = pickExample(op, choice);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'MockExampleNotFound' });
      const message = (answer.body as { message: string }).message;
      expect(message).toContain('models_get');
      expect(message).toContain('unknownId (404)');
      expect(message).toContain(choice.example ? 'example=doesNotExist' : 'code=418');
    }
    // through msw, as a frontend test meets it, and from make mock
    for (const origin of [baseUrl, mockUrl]) {
      const res = await fetch(`${origin}/api/public/models/m1`, {
        headers: { prefer: 'example=doesNotExist', authorization: 'Basic eDp5' },
      });
      expect(res.status, origin).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/^example=doesNotExist names nothing models_get has/);
    }
  });
});
