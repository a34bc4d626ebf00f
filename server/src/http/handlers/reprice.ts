// Reprice jobs (issue 25): started here, run by background/reprice-worker.ts, read back as their
// audit record.
import type { RepriceJob } from '../../../../generated/client/types.gen.ts';
import { newId } from '../../db/ids.ts';
import { createRepriceJob, getRepriceJob, listRepriceJobs, type RepriceJobRecord } from '../../store/reprice-jobs.ts';
import { kysely } from '../../store/sql.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { paginated, pagination, projectOf, type OperationHandler } from '../handler.ts';

const present = (j: RepriceJobRecord): RepriceJob => ({
  id: j.id,
  status: j.status,
  dryRun: j.dryRun,
  fromTimestamp: j.from.toISOString(),
  toTimestamp: j.to.toISOString(),
  modelIds: j.modelIds,
  requestedBy: j.requestedBy,
  createdAt: j.createdAt.toISOString(),
  startedAt: j.startedAt?.toISOString() ?? null,
  finishedAt: j.finishedAt?.toISOString() ?? null,
  generationsScanned: j.scanned,
  generationsChanged: j.changed,
  costBefore: j.costBefore,
  costAfter: j.costAfter,
  changes: j.changes,
  error: j.error,
});

export const modelsReprice: OperationHandler<'models_reprice'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const from = new Date(ctx.body.fromTimestamp);
  const to = new Date(ctx.body.toTimestamp);
  if (!(to > from)) throw invalidRequest('toTimestamp must be after fromTimestamp');
  const id = newId();
  await createRepriceJob(kysely(ctx.em), {
    projectId,
    id,
    dryRun: ctx.body.dryRun ?? false,
    from,
    to,
    modelIds: ctx.body.modelIds?.length ? [...new Set(ctx.body.modelIds)] : null,
    requestedBy: ctx.publicKey ?? 'unknown',
  });
  ctx.services.reprice?.jobCreated();
  return { status: 202, body: { id, status: 'queued' } };
};

export const modelsRepriceGet: OperationHandler<'models_repriceGet'> = async (ctx) => {
  const job = await getRepriceJob(kysely(ctx.em), projectOf(ctx), ctx.params.id);
  if (!job) throw notFound('Reprice job not found within authorized project');
  return { status: 200, body: present(job) };
};

export const modelsRepriceList: OperationHandler<'models_repriceList'> = async (ctx) => {
  const { page, limit } = pagination(ctx.query);
  const { jobs, total } = await listRepriceJobs(kysely(ctx.em), projectOf(ctx), page, limit);
  return { status: 200, body: paginated(jobs.map(present), page, limit, total) };
};
