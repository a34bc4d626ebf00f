// What an operation handler sees and returns. Handlers hold no HTTP plumbing: auth,
// request validation, error bodies and response validation happen around them.
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Logger } from '../logger.ts';
import type { Services } from '../app-context.ts';
import type { OperationId, Operations } from '../../../generated/operations.ts';

type Data<K extends OperationId> = Operations[K]['data'];
type Answers<K extends OperationId> = Operations[K]['responses'] & Operations[K]['errors'];

/**
 * Query parameters as they arrive: validated against the spec but not converted, so each is the
 * text the client sent; a parameter the spec declares as an array may come once (a string) or
 * repeated (strings).
 */
export type QueryText<Q> = { [P in keyof Q]?: NonNullable<Q[P]> extends readonly unknown[] ? string | string[] : string };
type PathText<P> = { [N in keyof P]-?: string };
type FieldsOf<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;

export interface HandlerContext<K extends OperationId = OperationId> {
  /** null only on operations without security (health) */
  projectId: string | null;
  /** the public key the request authenticated with (for audit records); null where projectId is */
  publicKey: string | null;
  em: SqlEntityManager;
  /** the body, validated against the operation's schema (an envelope-only operation's items are not) */
  body: Data<K> extends { body?: infer B } ? B : undefined;
  params: PathText<FieldsOf<Data<K>['path']>>;
  query: QueryText<FieldsOf<Data<K>['query']>>;
  log: Logger;
  services: Services;
  /** the body may hold text PostgreSQL cannot store (domain/unstorable-text.ts); checked already unless the operation validates items itself */
  mayHoldUnstorableText: boolean;
  /** aborted when the client goes away before the answer is complete */
  signal: AbortSignal;
}

/** sends one server-sent event */
export type EventSender = (event: string, data: unknown) => void;

/**
 * One of the answers the spec declares for the operation, with its status; or the same already
 * encoded in another media type the operation answers with (OTLP's protobuf, named by
 * content-type); or server-sent events (`stream`): status 200 and the headers are sent at once,
 * then `stream` writes the events and the response ends when it settles. A stream must not throw:
 * once it has begun, an error can only be told as an event.
 */
export type HandlerResult<K extends OperationId = OperationId> =
  | { [S in keyof Answers<K>]: { status: S; body: Answers<K>[S]; headers?: Record<string, string>; stream?: undefined } }[keyof Answers<K>]
  | { status: keyof Answers<K>; body: Buffer; headers: { 'content-type': string }; stream?: undefined }
  | { status: 200; body: null; headers?: Record<string, string>; stream: (send: EventSender) => Promise<void> };

export type OperationHandler<K extends OperationId> = (ctx: HandlerContext<K>) => Promise<HandlerResult<K>>;

/** every operation of the spec with its handler: a missing or unknown operationId fails the typecheck */
export type HandlerRegistry = { [K in OperationId]: OperationHandler<K> };

/** what the HTTP wrapper calls: any operation's handler, seen from outside */
export type AnyHandler = (ctx: HandlerContext) => Promise<{
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  stream?: (send: EventSender) => Promise<void>;
}>;

/** what a handler's helpers may use of its context: everything but the operation's own inputs */
export type RequestScope = Omit<HandlerContext, 'body' | 'params' | 'query'>;

export function projectOf(ctx: { projectId: string | null }): string {
  if (!ctx.projectId) throw new Error('operation requires an authenticated project');
  return ctx.projectId;
}

/** Page/limit from an already-validated query (page ≥ 1 default 1, limit 1..100 default 50). */
export function pagination(query: { page?: string; limit?: string }) {
  const page = query.page === undefined || query.page === '' ? 1 : Number(query.page);
  const limit = query.limit === undefined || query.limit === '' ? 50 : Number(query.limit);
  return { page, limit };
}

export function paginated<T>(data: T[], page: number, limit: number, totalItems: number) {
  return { data, meta: { page, limit, totalItems, totalPages: Math.ceil(totalItems / limit) } };
}
