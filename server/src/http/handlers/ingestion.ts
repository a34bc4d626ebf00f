// POST /api/public/ingestion: Langfuse's batch endpoint, through the one ingestion entry point.
import type { IngestionError, IngestionResponse, IngestionSuccess } from '../../../../generated/client/types.gen.ts';
import { ingest } from '../../ingestion/ingest.ts';
import { BatchContentionError } from '../../ingestion/pipeline.ts';
import { contentionAnswer } from '../contention.ts';
import { ApiError } from '../errors.ts';
import { projectOf, type OperationHandler } from '../handler.ts';

const eventId = (raw: unknown) =>
  raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : 'unknown';

export const ingestionBatch: OperationHandler<'ingestion_batch'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const units = (ctx.body.batch as unknown[]).map((raw) => ({ id: eventId(raw), events: [raw] }));
  let outcome: Awaited<ReturnType<typeof ingest>>;
  try {
    outcome = await ingest(ctx.em, ctx.services, projectId, units, { source: 'batch', checkText: ctx.mayHoldUnstorableText });
  } catch (e) {
    if (e instanceof BatchContentionError) {
      ctx.log.warn({ err: e, events: units.length }, 'ingestion batch not applied: concurrent writes');
      return contentionAnswer(e, 'batch');
    }
    ctx.log.error({ err: e, events: units.length }, 'ingestion batch failed');
    throw new ApiError(500, 'The batch could not be stored', undefined, {
      errors: ['The database failed and nothing of the batch was applied; send it again'],
    });
  }
  for (const log of outcome.sdkLogs) ctx.log.info({ sdkLog: log }, 'sdk-log event');
  const errors: IngestionError[] = outcome.rejected.map((r) => ({
    id: r.id,
    status: 400,
    message: 'Invalid request data',
    error: r.issues,
  }));
  const successes: IngestionSuccess[] = outcome.accepted.map((e) =>
    outcome.warnings.has(e.id) ? { id: e.id, status: 201, warnings: outcome.warnings.get(e.id) } : { id: e.id, status: 201 },
  );
  const body: IngestionResponse = { successes, errors };
  return { status: 207, body };
};
