// Evaluates spend alerts and sends their webhooks (issue 26). Each tick takes the alerts that are
// due (under a lease: instances on one database evaluate each once), measures each with the
// metrics engine (ClickHouse when configured, else PostgreSQL and its roll-ups), moves each group's
// state and records, in the same transaction, a delivery per transition with the exact body; then
// sends the deliveries that are due, signed (X-Tally-Signature), through the egress policy of LLM
// connections, retrying a failure with backoff and the same body, and logging every attempt.
import type { Services } from '../app-context.ts';
import type { Database } from '../db/orm.ts';
import { newId } from '../db/ids.ts';
import { answerMetrics } from '../store/metrics-answer.ts';
import { backoffMs } from '../domain/backoff.ts';
import { alertQuery, groupValues } from '../domain/alerts/query.ts';
import { evaluateGroups } from '../domain/alerts/state.ts';
import type { AlertDefinition } from '../domain/alerts/types.ts';
import { SIGNATURE_HEADER, signature, webhookBody, webhookPayload } from '../domain/alerts/webhook.ts';
import { alertWindow, baselineWindow, type TimeWindow } from '../domain/alerts/window.ts';
import { decryptSecret } from '../domain/llm-connections/secret-box.ts';
import { prepareMetrics, type Row } from '../domain/metrics/index.ts';
import { egressFetch } from '../egress/egress-fetch.ts';
import type { Logger } from '../logger.ts';
import {
  alertGroups,
  type DueDelivery,
  recordAttempt,
  saveEvaluation,
  type StoredAlert,
  takeDueAlerts,
  takeDueDeliveries,
} from '../store/alerts.ts';
import { kysely } from '../store/sql.ts';

export interface AlertWorkerOptions {
  /** how often due alerts and deliveries are looked for */
  tickMs?: number;
  /** how long an alert or a delivery stays with the instance that took it */
  leaseMs?: number;
  /** attempts before a delivery is given up */
  maxAttempts?: number;
  /** the first retry's delay (each further one doubles, at most an hour) */
  retryBaseMs?: number;
  /** a webhook's answer time limit */
  timeoutMs?: number;
  /** tests: the clock */
  now?: () => Date;
}

const BATCH = 20;

export class AlertWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly fetch: typeof fetch;
  private readonly opts: Required<Omit<AlertWorkerOptions, 'now'>> & { now: () => Date };

  private readonly db: Database;
  private readonly services: Services;
  private readonly log: Logger;

  constructor(db: Database, services: Services, log: Logger, opts: AlertWorkerOptions = {}) {
    this.db = db;
    this.services = services;
    this.log = log;
    this.fetch = egressFetch(services.egress);
    this.opts = {
      tickMs: opts.tickMs ?? 5_000,
      leaseMs: opts.leaseMs ?? 60_000,
      maxAttempts: opts.maxAttempts ?? 8,
      retryBaseMs: opts.retryBaseMs ?? 10_000,
      timeoutMs: opts.timeoutMs ?? 10_000,
      now: opts.now ?? (() => new Date()),
    };
  }

  start(): void {
    this.timer ??= setInterval(() => {
      this.running ??= this.tick()
        .catch((e) => this.log.warn({ err: e }, 'alerts: a tick failed; trying again at the next'))
        .finally(() => {
          this.running = null;
        });
    }, this.opts.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  async tick(): Promise<void> {
    // one moment and one set of answers for the whole tick: a hundred alerts asking the same
    // question are answered by one query, not one per batch of them
    const now = this.opts.now();
    const measured = new Map<string, Promise<Row[]>>();
    while ((await this.evaluateDue(now, measured)) === BATCH);
    while ((await this.deliverDue()) === BATCH);
  }

  /**
   * evaluates the alerts due at `now`; returns how many. Alerts that differ only in their
   * thresholds (or name, webhook…) ask the same question: `measured` keeps each answer for the others
   */
  async evaluateDue(now = this.opts.now(), measured = new Map<string, Promise<Row[]>>()): Promise<number> {
    const due = await takeDueAlerts(kysely(this.db.em()), now, BATCH, this.opts.leaseMs);
    for (const a of due) {
      try {
        await this.evaluate(a, now, measured);
      } catch (e) {
        // the lease runs out and the next tick tries again
        this.log.warn({ err: e, alertId: a.definition.id }, 'alerts: an evaluation failed');
      }
    }
    return due.length;
  }

  private measure(a: StoredAlert, w: TimeWindow, measured: Map<string, Promise<Row[]>>): Promise<Row[]> {
    const input = alertQuery(a.definition, w);
    const key = JSON.stringify([a.projectId, input]);
    let rows = measured.get(key);
    if (!rows) {
      rows = answerMetrics(
        this.db.em(),
        this.services,
        (dialect) => prepareMetrics(input, a.projectId, { version: 'v2' }, dialect),
        (e) => this.log.warn({ err: e }, 'alerts: ClickHouse did not answer; measured from PostgreSQL'),
      );
      measured.set(key, rows);
    }
    return rows;
  }

  private async evaluate(a: StoredAlert, now: Date, measured: Map<string, Promise<Row[]>>): Promise<void> {
    const def: AlertDefinition = a.definition;
    const window = alertWindow(def.window, now);
    const rows = await this.measure(a, window, measured);
    let values: Map<string, number | null>;
    if (def.baseline) {
      const before = baselineWindow(window);
      values = groupValues(def, rows, { rows: await this.measure(a, before, measured), spans: before.spans });
    } else values = groupValues(def, rows);
    // an alert that is not fanned out always has its one group, with or without a value
    if (!def.groupBy && !values.size) values.set('', null);
    await this.db.em().transactional(async (em) => {
      const db = kysely(em);
      const previous = await alertGroups(db, a.projectId, def.id);
      const { groups, transitions } = evaluateGroups(previous, values, def.condition, def.noData, now);
      const deliveries = transitions.map((t) => {
        const body = webhookBody(def, webhookPayload(def, t, window, now));
        return { id: newId(), group: t.group, event: t.event, url: def.webhook.url, body };
      });
      // a fan-out keeps the groups that are not ok (a group not kept is ok): rewriting every user's
      // row each minute would make an alert over thousands of users a steady stream of writes
      const kept = def.groupBy ? groups.filter((g) => g.state !== 'ok') : groups;
      await saveEvaluation(db, a.projectId, def.id, kept, deliveries, now, new Date(now.getTime() + def.intervalSeconds * 1000));
    });
  }

  /** sends the deliveries due now; returns how many were tried */
  async deliverDue(): Promise<number> {
    const now = this.opts.now();
    const due = await takeDueDeliveries(kysely(this.db.em()), now, BATCH, this.opts.leaseMs);
    await Promise.all(due.map((d) => this.deliver(d)));
    return due.length;
  }

  private async deliver(d: DueDelivery): Promise<void> {
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const secret = decryptSecret(this.services.keyring, d.secretEncrypted).plaintext;
      const t = Math.floor(this.opts.now().getTime() / 1000);
      const res = await this.fetch(d.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Tally-Alerts/1', [SIGNATURE_HEADER]: signature(secret, t, d.body) },
        body: d.body,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      statusCode = res.status;
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) error = `HTTP ${res.status}`;
    } catch (e) {
      const cause = (e as { cause?: Error }).cause;
      error = (cause?.message ?? (e as Error).message).slice(0, 500);
    }
    const attempt = d.attempts + 1;
    const delivered = error === null;
    const giveUp = !delivered && attempt >= this.opts.maxAttempts;
    const retryAt =
      delivered || giveUp
        ? null
        : new Date(this.opts.now().getTime() + backoffMs(attempt, { baseMs: this.opts.retryBaseMs, maxMs: 3_600_000, jitter: 'half' }));
    await recordAttempt(kysely(this.db.em()), d, {
      statusCode,
      error,
      status: delivered ? 'delivered' : giveUp ? 'failed' : 'pending',
      retryAt,
    });
    if (!delivered) this.log.warn({ deliveryId: d.id, alertId: d.alertId, attempt, error }, 'alerts: a webhook delivery failed');
  }
}
