// msw handlers for every operation of the Tally API, built at load time from the bundled spec
// (generated/openapi.json) and answering from its named examples through the same picker as
// `make mock` (./examples.ts). For frontend tests and local development without a server:
//
//   import { setupServer } from 'msw/node';
//   import { createHandlers } from '@tally/sdk/mocks';
//   const server = setupServer(...createHandlers({ baseUrl: 'http://localhost:3000' }));
//
// Another example: a `Prefer: example=<name>` (or `code=<status>`) request header, the
// `examples` option for a whole handler set, or `server.use(mockOperation('models_get', 'unknownId'))`
// for one test.
import { http, HttpResponse, type HttpHandler } from 'msw';
import bundledSpec from '../../generated/openapi.json' with { type: 'json' };
import {
  answerFor,
  isSecured,
  listOperations,
  parsePrefer,
  type ExampleChoice,
  type MockAnswer,
  type SpecOperationEntry,
} from './examples.ts';
import { checkBody } from './validate.ts';
import { NO_AUTHORIZATION_HEADER } from '../../shared/validation/issues.ts';

export { answerFor, listOperations, parsePrefer, pickExample, type ExampleChoice, type MockAnswer } from './examples.ts';

type Spec = Parameters<typeof listOperations>[0] & { security?: Array<Record<string, unknown>> };

export interface MockHandlerOptions {
  /** the origin (and any prefix) the client calls; by default any origin matches */
  baseUrl?: string;
  /** the spec to mock; the bundled Tally spec by default */
  spec?: object;
  /** per operationId: an example name, or an example/status choice, used when the request has no `Prefer` header */
  examples?: Record<string, string | ExampleChoice>;
  /** answer 401 (as `make mock` does) when a secured operation is called without an Authorization header; off by default */
  requireAuth?: boolean;
}

const spec = bundledSpec as unknown as Spec;

// msw 3 needs Node >= 22.12 (or a browser of 2024 or later): on Node 20 every mocked call would fail
// later with "Promise.withResolvers is not a function", far from the cause. Say it at import.
if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  const runtime = node ? `Node ${node}` : 'this runtime';
  throw new Error(
    `@tally/sdk/mocks needs msw 3, which needs Node >= 22.12 or a current browser (it uses Promise.withResolvers); ${runtime} is too old. The SDK itself (@tally/sdk) works on Node >= 20; run the tests that use the mocks on Node 22.12 or later.`,
  );
}

/** the msw path of a spec path template: `{id}` → `:id`, under `baseUrl` (any origin when omitted) */
export function mswPath(path: string, baseUrl?: string): string {
  const prefix = baseUrl ? baseUrl.replace(/\/+$/, '') : '*';
  return prefix + path.replace(/\{([^}]+)\}/g, ':$1');
}

function toChoice(choice: string | ExampleChoice | undefined): ExampleChoice {
  return typeof choice === 'string' ? { example: choice } : (choice ?? {});
}

function handlerFor(entry: SpecOperationEntry, opts: MockHandlerOptions, theSpec: Spec): HttpHandler {
  const method = entry.method as 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';
  const fallback = toChoice(opts.examples?.[entry.operationId]);
  const secured = isSecured(entry.operation, theSpec);
  const takesJson = !!(entry.operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content?.['application/json'];
  const respond = (answer: MockAnswer, headers: Record<string, string>) =>
    answer.contentType === null
      ? new HttpResponse(null, { status: answer.status, headers })
      : HttpResponse.json(answer.body as never, { status: answer.status, headers });
  return http[method](mswPath(entry.path, opts.baseUrl), async ({ request }) => {
    if (opts.requireAuth && secured && !request.headers.get('authorization')) {
      return HttpResponse.json({ message: NO_AUTHORIZATION_HEADER }, { status: 401 });
    }
    const headers: Record<string, string> = { 'x-tally-mock-operation': entry.operationId };
    let body: unknown;
    if (takesJson) {
      const text = await request.text();
      try {
        body = text.trim() ? JSON.parse(text) : undefined;
      } catch {
        return HttpResponse.json({ message: 'Invalid JSON in request body', error: 'InvalidRequestError' }, { status: 400, headers });
      }
      // a body the server would refuse gets the server's 400, whatever example was asked for
      const refused = await checkBody(theSpec, entry, body);
      if (refused) return respond(refused, headers);
    }
    const answer = answerFor(entry.operation, parsePrefer(request.headers.get('prefer'), fallback), body);
    if (answer.example) headers['x-tally-mock-example'] = answer.example;
    return respond(answer, headers);
  });
}

/** the parameterless paths first, so a literal segment (`/models/explain`) is never taken for a parameter */
function byLiteralFirst(a: SpecOperationEntry, b: SpecOperationEntry): number {
  const params = (p: string) => (p.match(/\{/g) ?? []).length;
  return params(a.path) - params(b.path);
}

/** one msw handler per operation of the spec */
export function createHandlers(opts: MockHandlerOptions = {}): HttpHandler[] {
  const theSpec = (opts.spec as Spec | undefined) ?? spec;
  return listOperations(theSpec)
    .sort(byLiteralFirst)
    .map((entry) => handlerFor(entry, opts, theSpec));
}

/** a handler for one operation answering the chosen example: for `server.use(...)` in one test */
export function mockOperation(
  operationId: string,
  choice: string | ExampleChoice,
  opts: Omit<MockHandlerOptions, 'examples'> = {},
): HttpHandler {
  const theSpec = (opts.spec as Spec | undefined) ?? spec;
  const entry = listOperations(theSpec).find((e) => e.operationId === operationId);
  if (!entry) throw new Error(`No operation ${operationId} in the spec`);
  return handlerFor(entry, { ...opts, examples: { [operationId]: choice } }, theSpec);
}

/** the operations the handlers cover, as `{ operationId, method, path }` */
export function mockedOperations(opts: Pick<MockHandlerOptions, 'spec'> = {}) {
  return listOperations((opts.spec as Spec | undefined) ?? spec).map(({ operationId, method, path }) => ({ operationId, method, path }));
}

/** handlers for any origin with each operation's default examples */
export const handlers: HttpHandler[] = createHandlers();
