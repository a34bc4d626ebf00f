// The public Scores API: create (Basic or Bearer public key), v1 and
// v2 lists and gets, delete. Scores written here share the table with ingestion's score-create
// events and evaluator scores.
import { randomUUID } from 'node:crypto';
import { normaliseEnvironment } from '../../domain/ingestion/environment.ts';
import { inferDataType, storedValues, type ScoreDataType } from '../../domain/scores/data-type.ts';
import { scoreCreateIssues, type ScoreCreateInput } from '../../domain/scores/validate.ts';
import { deleteScore, getScore, listScores, putScore, type ScoreFilter, type ScoreOperator } from '../../store/scores.ts';
import { queueChange } from '../../store/analytics-changes.ts';
import { kysely } from '../../store/sql.ts';
import { invalidData, invalidRequest, notFound } from '../errors.ts';
import { type HandlerContext, paginated, pagination, projectOf, type OperationHandler, type RequestScope } from '../handler.ts';
import { presentScore, presentScoreV1 } from '../present/score.ts';

/** POST: shape and types are checked against the spec before this runs; the cross-field rules here */
export const scoresCreate: OperationHandler<'scores_create'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const b = ctx.body as ScoreCreateInput & {
    id?: string | null;
    comment?: string | null;
    environment?: string | null;
    queueId?: string | null;
  };
  const issues = scoreCreateIssues(b);
  if (issues.length) throw invalidData(issues);
  const dataType = inferDataType(b.value, b.dataType);
  const id = b.id || randomUUID();
  await putScore(kysely(ctx.em), projectId, {
    id,
    timestamp: new Date(),
    name: b.name,
    ...storedValues(b.value, dataType),
    dataType,
    source: b.source ?? 'API',
    traceId: b.traceId || null,
    observationId: b.observationId || null,
    sessionId: b.sessionId || null,
    datasetRunId: b.datasetRunId || null,
    configId: b.configId || null,
    comment: b.comment ?? null,
    metadata: b.metadata ?? null,
    environment: normaliseEnvironment(b.environment ?? undefined),
    queueId: b.queueId || null,
    executionTraceId: null,
  });
  return { status: 200, body: { id } };
};

const list = (v: unknown): string[] | undefined =>
  v === undefined || v === '' ? undefined : ([] as string[]).concat(v as string | string[]);
const commaList = (v: unknown): string[] | undefined => {
  if (typeof v !== 'string' || v === '') return undefined;
  const items = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
};

/** Langfuse's generic `filter` list: malformed JSON is refused as Langfuse does; Tally applies none */
function checkGenericFilter(raw: unknown) {
  if (raw === undefined || raw === '') return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(raw));
  } catch {
    throw invalidRequest('Invalid JSON in filter parameter');
  }
  if (!Array.isArray(parsed) || parsed.length)
    throw invalidRequest(
      'The filter parameter is not supported by Tally beyond an empty list; use the dedicated query parameters (name, source, dataType, value with operator, ...)',
    );
}

function filterOf(q: HandlerContext<'scores_list'>['query'] & HandlerContext<'scoresV2_list'>['query']): ScoreFilter {
  checkGenericFilter(q.filter);
  const f: ScoreFilter = {
    ids: commaList(q.scoreIds),
    userId: q.userId || undefined,
    name: q.name || undefined,
    configId: q.configId || undefined,
    queueId: q.queueId || undefined,
    dataTypes: q.dataType ? [q.dataType as ScoreDataType] : undefined,
    source: q.source || undefined,
    traceTags: list(q.traceTags),
    environment: list(q.environment),
    fromTimestamp: q.fromTimestamp ? new Date(q.fromTimestamp) : undefined,
    toTimestamp: q.toTimestamp ? new Date(q.toTimestamp) : undefined,
  };
  if (q.operator && q.value !== undefined && q.value !== '') f.value = { operator: q.operator as ScoreOperator, value: Number(q.value) };
  return f;
}

/** a window reaching past PostgreSQL's retention (or none) is answered from ClickHouse, which holds every score */
function scoresOf(ctx: RequestScope, projectId: string, f: ScoreFilter, page: number, limit: number) {
  const archive = ctx.services.analytics?.archive;
  const reachesPast = archive && (!f.fromTimestamp || f.fromTimestamp.getTime() < Date.now() - archive.retentionDays * 86_400_000);
  return reachesPast ? archive.listScores(projectId, f, page, limit) : listScores(kysely(ctx.em), projectId, f, page, limit);
}

const V1_TYPES: ScoreDataType[] = ['NUMERIC', 'CATEGORICAL', 'BOOLEAN', 'TEXT'];

export const scoresList: OperationHandler<'scores_list'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const { page, limit } = pagination(ctx.query);
  const f = filterOf(ctx.query);
  // v1: scores of a trace, of the four types it knows
  f.traceOnly = true;
  f.dataTypes = f.dataTypes ? f.dataTypes.filter((t) => V1_TYPES.includes(t)) : V1_TYPES;
  if (!f.dataTypes.length) return { status: 200, body: paginated([], page, limit, 0) };
  const { scores, total } = await scoresOf(ctx, projectId, f, page, limit);
  return {
    status: 200,
    body: paginated(
      scores.map((s) => presentScoreV1(s, projectId)),
      page,
      limit,
      total,
    ),
  };
};

const FIELDS = ['score', 'trace'];

export const scoresV2List: OperationHandler<'scoresV2_list'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const q = ctx.query;
  const { page, limit } = pagination(q);
  const fields =
    q.fields === undefined || q.fields === ''
      ? FIELDS
      : String(q.fields)
          .split(',')
          .map((s) => s.trim())
          .filter((s) => FIELDS.includes(s));
  if (!fields.includes('score')) throw invalidRequest('Scores needs to be selected always.');
  const withTrace = fields.includes('trace');
  if (!withTrace && (q.userId || list(q.traceTags)?.length)) {
    throw invalidRequest(
      "Cannot filter by trace properties (userId, traceTags) when 'trace' field is not included. Please add 'trace' to the fields parameter or remove trace filters.",
    );
  }
  const f = filterOf(q);
  Object.assign(f, {
    sessionIds: commaList(q.sessionId),
    traceIds: commaList(q.traceId),
    datasetRunIds: commaList(q.datasetRunId),
    observationIds: commaList(q.observationId),
  });
  const { scores, total } = await scoresOf(ctx, projectId, f, page, limit);
  return {
    status: 200,
    body: paginated(
      scores.map((s) => presentScore(s, projectId, withTrace)),
      page,
      limit,
      total,
    ),
  };
};

export const scoresGet: OperationHandler<'scores_get'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const s =
    (await getScore(kysely(ctx.em), projectId, ctx.params.scoreId)) ??
    (await ctx.services.analytics?.archive?.score(projectId, ctx.params.scoreId));
  if (!s?.traceId || s.dataType === 'CORRECTION') throw notFound('Score not found');
  return { status: 200, body: presentScoreV1(s, projectId) };
};

export const scoresV2Get: OperationHandler<'scoresV2_get'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const s =
    (await getScore(kysely(ctx.em), projectId, ctx.params.scoreId)) ??
    (await ctx.services.analytics?.archive?.score(projectId, ctx.params.scoreId));
  if (!s) throw notFound('Score not found');
  return { status: 200, body: presentScore(s, projectId) };
};

export const scoresDelete: OperationHandler<'scores_delete'> = async (ctx) => {
  const projectId = projectOf(ctx);
  await deleteScore(kysely(ctx.em), projectId, ctx.params.scoreId);
  // a score past PostgreSQL's retention has no row there for the feed to see deleted: queue its deletion
  if (ctx.services.analytics?.archive) await queueChange(kysely(ctx.em), 's', projectId, ctx.params.scoreId);
  return { status: 202, body: { message: 'Score deletion queued successfully' } };
};
