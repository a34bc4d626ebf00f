// The precomputed router must route every request exactly as openapi-backend's own does.
import { OpenAPIBackend } from 'openapi-backend';
import { describe, expect, it } from 'vitest';
import { createBackend, loadSpec } from '../../src/http/openapi.ts';

/** openapi-backend's own router on the same spec, untouched */
async function libraryRouter(definition = loadSpec()) {
  const api = new OpenAPIBackend({ definition, quick: true, validate: false });
  await api.init();
  return api.router;
}

/** what a router answers: the operation id, or the error it throws */
function outcome(route: () => { operationId?: string } | undefined): string {
  try {
    return `op ${route()?.operationId ?? '(none)'}`;
  } catch (e) {
    return `error ${(e as Error).message}`;
  }
}

describe('precomputed routing', () => {
  it('matches every request as the library does: each operation, other methods, trailing slashes, ids with dots, unknown paths', async () => {
    const ours = (await createBackend()).router;
    const theirs = await libraryRouter();
    const paths = new Set<string>();
    for (const op of theirs.getOperations()) {
      const concrete = op.path.replace(/\{[^}]+\}/g, 'some.id-1');
      paths
        .add(concrete)
        .add(`${concrete}/`)
        .add(`${concrete}//`)
        .add(`${concrete}?x=1`)
        .add(`${concrete}/extra`)
        .add(concrete.replace(/some\.id-1/g, 'a%2Fb'));
    }
    for (const p of [
      '/',
      '',
      '/api',
      '/api/public',
      '/api/public/',
      '/nope',
      '/api/public/models/a/b',
      '/API/PUBLIC/MODELS',
      '/api/public/ingestion ',
    ])
      paths.add(p);
    expect(paths.size).toBeGreaterThan(100);
    let compared = 0;
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'get']) {
        for (const strict of [true, false]) {
          const req = { method, path, headers: {} };
          expect(
            outcome(() => ours.matchOperation(req, strict)),
            `${method} ${path} strict=${strict}`,
          ).toBe(outcome(() => theirs.matchOperation(req, strict)));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1500);
  });

  it('prefers the most specific of overlapping templates, as the library does', async () => {
    const op = (operationId: string) => ({ operationId, responses: { 200: { description: 'ok' } } });
    const definition = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/items/{id}': { get: op('getItem'), delete: op('deleteItem') },
        '/{kind}/special': { get: op('getSpecialOfKind'), post: op('postSpecial') },
        '/items/special': { put: op('putSpecial') },
        '/items/{id}/{sub}': { get: op('getSub') },
        '/{a}/{b}': { patch: op('patchAny') },
      },
    } as never;
    const ours = (await createBackend(definition)).router;
    const theirs = await libraryRouter(definition);
    const seen = new Set<string>();
    for (const path of [
      '/items/1',
      '/items/special',
      '/things/special',
      '/items/special/x',
      '/items/1/2',
      '/x/y',
      '/items',
      '/items/1/2/3',
    ]) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const req = { method, path, headers: {} };
        const expected = outcome(() => theirs.matchOperation(req, true));
        seen.add(expected);
        expect(
          outcome(() => ours.matchOperation(req, true)),
          `${method} ${path}`,
        ).toBe(expected);
      }
    }
    // the cases reach every operation and both errors
    expect([...seen].filter((s) => s.startsWith('op ')).sort()).toEqual(
      ['deleteItem', 'getItem', 'getSpecialOfKind', 'getSub', 'patchAny', 'postSpecial', 'putSpecial'].map((id) => `op ${id}`),
    );
    expect([...seen].some((s) => s.includes('405'))).toBe(true);
    expect([...seen].some((s) => s.includes('404'))).toBe(true);
  });

  it('flattens the operations once', async () => {
    const router = (await createBackend()).router;
    expect(router.getOperations()).toBe(router.getOperations());
    expect(router.getOperations().length).toBe((await libraryRouter()).getOperations().length);
  });
});
