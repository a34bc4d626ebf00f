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
