// The one place that decides what a mocked operation answers, from the spec's named examples.
// `make mock` (server/src/mock.ts) and the msw handlers (sdk/mocks/index.ts) both call it, so a
// frontend sees the same answers from either. No Node or browser API: it runs in both.
//
// Which example:
//   1. the example named by `Prefer: example=<name>` (or the `example` option), under whichever
//      status holds it;
//   2. else, with `Prefer: code=<status>` (or the `status` option), the first example of that status;
//   3. else the first example of the lowest 2xx status.
// An example name or status the operation does not have is a mistake in the caller's test (a typo
// would otherwise pass silently with the default answer): it answers 400 naming the known ones.

/** the parts of an OpenAPI operation this module reads */
export interface SpecOperation {
  operationId?: string;
  summary?: string;
  responses?: Record<string, { content?: Record<string, { examples?: Record<string, { value?: unknown }>; example?: unknown }> }>;
  [key: string]: unknown;
}

export interface SpecOperationEntry {
  operationId: string;
  /** lower case: get, post, put, patch, delete */
  method: string;
  /** the spec's path template, e.g. /api/public/models/{id} */
  path: string;
  operation: SpecOperation;
}

export interface ExampleChoice {
  /** an example name, as in `Prefer: example=<name>` */
  example?: string;
  /** a response status, as in `Prefer: code=<status>` */
  status?: number;
}

export interface MockAnswer {
  status: number;
  /** the example's value; undefined when the response has no body */
  body: unknown;
  /** the name of the example answered, if any */
  example?: string;
  /** application/json when there is a body, else null */
  contentType: 'application/json' | null;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** every operation of the spec, in spec order */
export function listOperations(spec: { paths?: Record<string, Record<string, unknown>> }): SpecOperationEntry[] {
  const out: SpecOperationEntry[] = [];
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item?.[method] as SpecOperation | undefined;
      if (operation?.operationId) out.push({ operationId: operation.operationId, method, path, operation });
    }
  }
  return out;
}

/** the example choice a `Prefer` header carries (`example=<name>`, `code=<status>`), header values beat `fallback` */
export function parsePrefer(prefer: string | null | undefined, fallback: ExampleChoice = {}): ExampleChoice {
  const example = /(?:^|[;,\s])example=["']?([\w.-]+)/.exec(prefer ?? '')?.[1];
  const code = /(?:^|[;,\s])code=["']?(\d{3})/.exec(prefer ?? '')?.[1];
  if (example || code) return { example, status: code ? Number(code) : undefined };
  return fallback;
}

function jsonContent(operation: SpecOperation, status: string) {
  return operation.responses?.[status]?.content?.['application/json'];
}

function answerFrom(operation: SpecOperation, status: string, name?: string): MockAnswer {
  const content = jsonContent(operation, status);
  if (!content) return { status: Number(status), body: undefined, contentType: null };
  const examples = content.examples ?? {};
  const chosen = name && examples[name] ? name : Object.keys(examples)[0];
  if (chosen) return { status: Number(status), body: examples[chosen]!.value, example: chosen, contentType: 'application/json' };
  return { status: Number(status), body: content.example ?? null, contentType: 'application/json' };
}

/** the error a mock answers when the choice names an example or status the operation does not have */
export const UNKNOWN_EXAMPLE_ERROR = 'MockExampleNotFound';

/** `name (status)` of every named example of the operation */
export function knownExamples(operation: SpecOperation): string[] {
  return Object.entries(operation.responses ?? {}).flatMap(([status, r]) =>
    Object.keys(r?.content?.['application/json']?.examples ?? {}).map((name) => `${name} (${status})`),
  );
}

function unknownChoice(operation: SpecOperation, what: string, statuses: string[]): MockAnswer {
  const examples = knownExamples(operation);
  const id = operation.operationId ?? 'this operation';
  return {
    status: 400,
    body: {
      message: `${what} names nothing ${id} has: its examples are ${examples.length ? examples.join(', ') : 'none'}; its statuses ${statuses.join(', ')}`,
      error: UNKNOWN_EXAMPLE_ERROR,
    },
    contentType: 'application/json',
  };
}

/** the answer an operation gives under `choice` (see the rules at the top of this file) */
export function pickExample(operation: SpecOperation, choice: ExampleChoice = {}): MockAnswer {
  const statuses = Object.keys(operation.responses ?? {})
    .filter((s) => /^\d{3}$/.test(s))
    .sort();
  if (choice.example) {
    for (const status of statuses) {
      if (jsonContent(operation, status)?.examples?.[choice.example]) return answerFrom(operation, status, choice.example);
    }
    return unknownChoice(operation, `example=${choice.example}`, statuses);
  }
  if (choice.status !== undefined) {
    if (statuses.includes(String(choice.status))) return answerFrom(operation, String(choice.status));
    return unknownChoice(operation, `code=${choice.status}`, statuses);
  }
  const ok = statuses.find((s) => s.startsWith('2')) ?? statuses[0];
  if (!ok) return { status: 204, body: undefined, contentType: null };
  return answerFrom(operation, ok);
}

/** whether the operation requires credentials (a non-empty security requirement) */
export function isSecured(operation: SpecOperation, spec?: { security?: Array<Record<string, unknown>> }): boolean {
  const security = (operation.security as Array<Record<string, unknown>> | undefined) ?? spec?.security ?? [];
  return security.some((s) => Object.keys(s).length > 0);
}

/**
 * The answer to a request: the chosen example (pickExample), except that ingestion without a
 * `Prefer` choice acknowledges the events it was sent, each `201` under its own id, as the server
 * does: a batching client waits for its own ids, and the example's would never come.
 */
export function answerFor(operation: SpecOperation, choice: ExampleChoice, requestBody: unknown): MockAnswer {
  const batch = (requestBody as { batch?: unknown } | null)?.batch;
  if (operation.operationId === 'ingestion_batch' && !choice.example && choice.status === undefined && Array.isArray(batch)) {
    const ids = batch.flatMap((e) => (typeof (e as { id?: unknown })?.id === 'string' ? [(e as { id: string }).id] : []));
    return { status: 207, body: { successes: ids.map((id) => ({ id, status: 201 })), errors: [] }, contentType: 'application/json' };
  }
  return pickExample(operation, choice);
}
