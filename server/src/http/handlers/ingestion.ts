import type { IngestionError, IngestionResponse, IngestionSuccess } from '../../../../generated/client/types.gen.ts';
import { applyBatch, BatchContentionError } from '../../ingestion/pipeline.ts';
import { isUpdateEvent } from '../../domain/ingestion/merge.ts';
import { createEventValidator, type AcceptedEvent } from '../ingestion-events.ts';
import { ApiError } from '../errors.ts';
import { projectOf, type OperationHandler } from '../handler.ts';

const validateEvent = createEventValidator();

export const ingestionBatch: OperationHandler = async (ctx) => {
  const projectId = projectOf(ctx);
  const accepted: AcceptedEvent[] = [];
  const errors: IngestionError[] = [];
  for (const raw of ctx.body.batch as unknown[]) {
    const check = validateEvent(raw, ctx.mayHoldUnstorableText);
    if (!check.ok) errors.push({ id: check.id, status: 400, message: 'Invalid request data', error: check.issues });
    else if (check.event.type === 'sdk-log') ctx.log.info({ sdkLog: check.event.body.log }, 'sdk-log event');
    else accepted.push(check.event);
  }
  let warnings = new Map<string, string[]>();
  try {
    ({ warnings } = await applyBatch(ctx.em, ctx.services, projectId, accepted));
  } catch (e) {
    // The transaction rolled back: nothing was stored. A 207 with a 5xx per event would be read
    // as final by the SDKs, which drop such events; a 5xx for the request makes them send the
    // batch again, and replayed ids make that safe.
    if (e instanceof BatchContentionError) {
      ctx.log.warn({ err: e, events: accepted.length }, 'ingestion batch not applied: concurrent writes');
      const message = `The batch could not be applied because of concurrent writes to the same observations or traces; nothing of it was stored. Retry after ${e.retryAfterSeconds} s.`;
      return { status: 503, headers: { 'retry-after': String(e.retryAfterSeconds) }, body: { message, errors: [e.message] } };
    }
    ctx.log.error({ err: e, events: accepted.length }, 'ingestion batch failed');
    throw new ApiError(500, 'The batch could not be stored', undefined, { errors: ['The database failed and nothing of the batch was applied; send it again'] });
  }
  // Langfuse's order: creates by timestamp, then updates by timestamp
  const ordered = [...accepted].sort((a, b) => Number(isUpdateEvent(a.type)) - Number(isUpdateEvent(b.type)) || a.timestamp.getTime() - b.timestamp.getTime());
  const successes: IngestionSuccess[] = ordered.map((e) => (warnings.has(e.id) ? { id: e.id, status: 201, warnings: warnings.get(e.id) } : { id: e.id, status: 201 }));
  const body: IngestionResponse = { successes, errors };
  return { status: 207, body };
};
