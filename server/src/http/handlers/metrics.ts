// GET /api/public/v2/metrics, /api/public/metrics (v1) and /api/public/v2/metrics/schema.
import type { DailyMetrics, MetricsResponse, MetricsSchemaResponse } from '../../../../generated/client/types.gen.ts';
import {
  dailyMetrics,
  dailyQueries,
  MetricsQueryError,
  prepareInternal,
  prepareMetrics,
  type EngineOptions,
  type MetricsQueryInput,
  type Row,
} from '../../domain/metrics/index.ts';
import { answerMetrics, type Prepare } from '../../store/metrics-answer.ts';
import { metricsSchema } from '../../domain/metrics/schema.ts';
import { componentValidators } from '../openapi.ts';
import { readJsonParam } from '../json-param.ts';
import { ApiError, invalidRequest } from '../errors.ts';
import { paginated, pagination, projectOf, type HandlerContext, type OperationHandler } from '../handler.ts';

const schemas = componentValidators();
const validators = { v2: schemas('MetricsQuery'), v1: schemas('MetricsQueryV1') };

/** the `query` parameter: URL-encoded JSON of the spec's query object */
function readQuery(raw: unknown, version: EngineOptions['version']): MetricsQueryInput {
  return readJsonParam(raw, 'query', validators[version]) as MetricsQueryInput;
}

/**
 * The shaped rows of one query, from ClickHouse when it is configured (TALLY_CLICKHOUSE_URL: the
 * same plan in its dialect, run by analytics/metrics.ts), else from PostgreSQL
 */
function answer(ctx: Pick<HandlerContext, 'em' | 'services' | 'log'>, prepare: Prepare): Promise<Row[]> {
  return answerMetrics(ctx.em, ctx.services, prepare, (e, archive) => {
    // past PostgreSQL's retention only ClickHouse holds every row: no silent partial answer
    if (archive) throw new ApiError(503, 'The analytics store (ClickHouse) did not answer; retry shortly', 'ServiceUnavailable');
    // PostgreSQL holds every row: answer from it rather than fail
    ctx.log.warn({ err: e }, 'metrics: ClickHouse did not answer; answered from PostgreSQL');
  });
}

async function run(
  ctx: HandlerContext<'metrics_v2'> | HandlerContext<'metrics_v1'>,
  version: EngineOptions['version'],
): Promise<{ status: 200; body: MetricsResponse }> {
  const projectId = projectOf(ctx);
  const input = readQuery(ctx.query.query, version);
  let rows: Row[];
  try {
    rows = await answer(ctx, (dialect) => prepareMetrics(input, projectId, { version }, dialect));
  } catch (e) {
    if (e instanceof MetricsQueryError) throw invalidRequest(e.message);
    throw e;
  }
  const body: MetricsResponse = { data: rows as MetricsResponse['data'] };
  return { status: 200 as const, body };
}

export const metricsV2: OperationHandler<'metrics_v2'> = (ctx) => run(ctx, 'v2');
export const metricsV1: OperationHandler<'metrics_v1'> = (ctx) => run(ctx, 'v1');
export const metricsV2Schema: OperationHandler<'metrics_v2Schema'> = async () => ({
  status: 200,
  body: metricsSchema() satisfies MetricsSchemaResponse,
});

const asList = (v: unknown) => (v === undefined ? undefined : ([] as string[]).concat(v as string | string[]));

export const metricsDaily: OperationHandler<'metrics_daily'> = async (ctx) => {
  const { page, limit } = pagination(ctx.query);
  const q = ctx.query;
  const projectId = projectOf(ctx);
  // two queries through the metrics engine: the matching traces per day, their observations per day and model
  const queries = dailyQueries({
    traceName: q.traceName,
    userId: q.userId,
    tags: asList(q.tags),
    environments: asList(q.environment),
    from: q.fromTimestamp ? new Date(q.fromTimestamp) : undefined,
    to: q.toTimestamp ? new Date(q.toTimestamp) : undefined,
  });
  const rowsOf = (input: (typeof queries)['traces']) => answer(ctx, (dialect) => prepareInternal(input, projectId, dialect));
  const days = dailyMetrics(await rowsOf(queries.traces), await rowsOf(queries.observations));
  const body: DailyMetrics = paginated(days.slice((page - 1) * limit, page * limit), page, limit, days.length);
  return { status: 200, body };
};
