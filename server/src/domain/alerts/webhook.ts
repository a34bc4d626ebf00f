// What an alert's webhook receives: a JSON body naming the alert, the group (e.g. the user id), the
// value, the threshold crossed and the window, or a Slack-compatible body; and the signature a
// receiver checks, X-Tally-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">
// (the timestamp inside the signed text, so a captured delivery cannot be replayed later under a
// new time). A retry sends the same body. The body's shape is the spec's `alertChange` webhook.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AlertWebhookPayload } from '../../../../generated/client/types.gen.ts';
import type { AlertDefinition, Transition } from './types.ts';
import type { TimeWindow } from './window.ts';

export const SIGNATURE_HEADER = 'X-Tally-Signature';

/** the `alertChange` webhook's body (openapi/openapi.yaml), defined there */
export type WebhookPayload = AlertWebhookPayload;

export function webhookPayload(a: AlertDefinition, t: Transition, window: TimeWindow, now: Date): WebhookPayload {
  const { condition } = a;
  const threshold =
    t.to === 'alerting' ? condition.alert : t.to === 'warning' ? condition.warning! : (condition.warning ?? condition.alert);
  return {
    alert: { id: a.id, name: a.name },
    event: t.event,
    state: t.to,
    previousState: t.from,
    group: a.groupBy ? { field: a.groupBy.field, value: t.group } : null,
    value: t.value,
    threshold,
    operator: condition.operator,
    baseline: a.baseline,
    metric: a.query.metric,
    window: { from: window.from.toISOString(), to: window.to.toISOString() },
    at: now.toISOString(),
  };
}

const SYMBOL = { gt: '>', gte: '≥' } as const;

/** the raw body sent: the payload as JSON, or a Slack incoming-webhook message carrying the same facts */
export function webhookBody(a: AlertDefinition, p: WebhookPayload): string {
  if (a.webhook.format === 'json') return JSON.stringify(p);
  const who = p.group ? ` for ${p.group.field} ${p.group.value}` : '';
  const what = `${p.metric.aggregation} of ${p.metric.measure}${p.baseline ? ' against its 7-day average' : ''}`;
  const text =
    p.event === 'resolved'
      ? `Resolved: "${p.alert.name}"${who}: ${what} is ${p.value ?? 'no data'}, back under ${p.threshold}`
      : `${p.event === 'alerting' ? 'Alert' : 'Warning'}: "${p.alert.name}"${who}: ${what} is ${p.value ?? 'no data'} ${SYMBOL[p.operator]} ${p.threshold} (${p.window.from} to ${p.window.to})`;
  return JSON.stringify({ text, tally: p });
}

/** the header value for a body sent at `unixSeconds` */
export function signature(secret: string, unixSeconds: number, rawBody: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** a receiver's check: the header's MAC over its timestamp and the raw body, within `toleranceS` of now */
export function verifySignature(secret: string, header: string, rawBody: string, nowS: number, toleranceS = 300): boolean {
  const parts = new Map(header.split(',').map((kv) => kv.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowS - t) > toleranceS || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const want = Buffer.from(signature(secret, t, rawBody).split('v1=')[1]!, 'hex');
  return timingSafeEqual(want, Buffer.from(v1, 'hex'));
}
