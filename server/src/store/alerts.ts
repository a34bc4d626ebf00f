// Spend alerts at rest (migration 22): definitions with their encrypted webhook secret, each group's
// state, the deliveries with the body every retry sends, and the attempts (the delivery log). Due
// alerts and due deliveries are taken under a lease with FOR UPDATE SKIP LOCKED, so instances that
// share a database evaluate each alert, and send each delivery, once.
import type { AlertDefinition, AlertEvent, AlertState, GroupState } from '../domain/alerts/types.ts';
import { sql, type Db } from './sql.ts';

/** a definition as stored: the secret is the caller's encrypted text, not the secret */
export interface StoredAlert {
  projectId: string;
  definition: AlertDefinition;
  secretEncrypted: string;
  createdAt: Date;
  updatedAt: Date;
}

interface AlertRow {
  project_id: string;
  id: string;
  name: string;
  definition: Omit<AlertDefinition, 'id' | 'name' | 'enabled'>;
  webhook_secret: string;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const ALERT_COLUMNS = sql.raw('a.project_id, a.id, a.name, a.definition, a.webhook_secret, a.enabled, a.created_at, a.updated_at');

const fromRow = (r: AlertRow): StoredAlert => ({
  projectId: r.project_id,
  definition: { ...r.definition, id: r.id, name: r.name, enabled: r.enabled },
  secretEncrypted: r.webhook_secret,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

const stored = (a: AlertDefinition) => {
  const { id: _id, name: _name, enabled: _enabled, ...rest } = a;
  return JSON.stringify(rest);
};

/** a new alert, first due at `dueAt` (now: at the next tick) */
export async function insertAlert(
  db: Db,
  projectId: string,
  a: AlertDefinition,
  secretEncrypted: string,
  dueAt = new Date(),
): Promise<void> {
  await sql`insert into alerts (project_id, id, name, definition, webhook_secret, enabled, next_eval_at)
    values (${projectId}, ${a.id}, ${a.name}, ${stored(a)}::jsonb, ${secretEncrypted}, ${a.enabled}, ${dueAt})`.execute(db);
}

/** replaces a definition (null secret: the stored one stays); due at once; false when there is no such alert */
export async function updateAlert(db: Db, projectId: string, a: AlertDefinition, secretEncrypted: string | null): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`update alerts set name = ${a.name}, definition = ${stored(a)}::jsonb, enabled = ${a.enabled},
      webhook_secret = coalesce(${secretEncrypted}, webhook_secret), next_eval_at = now(), updated_at = now()
    where project_id = ${projectId} and id = ${a.id} returning id`.execute(db);
  return rows.length > 0;
}

export async function getAlert(db: Db, projectId: string, id: string): Promise<StoredAlert | null> {
  const { rows } = await sql<AlertRow>`select ${ALERT_COLUMNS} from alerts a where a.project_id = ${projectId} and a.id = ${id}`.execute(
    db,
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function listAlerts(
  db: Db,
  projectId: string,
  page: number,
  limit: number,
): Promise<{ alerts: StoredAlert[]; total: number }> {
  const { rows } = await sql<AlertRow & { total: string }>`select ${ALERT_COLUMNS}, count(*) over () as total from alerts a
    where a.project_id = ${projectId} order by a.created_at desc, a.id desc limit ${limit} offset ${(page - 1) * limit}`.execute(db);
  return { alerts: rows.map(fromRow), total: rows[0] ? Number(rows[0].total) : 0 };
}

/** an alert, its groups, deliveries and their log; false when there is no such alert */
export async function deleteAlert(db: Db, projectId: string, id: string): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`delete from alerts where project_id = ${projectId} and id = ${id} returning id`.execute(db);
  if (!rows.length) return false;
  await sql`delete from alert_groups where project_id = ${projectId} and alert_id = ${id}`.execute(db);
  await sql`delete from alert_delivery_attempts x using alert_deliveries d
    where x.project_id = ${projectId} and d.project_id = ${projectId} and d.alert_id = ${id} and x.delivery_id = d.id`.execute(db);
  await sql`delete from alert_deliveries where project_id = ${projectId} and alert_id = ${id}`.execute(db);
  return true;
}

/** up to `limit` enabled alerts due now, leased for `leaseMs` */
export async function takeDueAlerts(db: Db, now: Date, limit: number, leaseMs: number): Promise<StoredAlert[]> {
  const { rows } = await sql<AlertRow>`
    update alerts a set lease_until = ${now}::timestamptz + ${leaseMs} * interval '1 millisecond'
    from (select project_id as pid, id as aid from alerts
          where enabled and next_eval_at <= ${now} and (lease_until is null or lease_until < ${now})
          order by next_eval_at limit ${limit} for update skip locked) t
    where a.project_id = t.pid and a.id = t.aid
    returning ${ALERT_COLUMNS}`.execute(db);
  return rows.map(fromRow);
}

/** an alert's groups, by group, with when each was last evaluated */
export async function alertGroups(db: Db, projectId: string, alertId: string): Promise<(GroupState & { evaluatedAt: Date })[]> {
  const { rows } = await sql<{ grp: string; state: AlertState; value: number | null; since: Date; evaluated_at: Date }>`
    select grp, state, value, since, evaluated_at from alert_groups where project_id = ${projectId} and alert_id = ${alertId} order by grp`.execute(
    db,
  );
  return rows.map((r) => ({
    group: r.grp,
    state: r.state,
    value: r.value === null ? null : Number(r.value),
    since: new Date(r.since),
    evaluatedAt: new Date(r.evaluated_at),
  }));
}

export interface NewDelivery {
  id: string;
  group: string;
  event: AlertEvent;
  url: string;
  body: string;
}

/**
 * An evaluation's outcome, in the caller's transaction: the groups as they are now (the others
 * forgotten), the deliveries its transitions make, and when the alert is next due (its lease given back)
 */
export async function saveEvaluation(
  db: Db,
  projectId: string,
  alertId: string,
  groups: GroupState[],
  deliveries: NewDelivery[],
  now: Date,
  nextEvalAt: Date,
): Promise<void> {
  await sql`delete from alert_groups where project_id = ${projectId} and alert_id = ${alertId}
    and grp <> all(${groups.map((g) => g.group)}::text[])`.execute(db);
  if (groups.length)
    await sql`insert into alert_groups (project_id, alert_id, grp, state, value, since, evaluated_at)
      select ${projectId}, ${alertId}, g, s, v, t, ${now}
      from unnest(${groups.map((g) => g.group)}::text[], ${groups.map((g) => g.state)}::text[],
                  ${groups.map((g) => g.value)}::float8[], ${groups.map((g) => g.since)}::timestamptz[]) as x(g, s, v, t)
      on conflict (project_id, alert_id, grp) do update
        set state = excluded.state, value = excluded.value, since = excluded.since, evaluated_at = excluded.evaluated_at`.execute(db);
  if (deliveries.length)
    await sql`insert into alert_deliveries (project_id, id, alert_id, grp, event, url, body, next_at)
      select ${projectId}, i, ${alertId}, g, e, u, b, ${now}
      from unnest(${deliveries.map((d) => d.id)}::text[], ${deliveries.map((d) => d.group)}::text[], ${deliveries.map((d) => d.event)}::text[],
                  ${deliveries.map((d) => d.url)}::text[], ${deliveries.map((d) => d.body)}::text[]) as x(i, g, e, u, b)`.execute(db);
  await sql`update alerts set next_eval_at = ${nextEvalAt}, lease_until = null where project_id = ${projectId} and id = ${alertId}`.execute(
    db,
  );
}

export interface DueDelivery {
  projectId: string;
  id: string;
  alertId: string;
  url: string;
  body: string;
  attempts: number;
  secretEncrypted: string;
}

/** up to `limit` pending deliveries due now, leased for `leaseMs`, with their alert's encrypted secret */
export async function takeDueDeliveries(db: Db, now: Date, limit: number, leaseMs: number): Promise<DueDelivery[]> {
  const { rows } = await sql<{
    project_id: string;
    id: string;
    alert_id: string;
    url: string;
    body: string;
    attempts: number;
    webhook_secret: string;
  }>`
    with due as (
      update alert_deliveries d set lease_until = ${now}::timestamptz + ${leaseMs} * interval '1 millisecond'
      from (select project_id as pid, id as did from alert_deliveries
            where status = 'pending' and next_at <= ${now} and (lease_until is null or lease_until < ${now})
            order by next_at limit ${limit} for update skip locked) t
      where d.project_id = t.pid and d.id = t.did
      returning d.project_id, d.id, d.alert_id, d.url, d.body, d.attempts)
    select due.*, a.webhook_secret from due join alerts a on a.project_id = due.project_id and a.id = due.alert_id`.execute(db);
  return rows.map((r) => ({
    projectId: r.project_id,
    id: r.id,
    alertId: r.alert_id,
    url: r.url,
    body: r.body,
    attempts: Number(r.attempts),
    secretEncrypted: r.webhook_secret,
  }));
}

/** one attempt: logged; the delivery delivered, failed for good, or due again at `retryAt` */
export async function recordAttempt(
  db: Db,
  d: DueDelivery,
  outcome: { statusCode: number | null; error: string | null; status: 'delivered' | 'failed' | 'pending'; retryAt: Date | null },
): Promise<void> {
  const attempt = d.attempts + 1;
  await sql`insert into alert_delivery_attempts (project_id, delivery_id, attempt, status_code, error)
    values (${d.projectId}, ${d.id}, ${attempt}, ${outcome.statusCode}, ${outcome.error})`.execute(db);
  await sql`update alert_deliveries set attempts = ${attempt}, status = ${outcome.status}, lease_until = null,
      next_at = coalesce(${outcome.retryAt}::timestamptz, next_at)
    where project_id = ${d.projectId} and id = ${d.id}`.execute(db);
}

export interface DeliveryAttemptRow {
  deliveryId: string;
  group: string;
  event: AlertEvent;
  attempt: number;
  at: Date;
  statusCode: number | null;
  error: string | null;
}

/** the delivery log of one alert, newest first */
export async function deliveryLog(db: Db, projectId: string, alertId: string, limit = 100): Promise<DeliveryAttemptRow[]> {
  const { rows } = await sql<{
    id: string;
    grp: string;
    event: AlertEvent;
    attempt: number;
    at: Date;
    status_code: number | null;
    error: string | null;
  }>`
    select d.id, d.grp, d.event, x.attempt, x.at, x.status_code, x.error
    from alert_deliveries d join alert_delivery_attempts x on x.project_id = d.project_id and x.delivery_id = d.id
    where d.project_id = ${projectId} and d.alert_id = ${alertId}
    order by x.at desc, x.attempt desc limit ${limit}`.execute(db);
  return rows.map((r) => ({
    deliveryId: r.id,
    group: r.grp,
    event: r.event,
    attempt: Number(r.attempt),
    at: new Date(r.at),
    statusCode: r.status_code === null ? null : Number(r.status_code),
    error: r.error,
  }));
}
