// GET /api/public/v2/metrics, /api/public/metrics (v1) and /api/public/v2/metrics/schema.
import type { DailyMetrics, MetricsResponse, MetricsSchemaResponse } from '../../../../generated/client/types.gen.ts';
import { MetricsQueryError, prepareMetrics, shape, type EngineOptions, type MetricsQueryInput } from '../../domain/metrics/index.ts';
import { metricsSchema } from '../../domain/metrics/schema.ts';
import { dailyMetrics } from '../../store/daily-metrics.ts';
import { executeMetrics } from '../../store/metrics.ts';
import { kysely } from '../../store/sql.ts';
import { findTooDeep } from '../json-depth.ts';
import { componentValidators } from '../openapi.ts';
import { findUnstorableText } from '../unstorable-text.ts';
import { invalidData, invalidRequest } from '../errors.ts';
import { paginated, pagination, projectOf, type HandlerContext, type OperationHandler } from '../handler.ts';
import { issuesFromAjv } from '../validation-issues.ts';

const schemas = componentValidators();
const validators = { v2: schemas('MetricsQuery'), v1: schemas('MetricsQueryV1') };

/** the `query` parameter: URL-encoded JSON of the spec's query object */
function readQuery(raw: unknown, version: EngineOptions['version']): MetricsQueryInput {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(raw));
  } catch {
    throw invalidRequest('Invalid JSON in query parameter');
  }
  const unreadable = findTooDeep(parsed, ['query']) ?? findUnstorableText(parsed, ['query']);
  if (unreadable) throw invalidData([unreadable]);
  const validate = validators[version];
  // issue paths start at `query`, as Langfuse's (["query", "config", "row_limit"])
  if (!validate(parsed)) throw invalidData(issuesFromAjv((validate.errors ?? []).map((e) => ({ ...e, instancePath: '/x/query' + e.instancePath }))));
  return parsed as MetricsQueryInput;
}

async function run(ctx: HandlerContext, version: EngineOptions['version']) {
  const projectId = projectOf(ctx);
  const input = readQuery(ctx.query.query, version);
  let prepared;
  try {
    prepared = prepareMetrics(input, projectId, { version });
  } catch (e) {
    if (e instanceof MetricsQueryError) throw invalidRequest(e.message);
    throw e;
  }
  const { rows, histograms } = await executeMetrics(kysely(ctx.em), prepared.compiled);
  const body: MetricsResponse = { data: shape(prepared.plan, rows, histograms) as MetricsResponse['data'] };
  return { status: 200, body };
}

export const metricsV2: OperationHandler = (ctx) => run(ctx, 'v2');
export const metricsV1: OperationHandler = (ctx) => run(ctx, 'v1');
export const metricsV2Schema: OperationHandler = async () => ({ status: 200, body: metricsSchema() satisfies MetricsSchemaResponse });

const asList = (v: unknown) => (v === undefined ? undefined : ([] as string[]).concat(v as string | string[]));

export const metricsDaily: OperationHandler = async (ctx) => {
  const { page, limit } = pagination(ctx.query);
  const q = ctx.query;
  const days = await dailyMetrics(kysely(ctx.em), projectOf(ctx), {
    traceName: q.traceName, userId: q.userId, tags: asList(q.tags), environments: asList(q.environment),
    from: q.fromTimestamp ? new Date(q.fromTimestamp) : undefined, to: q.toTimestamp ? new Date(q.toTimestamp) : undefined,
  });
  const body: DailyMetrics = paginated(days.slice((page - 1) * limit, page * limit), page, limit, days.length);
  return { status: 200, body };
};
