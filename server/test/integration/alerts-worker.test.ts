// Spend alerts defined through the API, evaluated and delivered (issue 26), against a fake webhook
// receiver on loopback (the worker on the test's clock): a per-user fan-out names only the users over a threshold, each transition is told once, a 500 is
// retried with the same body, every body's signature verifies, the groups resolve when the spend
// leaves the window, a disabled alert stays quiet, and the delivery log has every attempt.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertWorker } from '../../src/background/alert-worker.ts';
import type { AlertDefinition } from '../../src/domain/alerts/types.ts';
import { verifySignature } from '../../src/domain/alerts/webhook.ts';
import { createLogger } from '../../src/logger.ts';
import { alertGroups, deliveryLog } from '../../src/store/alerts.ts';
import { kysely } from '../../src/store/sql.ts';
import { unique } from '../support/client.ts';
import { pgAdmin } from '../support/pg-admin.ts';
import { basic, startTestServer, type TestServer } from '../support/start.ts';

const SECRET = 'whsec-test-0123456789';
// every body received must be what the spec's alertChange webhook says a receiver gets
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
ajv.addSchema({ ...JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8')), $id: 'spec' });
const specBody = ajv.compile({ $ref: 'spec#/webhooks/alertChange/post/requestBody/content/application~1json/schema' });
const bodyProblems = (raw: string) => (specBody(JSON.parse(raw)) ? null : ajv.errorsText(specBody.errors));
// a worker takes every due alert of the database: on PostgreSQL this test has a database of its own
const pgUrl = process.env.DATABASE_URL;
const dbName = `tally_alerts_${process.pid}`;
// a minute ahead of the alerts' creation (due at once), the spend 20-25 minutes before it
const T = Math.floor(Date.now() / 1000) * 1000 + 60_000;
const env = unique('alerts-env');

let t: TestServer;
let receiver: Server;
let url: string;
const received: { body: string; signature: string; status: number }[] = [];
let failNext = 0;

async function ingest(batch: Record<string, unknown>[]) {
  const res = await fetch(`${t.server.url}/api/public/ingestion`, {
    method: 'POST',
    headers: { authorization: basic(t.projectA), 'content-type': 'application/json' },
    body: JSON.stringify({ batch: batch.map((body) => ({ id: unique('e'), timestamp: new Date(T).toISOString(), ...body })) }),
  });
  expect(((await res.json()) as { errors: unknown[] }).errors).toEqual([]);
}

const spend = (user: string, costs: number[]) => {
  const trace = unique('tr');
  return [
    { type: 'trace-create', body: { id: trace, userId: user, environment: env, timestamp: new Date(T - 25 * 60_000).toISOString() } },
    ...costs.map((c, i) => ({
      type: 'generation-create',
      body: {
        id: unique('g'),
        traceId: trace,
        environment: env,
        startTime: new Date(T - (25 - i) * 60_000).toISOString(),
        costDetails: { total: c },
      },
    })),
  ];
};

const definition = (over: Partial<AlertDefinition>): AlertDefinition => ({
  id: unique('al'),
  name: 'spend per user, last hour',
  query: {
    view: 'observations',
    metric: { measure: 'totalCost', aggregation: 'sum' },
    filters: [{ column: 'environment', operator: '=', value: env, type: 'string' }],
  },
  groupBy: { field: 'userId', topN: 100 },
  window: { kind: 'rolling', minutes: 60 },
  condition: { operator: 'gt', warning: 5, alert: 10 },
  baseline: false,
  noData: 'ok',
  intervalSeconds: 60,
  webhook: { url: '', format: 'json' },
  enabled: true,
  ...over,
});

describe('spend alerts: evaluation and webhooks', () => {
  let clock = T;
  let worker: AlertWorker;
  const alert = definition({});
  const quiet = definition({ enabled: false, condition: { operator: 'gt', warning: null, alert: 0 } });

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const status = failNext-- > 0 ? 500 : 200;
        received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['x-tally-signature']), status });
        res.statusCode = status;
        res.end(status === 200 ? 'ok' : 'no');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    // its own worker runs on this test's clock: the server's stays off
    const env: Record<string, string> = { TALLY_LLM_ALLOWED_HOSTS: '127.0.0.1', TALLY_ALERTS: 'off' };
    if (pgUrl) {
      await pgAdmin(`drop database if exists ${dbName}`);
      await pgAdmin(`create database ${dbName}`);
      env.DATABASE_URL = pgUrl.replace(/\/[^/]*$/, `/${dbName}`);
    }
    t = await startTestServer(env);
    await ingest([...spend('u-big', [4, 4, 4]), ...spend('u-mid', [3, 3]), ...spend('u-small', [1, 1])]);
    for (const a of [alert, quiet]) {
      const res = await fetch(`${t.server.url}/api/public/alerts`, {
        method: 'POST',
        headers: { authorization: basic(t.projectA), 'content-type': 'application/json' },
        body: JSON.stringify({
          name: a.name,
          query: a.query,
          groupBy: a.groupBy,
          windowMinutes: 60,
          condition: a.condition,
          intervalSeconds: a.intervalSeconds,
          webhook: { url, secret: SECRET },
          enabled: a.enabled,
        }),
      });
      const body = (await res.json()) as { id: string; webhook: Record<string, unknown> };
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(body.webhook).toEqual({ url, format: 'json' }); // the secret never comes back
      a.id = body.id;
    }
    worker = new AlertWorker(t.server.db, t.server.services, createLogger('silent'), { now: () => new Date(clock), retryBaseMs: 60_000 });
  });
  afterAll(async () => {
    await t?.server.close();
    receiver?.close();
    if (pgUrl) await pgAdmin(`drop database if exists ${dbName}`);
  });

  it('fans out per user: only the users over a threshold are told, each signed; a 500 is retried with the same body', async () => {
    failNext = 1;
    expect(await worker.evaluateDue()).toBe(1); // the disabled one is never taken
    expect(await worker.deliverDue()).toBe(2);
    const bodies = received.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => [b.group.value, b.event, b.value, b.threshold]).sort()).toEqual([
      ['u-big', 'alerting', 12, 10],
      ['u-mid', 'warning', 6, 5],
    ]);
    expect(bodies[0]).toMatchObject({
      alert: { id: alert.id, name: alert.name },
      group: { field: 'userId' },
      window: { to: new Date(T).toISOString() },
    });
    for (const r of received) expect(verifySignature(SECRET, r.signature, r.body, T / 1000)).toBe(true);
    for (const r of received) expect(bodyProblems(r.body)).toBeNull();
    expect(received.filter((r) => r.status === 500)).toHaveLength(1);
    // nothing is due again before its backoff
    expect(await worker.deliverDue()).toBe(0);
    clock = T + 10 * 60_000;
    expect(await worker.deliverDue()).toBe(1);
    expect(received).toHaveLength(3);
    expect(received[2]!.body).toBe(received.find((r) => r.status === 500)!.body);
    expect(received[2]!.status).toBe(200);
    expect(verifySignature(SECRET, received[2]!.signature, received[2]!.body, clock / 1000)).toBe(true);
  });

  it('tells a state once: the next evaluation, still over, sends nothing; the groups show state and value', async () => {
    clock = T + 11 * 60_000;
    expect(await worker.evaluateDue()).toBe(1);
    expect(await worker.deliverDue()).toBe(0);
    expect(received).toHaveLength(3);
    const groups = await alertGroups(kysely(t.server.db.em()), t.projectA.projectId, alert.id);
    // a fan-out keeps the groups that are not ok
    expect(groups.map((g) => [g.group, g.state, g.value])).toEqual([
      ['u-big', 'alerting', 12],
      ['u-mid', 'warning', 6],
    ]);
    // not due again within its interval
    clock += 30_000;
    expect(await worker.evaluateDue()).toBe(0);
  });

  it('is evaluated once when two instances look at the same moment', async () => {
    clock = T + 13 * 60_000; // due again (its last evaluation: T + 11 minutes, every 60 s)
    const other = new AlertWorker(t.server.db, t.server.services, createLogger('silent'), { now: () => new Date(clock) });
    const [a, b] = await Promise.all([worker.evaluateDue(), other.evaluateDue()]);
    expect(a + b).toBe(1);
    expect(await Promise.all([worker.deliverDue(), other.deliverDue()])).toEqual([0, 0]);
  });

  it('resolves the groups once their spend has left the window, and logs every attempt', async () => {
    // replaced without a secret: the stored one still signs
    const put = await fetch(`${t.server.url}/api/public/alerts/${alert.id}`, {
      method: 'PUT',
      headers: { authorization: basic(t.projectA), 'content-type': 'application/json' },
      body: JSON.stringify({
        name: alert.name,
        query: alert.query,
        groupBy: alert.groupBy,
        windowMinutes: 60,
        condition: alert.condition,
        intervalSeconds: 60,
        webhook: { url },
      }),
    });
    expect(put.status).toBe(200);
    clock = T + 3 * 3_600_000;
    expect(await worker.evaluateDue()).toBe(1);
    expect(await worker.deliverDue()).toBe(2);
    const resolved = received.slice(3).map((r) => JSON.parse(r.body));
    expect(resolved.map((b) => [b.group.value, b.event, b.state, b.previousState]).sort()).toEqual([
      ['u-big', 'resolved', 'ok', 'alerting'],
      ['u-mid', 'resolved', 'ok', 'warning'],
    ]);
    for (const r of received.slice(3)) expect(verifySignature(SECRET, r.signature, r.body, clock / 1000)).toBe(true);
    for (const r of received.slice(3)) expect(bodyProblems(r.body)).toBeNull();
    expect(received.some((r) => JSON.parse(r.body).alert.id === quiet.id)).toBe(false);
    const log = await deliveryLog(kysely(t.server.db.em()), t.projectA.projectId, alert.id);
    expect(log).toHaveLength(5);
    expect(log.filter((l) => l.statusCode === 500)).toEqual([expect.objectContaining({ attempt: 1, error: 'HTTP 500' })]);
    expect(log.filter((l) => l.statusCode === 200)).toHaveLength(4);
  });
});
