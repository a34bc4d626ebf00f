import type { IngestionError, IngestionResponse, IngestionSuccess } from '../../../../generated/client/types.gen.ts';
import { applyBatch } from '../../ingestion/pipeline.ts';
import { isUpdateEvent } from '../../domain/ingestion/merge.ts';
import { createEventValidator, type AcceptedEvent } from '../ingestion-events.ts';
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
    ctx.log.error({ err: e, events: accepted.length }, 'ingestion batch failed');
    for (const ev of accepted) errors.push({ id: ev.id, status: 500, error: 'Internal Server Error' });
    accepted.length = 0;
  }
  // Langfuse's order: creates by timestamp, then updates by timestamp
  const ordered = [...accepted].sort((a, b) => Number(isUpdateEvent(a.type)) - Number(isUpdateEvent(b.type)) || a.timestamp.getTime() - b.timestamp.getTime());
  const successes: IngestionSuccess[] = ordered.map((e) => (warnings.has(e.id) ? { id: e.id, status: 201, warnings: warnings.get(e.id) } : { id: e.id, status: 201 }));
  const body: IngestionResponse = { successes, errors };
  return { status: 207, body };
};
