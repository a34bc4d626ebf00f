// What an operation handler sees and returns. Handlers hold no HTTP plumbing: auth,
// request validation, error bodies and response validation happen around them.
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Logger } from '../logger.ts';
import type { Services } from '../app-context.ts';

export interface HandlerContext {
  /** null only on operations without security (health) */
  projectId: string | null;
  em: SqlEntityManager;
  body: any;
  params: Record<string, string>;
  query: Record<string, any>;
  log: Logger;
  services: Services;
  /** the body may hold text PostgreSQL cannot store (unstorable-text.ts); checked already unless the operation validates items itself */
  mayHoldUnstorableText: boolean;
  /** aborted when the client goes away before the answer is complete */
  signal: AbortSignal;
}

/** sends one server-sent event */
export type EventSender = (event: string, data: unknown) => void;

export interface HandlerResult {
  status: number;
  body: unknown;
  /** extra response headers (e.g. a Location) */
  headers?: Record<string, string>;
  /**
   * Answer as server-sent events instead of `body`: status 200 and the headers are sent at once,
   * then this writes the events; the response ends when it settles. It must not throw: once the
   * stream has begun, an error can only be told as an event.
   */
  stream?: (send: EventSender) => Promise<void>;
}

export type OperationHandler = (ctx: HandlerContext) => Promise<HandlerResult>;

export function projectOf(ctx: HandlerContext): string {
  if (!ctx.projectId) throw new Error('operation requires an authenticated project');
  return ctx.projectId;
}

/** Page/limit from an already-validated query (page ≥ 1 default 1, limit 1..100 default 50). */
export function pagination(query: Record<string, any>) {
  const page = query.page === undefined || query.page === '' ? 1 : Number(query.page);
  const limit = query.limit === undefined || query.limit === '' ? 50 : Number(query.limit);
  return { page, limit };
}

export function paginated<T>(data: T[], page: number, limit: number, totalItems: number) {
  return { data, meta: { page, limit, totalItems, totalPages: Math.ceil(totalItems / limit) } };
}
