// Spend alerts' domain (issue 26): states and the transitions told once, fan-out groups and the
// no-data policy, windows, baseline ratios, the queries, the webhook body and its signature.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { alertProblems, alertQuery, groupValues } from '../../src/domain/alerts/query.ts';
import { evaluateGroups, stateOf } from '../../src/domain/alerts/state.ts';
import type { AlertDefinition, GroupState } from '../../src/domain/alerts/types.ts';
import { signature, verifySignature, webhookBody, webhookPayload } from '../../src/domain/alerts/webhook.ts';
import { alertWindow, baselineWindow } from '../../src/domain/alerts/window.ts';

// the spec's alertChange webhook body: what a receiver is promised
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ ...JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8')), $id: 'spec' });
const specBody = ajv.compile({ $ref: 'spec#/webhooks/alertChange/post/requestBody/content/application~1json/schema' });
const fitsSpec = (raw: string) => (specBody(JSON.parse(raw)) ? null : ajv.errorsText(specBody.errors));

const alert = (over: Partial<AlertDefinition> = {}): AlertDefinition => ({
  id: 'al1',
  name: 'user spend',
  query: { view: 'observations', metric: { measure: 'totalCost', aggregation: 'sum' }, filters: [] },
  groupBy: { field: 'userId', topN: 50 },
  window: { kind: 'rolling', minutes: 60 },
  condition: { operator: 'gt', warning: 5, alert: 10 },
  baseline: false,
  noData: 'ok',
  intervalSeconds: 60,
  webhook: { url: 'https://hooks.example.com/x', format: 'json' },
  enabled: true,
  ...over,
});
const t0 = new Date('2026-11-27T10:00:00Z');
const t1 = new Date('2026-11-27T10:01:00Z');

describe('alert states', () => {
  it('puts a value in the state its thresholds say, gt strictly, gte at the threshold', () => {
    const c = { operator: 'gt' as const, warning: 5, alert: 10 };
    expect([4, 5, 5.01, 10, 10.5].map((v) => stateOf(v, c))).toEqual(['ok', 'ok', 'warning', 'warning', 'alerting']);
    const ge = { operator: 'gte' as const, warning: null, alert: 10 };
    expect([9.99, 10].map((v) => stateOf(v, ge))).toEqual(['ok', 'alerting']);
  });

  it('tells a change of state once, not at every evaluation, and resolved on the way back', () => {
    const c = alert().condition;
    const step = (prev: GroupState[], v: number, at: Date) => evaluateGroups(prev, new Map([['u1', v]]), c, 'ok', at);
    const a = step([], 12, t0);
    expect(a.transitions).toEqual([{ group: 'u1', from: 'ok', to: 'alerting', event: 'alerting', value: 12 }]);
    const b = step(a.groups, 15, t1);
    expect(b.transitions).toEqual([]);
    expect(b.groups).toEqual([{ group: 'u1', state: 'alerting', value: 15, since: t0 }]);
    const c2 = step(b.groups, 7, t1);
    expect(c2.transitions).toEqual([{ group: 'u1', from: 'alerting', to: 'warning', event: 'warning', value: 7 }]);
    const d = step(c2.groups, 1, t1);
    expect(d.transitions).toEqual([{ group: 'u1', from: 'warning', to: 'ok', event: 'resolved', value: 1 }]);
    expect(step(d.groups, 2, t1).transitions).toEqual([]);
  });

  it('fans out: only the groups over a threshold are told; a group gone follows the no-data policy', () => {
    const c = alert().condition;
    const first = evaluateGroups(
      [],
      new Map<string, number | null>([
        ['u1', 11],
        ['u2', 3],
        ['u3', 6],
      ]),
      c,
      'ok',
      t0,
    );
    expect(first.transitions.map((t) => [t.group, t.event])).toEqual([
      ['u1', 'alerting'],
      ['u3', 'warning'],
    ]);
    // u1 drops out of the top groups: with 'ok' it resolves and is forgotten; with 'keep' it stays
    const gone = new Map<string, number | null>([
      ['u2', 3],
      ['u3', 6],
    ]);
    const ok = evaluateGroups(first.groups, gone, c, 'ok', t1);
    expect(ok.transitions).toEqual([{ group: 'u1', from: 'alerting', to: 'ok', event: 'resolved', value: null }]);
    expect(ok.groups.map((g) => g.group)).toEqual(['u2', 'u3']);
    const keep = evaluateGroups(first.groups, gone, c, 'keep', t1);
    expect(keep.transitions).toEqual([]);
    expect(keep.groups.find((g) => g.group === 'u1')).toEqual({ group: 'u1', state: 'alerting', value: null, since: t0 });
    // an alert with no data at all, policy 'alerting'
    const none = evaluateGroups([], new Map([['', null]]), c, 'alerting', t0);
    expect(none.transitions).toEqual([{ group: '', from: 'ok', to: 'alerting', event: 'alerting', value: null }]);
  });
});

describe('alert windows and queries', () => {
  it('gives a rolling window, the calendar month so far, and the 7 days before a window', () => {
    const now = new Date('2026-11-27T10:30:00Z');
    expect(alertWindow({ kind: 'rolling', minutes: 90 }, now)).toEqual({ from: new Date('2026-11-27T09:00:00Z'), to: now });
    expect(alertWindow({ kind: 'calendarMonth' }, now)).toEqual({ from: new Date('2026-11-01T00:00:00Z'), to: now });
    expect(baselineWindow({ from: new Date('2026-11-27T09:30:00Z'), to: now })).toEqual({
      from: new Date('2026-11-20T09:30:00Z'),
      to: new Date('2026-11-27T09:30:00Z'),
      spans: 168,
    });
  });

  it('asks metrics v2 for the top groups by the metric in the window', () => {
    const w = { from: t0, to: t1 };
    expect(alertQuery(alert(), w)).toEqual({
      view: 'observations',
      metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
      filters: [],
      dimensions: [{ field: 'userId' }],
      orderBy: [{ field: 'sum_totalCost', direction: 'desc' }],
      config: { row_limit: 50 },
      fromTimestamp: t0.toISOString(),
      toTimestamp: t1.toISOString(),
    });
    expect(alertQuery(alert({ groupBy: null }), w)).toMatchObject({ dimensions: [] });
    expect(alertQuery(alert({ groupBy: null }), w)).not.toHaveProperty('config');
  });

  it('reads each group value, or its ratio to its own average over the 7 days before', () => {
    const rows = [
      { userId: 'u1', sum_totalCost: 12 },
      { userId: 'u2', sum_totalCost: 3 },
      { userId: 'u3', sum_totalCost: 1 },
    ];
    expect(groupValues(alert(), rows)).toEqual(
      new Map([
        ['u1', 12],
        ['u2', 3],
        ['u3', 1],
      ]),
    );
    // 168 windows in 7 days: u1 spent 336 (2 per window) → 6×; u2 has no history → no ratio
    const ratios = groupValues(alert({ baseline: true }), rows, {
      rows: [
        { userId: 'u1', sum_totalCost: 336 },
        { userId: 'u3', sum_totalCost: 0 },
      ],
      spans: 168,
    });
    expect(ratios).toEqual(
      new Map([
        ['u1', 6],
        ['u2', null],
        ['u3', null],
      ]),
    );
    expect(groupValues(alert({ groupBy: null }), [{ sum_totalCost: null }])).toEqual(new Map([['', null]]));
  });

  it('names what a definition may not be', () => {
    expect(alertProblems(alert(), 60)).toEqual([]);
    const bad = alertProblems(
      alert({
        condition: { operator: 'gt', warning: 10, alert: 10 },
        intervalSeconds: 30,
        baseline: true,
        query: { view: 'observations', metric: { measure: 'latency', aggregation: 'p95' }, filters: [] },
      }),
      60,
    );
    expect(bad).toEqual([
      'condition.warning must be below condition.alert (it is crossed first)',
      'intervalSeconds must be at least 60',
      'baseline compares totals: the metric must be a sum or a count',
    ]);
    // a warning is optional; equal thresholds without one are fine
    expect(alertProblems(alert({ condition: { operator: 'gte', warning: null, alert: 0 } }), 60)).toEqual([]);
  });
});

describe('alert webhooks', () => {
  const w = { from: t0, to: t1 };
  it('names the alert, the group, the value, the threshold and the window', () => {
    const p = webhookPayload(alert(), { group: 'u1', from: 'ok', to: 'alerting', event: 'alerting', value: 12.5 }, w, t1);
    expect(p).toEqual({
      alert: { id: 'al1', name: 'user spend' },
      event: 'alerting',
      state: 'alerting',
      previousState: 'ok',
      group: { field: 'userId', value: 'u1' },
      value: 12.5,
      threshold: 10,
      operator: 'gt',
      baseline: false,
      metric: { measure: 'totalCost', aggregation: 'sum' },
      window: { from: t0.toISOString(), to: t1.toISOString() },
      at: t1.toISOString(),
    });
    expect(JSON.parse(webhookBody(alert(), p))).toEqual(p);
    const slackRaw = webhookBody(alert({ webhook: { url: alert().webhook.url, format: 'slack' } }), p);
    expect(fitsSpec(webhookBody(alert(), p))).toBeNull();
    expect(fitsSpec(slackRaw)).toBeNull();
    expect(fitsSpec(JSON.stringify({ ...p, extra: 1 }))).not.toBeNull();
    const slack = JSON.parse(slackRaw);
    expect(slack.text).toBe(
      `Alert: "user spend" for userId u1: sum of totalCost is 12.5 > 10 (${t0.toISOString()} to ${t1.toISOString()})`,
    );
    const resolved = webhookPayload(alert(), { group: 'u1', from: 'warning', to: 'ok', event: 'resolved', value: 1 }, w, t1);
    expect(resolved.threshold).toBe(5);
  });

  it('signs "<t>.<raw body>" with HMAC-SHA256, and a receiver verifies it', () => {
    const body = '{"a":1}';
    const header = signature('a-secret-of-16-chars', 1_764_237_600, body);
    // the receiver's side, computed apart: echo -n '1764237600.{"a":1}' | openssl dgst -sha256 -hmac 'a-secret-of-16-chars'
    expect(header).toBe('t=1764237600,v1=ab6c6e79bf889e72f591e28fa884e221baf23f35ae85a730e5359e42f4b656f2');
    expect(verifySignature('a-secret-of-16-chars', header, body, 1_764_237_600 + 10)).toBe(true);
    expect(verifySignature('a-secret-of-16-chars', header, '{"a":2}', 1_764_237_600)).toBe(false);
    expect(verifySignature('another-secret-16ch', header, body, 1_764_237_600)).toBe(false);
    // too old: a captured delivery replayed later
    expect(verifySignature('a-secret-of-16-chars', header, body, 1_764_237_600 + 3_600)).toBe(false);
  });
});
