// Spend alerts (issue 26): defined here, evaluated and delivered by background/alert-worker.ts.
import type { Alert, AlertRequest } from '../../../../generated/client/types.gen.ts';
import { newId } from '../../db/ids.ts';
import { alertProblems, alertQuery } from '../../domain/alerts/query.ts';
import type { AlertDefinition } from '../../domain/alerts/types.ts';
import { encryptSecret } from '../../domain/llm-connections/secret-box.ts';
import { MetricsQueryError, prepareMetrics } from '../../domain/metrics/index.ts';
import { baseUrlRefusal } from '../../egress/egress.ts';
import {
  alertGroups,
  deleteAlert,
  deliveryLog,
  getAlert,
  insertAlert,
  listAlerts,
  type StoredAlert,
  updateAlert,
} from '../../store/alerts.ts';
import { type Db, kysely } from '../../store/sql.ts';
import { ApiError, invalidRequest, notFound } from '../errors.ts';
import { paginated, pagination, projectOf, type HandlerContext, type OperationHandler } from '../handler.ts';

const NOT_FOUND = 'Alert not found within authorized project';
const NO_KEY =
  'Alerts cannot be stored: their webhook secret is encrypted with ENCRYPTION_KEY (64 hex characters, `openssl rand -hex 32`); set it and restart Tally';

/** the body as the domain's definition, after every check the wire shape cannot make */
async function definitionOf(
  ctx: Pick<HandlerContext, 'services'>,
  projectId: string,
  id: string,
  body: AlertRequest,
): Promise<AlertDefinition> {
  if ((body.windowMinutes === undefined) === !body.calendarMonth)
    throw invalidRequest('give either windowMinutes (a rolling window) or calendarMonth: true');
  const def: AlertDefinition = {
    id,
    name: body.name,
    query: { view: body.query.view, metric: body.query.metric, filters: (body.query.filters ?? []) as Record<string, unknown>[] },
    groupBy: body.groupBy ? { field: body.groupBy.field, topN: body.groupBy.topN ?? 100 } : null,
    window: body.windowMinutes !== undefined ? { kind: 'rolling', minutes: body.windowMinutes } : { kind: 'calendarMonth' },
    condition: { operator: body.condition.operator, warning: body.condition.warning ?? null, alert: body.condition.alert },
    baseline: body.baseline ?? false,
    noData: body.noData ?? 'ok',
    intervalSeconds: body.intervalSeconds ?? 300,
    webhook: { url: body.webhook.url, format: body.webhook.format ?? 'json' },
    enabled: body.enabled ?? true,
  };
  const problems = alertProblems(def, ctx.services.alerts.minIntervalSeconds);
  if (problems.length) throw invalidRequest(problems.join('; '));
  // the engine's own checks (view, measure, aggregation, filters), on the query it will run
  try {
    const now = new Date();
    prepareMetrics(alertQuery(def, { from: new Date(now.getTime() - 3_600_000), to: now }), projectId, { version: 'v2' });
  } catch (e) {
    if (e instanceof MetricsQueryError) throw invalidRequest(`query: ${e.message}`);
    throw e;
  }
  const refused = await baseUrlRefusal(def.webhook.url, ctx.services.egress);
  if (refused) throw invalidRequest(`Invalid webhook.url: ${refused}`);
  return def;
}

async function present(db: Db, a: StoredAlert): Promise<Alert> {
  const d = a.definition;
  const groups = await alertGroups(db, a.projectId, d.id);
  return {
    id: d.id,
    name: d.name,
    query: d.query as Alert['query'],
    groupBy: d.groupBy,
    windowMinutes: d.window.kind === 'rolling' ? d.window.minutes : null,
    calendarMonth: d.window.kind === 'calendarMonth',
    condition: d.condition,
    baseline: d.baseline,
    noData: d.noData,
    intervalSeconds: d.intervalSeconds,
    webhook: { url: d.webhook.url, format: d.webhook.format },
    enabled: d.enabled,
    groups: groups.map((g) => ({
      group: g.group,
      state: g.state,
      value: g.value,
      since: g.since.toISOString(),
      evaluatedAt: g.evaluatedAt.toISOString(),
    })),
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

function encrypted(ctx: Pick<HandlerContext, 'services'>, secret: string): string {
  if (!ctx.services.keyring.current) throw new ApiError(503, NO_KEY, 'EncryptionKeyMissingError');
  return encryptSecret(ctx.services.keyring, secret);
}

export const alertsCreate: OperationHandler<'alerts_create'> = async (ctx) => {
  const projectId = projectOf(ctx);
  if (ctx.body.webhook.secret === undefined) throw invalidRequest('webhook.secret is required: it signs every delivery');
  const def = await definitionOf(ctx, projectId, newId(), ctx.body);
  const db = kysely(ctx.em);
  await insertAlert(db, projectId, def, encrypted(ctx, ctx.body.webhook.secret));
  return { status: 201, body: await present(db, (await getAlert(db, projectId, def.id))!) };
};

export const alertsList: OperationHandler<'alerts_list'> = async (ctx) => {
  const { page, limit } = pagination(ctx.query);
  const db = kysely(ctx.em);
  const { alerts, total } = await listAlerts(db, projectOf(ctx), page, limit);
  return { status: 200, body: paginated(await Promise.all(alerts.map((a) => present(db, a))), page, limit, total) };
};

export const alertsGet: OperationHandler<'alerts_get'> = async (ctx) => {
  const db = kysely(ctx.em);
  const a = await getAlert(db, projectOf(ctx), ctx.params.id);
  if (!a) throw notFound(NOT_FOUND);
  return { status: 200, body: await present(db, a) };
};

export const alertsUpdate: OperationHandler<'alerts_update'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const db = kysely(ctx.em);
  if (!(await getAlert(db, projectId, ctx.params.id))) throw notFound(NOT_FOUND);
  const def = await definitionOf(ctx, projectId, ctx.params.id, ctx.body);
  const secret = ctx.body.webhook.secret === undefined ? null : encrypted(ctx, ctx.body.webhook.secret);
  if (!(await updateAlert(db, projectId, def, secret))) throw notFound(NOT_FOUND);
  return { status: 200, body: await present(db, (await getAlert(db, projectId, def.id))!) };
};

export const alertsDelete: OperationHandler<'alerts_delete'> = async (ctx) => {
  const deleted = await ctx.em.transactional((em) => deleteAlert(kysely(em), projectOf(ctx), ctx.params.id));
  if (!deleted) throw notFound(NOT_FOUND);
  return { status: 200, body: { message: 'Alert successfully deleted' } };
};

export const alertsDeliveries: OperationHandler<'alerts_deliveries'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const db = kysely(ctx.em);
  if (!(await getAlert(db, projectId, ctx.params.id))) throw notFound(NOT_FOUND);
  const log = await deliveryLog(db, projectId, ctx.params.id, pagination(ctx.query).limit);
  return {
    status: 200,
    body: { data: log.map((l) => ({ ...l, at: l.at.toISOString() })) },
  };
};
