import { getObservation, listObservations, observationsOfTrace } from '../../store/observations.ts';
import { kysely } from '../../store/sql.ts';
import { getTrace } from '../../store/traces.ts';
import { checkFilters, OBSERVATION_FILTER_COLUMNS, type CheckedFilter } from '../../domain/filters/check.ts';
import { componentValidators } from '../openapi.ts';
import { readJsonParam } from '../json-param.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { paginated, pagination, projectOf, type OperationHandler } from '../handler.ts';
import { presentObservation, presentTrace } from '../present/observation.ts';

export const observationsGet: OperationHandler<'observations_get'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const id = ctx.params.observationId;
  // past PostgreSQL's retention, the row lives on in ClickHouse
  const o =
    (await getObservation(kysely(ctx.em), projectId, id)) ?? (await ctx.services.analytics?.archive?.observations(projectId, [id]))?.[0];
  if (!o) throw notFound('Observation not found within authorized project');
  return { status: 200, body: presentObservation(o, projectId) };
};

const validateFilters = componentValidators()('FilterList');

/** the `filter` query parameter: URL-encoded JSON, shape from the spec, columns checked by the domain */
function parseFilterParam(raw: unknown): CheckedFilter[] {
  if (raw === undefined || raw === '') return [];
  const parsed = readJsonParam(raw, 'filter', validateFilters);
  const check = checkFilters(parsed as never, OBSERVATION_FILTER_COLUMNS);
  if (!check.ok) throw invalidRequest(check.message);
  return check.filters;
}

export const observationsList: OperationHandler<'observations_getMany'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const { page, limit } = pagination(ctx.query);
  const q = ctx.query;
  const env = q.environment === undefined ? undefined : ([] as string[]).concat(q.environment);
  const filter = {
    type: q.type,
    name: q.name,
    userId: q.userId,
    level: q.level,
    traceId: q.traceId,
    version: q.version,
    parentObservationId: q.parentObservationId,
    environment: env,
    fromStartTime: q.fromStartTime ? new Date(q.fromStartTime) : undefined,
    toStartTime: q.toStartTime ? new Date(q.toStartTime) : undefined,
    filters: parseFilterParam(q.filter),
  };
  // a window reaching past PostgreSQL's retention is answered from ClickHouse, which holds every row
  const archive = ctx.services.analytics?.archive;
  const reachesPast =
    archive && (!filter.fromStartTime || filter.fromStartTime.getTime() < Date.now() - archive.retentionDays * 86_400_000);
  const { observations, total } = reachesPast
    ? await archive.listObservations(projectId, filter, page, limit)
    : await listObservations(kysely(ctx.em), projectId, filter, page, limit);
  return {
    status: 200,
    body: paginated(
      observations.map((o) => presentObservation(o, projectId)),
      page,
      limit,
      total,
    ),
  };
};

export const traceGet: OperationHandler<'trace_get'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const db = kysely(ctx.em);
  const t = await getTrace(db, projectId, ctx.params.traceId);
  if (t) return { status: 200, body: presentTrace(t, await observationsOfTrace(db, projectId, t.id), projectId) };
  // past PostgreSQL's retention, the trace and its observations live on in ClickHouse
  const archive = ctx.services.analytics?.archive;
  const archived = archive ? (await archive.traces(projectId, [ctx.params.traceId]))[0] : undefined;
  if (!archive || !archived) throw notFound('Trace not found within authorized project');
  return { status: 200, body: presentTrace(archived, await archive.observationsOfTrace(projectId, archived.id), projectId) };
};
