// The answer to a batch or export that met concurrent writes on every attempt: 503 with
// Retry-After, and nothing of it stored. A 207 with a 5xx per event would be read as final by the
// SDKs, which drop such events; a 5xx for the request makes them send it again, and replayed
// event ids make that safe. The ingestion endpoint's body carries `errors`, as Langfuse's does.
import type { BatchContentionError } from '../ingestion/pipeline.ts';

export function contentionAnswer(
  e: BatchContentionError,
  what: 'batch',
): { status: 503; headers: Record<string, string>; body: { message: string; errors: string[] } };
export function contentionAnswer(
  e: BatchContentionError,
  what: 'export',
): { status: 503; headers: Record<string, string>; body: { message: string; error: string } };
export function contentionAnswer(
  e: BatchContentionError,
  what: 'batch' | 'export',
): { status: 503; headers: Record<string, string>; body: { message: string; errors?: string[]; error?: string } } {
  const message =
    e.reason === 'archive'
      ? `The ${what} updates rows that PostgreSQL no longer holds, and ClickHouse, which keeps them, did not answer; nothing of it was stored. Retry after ${e.retryAfterSeconds} s.`
      : what === 'batch'
        ? `The batch could not be applied because of concurrent writes to the same observations or traces; nothing of it was stored. Retry after ${e.retryAfterSeconds} s.`
        : `The export could not be applied because of concurrent writes; nothing of it was stored. Retry after ${e.retryAfterSeconds} s.`;
  const body = what === 'batch' ? { message, errors: [e.message] } : { message, error: 'ServiceUnavailable' };
  return { status: 503 as const, headers: { 'retry-after': String(e.retryAfterSeconds) }, body };
}
