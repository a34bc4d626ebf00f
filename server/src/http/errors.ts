// Errors a handler may throw; the app turns each into the Langfuse-style JSON body.
import type { ValidationIssue as Issue } from '../../../generated/client/types.gen.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly body: { message: string; error?: string | Issue[]; [extra: string]: unknown };
  constructor(status: number, message: string, error?: string | Issue[], extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.body = error === undefined ? { message, ...extra } : { message, error, ...extra };
  }
}

export const invalidRequest = (message: string) => new ApiError(400, message, 'InvalidRequestError');
export const invalidData = (issues: Issue[]) => new ApiError(400, 'Invalid request data', issues);
export const notFound = (message: string) => new ApiError(404, message, 'LangfuseNotFoundError');
export const unauthorized = (message: string) => new ApiError(401, message);

/** an error of the unstable endpoints' envelope `{message, code, details?}` (the spec's UnstableError) */
export const unstableError = (status: number, code: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(status, message, undefined, details === undefined ? { code } : { code, details });

const UNSTABLE_CODE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'authentication_failed',
  403: 'access_denied',
  404: 'resource_not_found',
  405: 'method_not_allowed',
  409: 'conflict',
};

/** the unstable endpoints (evaluators, evaluation rules) answer every error in their own envelope */
export const isUnstablePath = (path: string) => path.startsWith('/api/public/unstable/');

/** any error body in the unstable envelope: one that has a `code` is kept, others get the code of their status */
export function toUnstableBody(status: number, body: { message: string; error?: unknown; code?: string; details?: unknown }) {
  if (typeof body.code === 'string') return body;
  if (Array.isArray(body.error)) return { message: 'Invalid request data', code: 'invalid_request', details: { issues: body.error } };
  if (status >= 500) return { message: 'Internal Server Error', code: 'internal_error' };
  return { message: body.message, code: UNSTABLE_CODE_BY_STATUS[status] ?? 'invalid_request' };
}

/** what an error handed to Express may carry (body-parser's, http/body.ts's) */
export type ExpressError = { type?: string; status?: number; message: string; retryAfterSeconds?: number } | undefined;
