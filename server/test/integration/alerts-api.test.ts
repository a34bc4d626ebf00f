// The alerts API (issue 26): create, read, list, replace, delete, the delivery log; the secret
// never returned and kept when a replacement leaves it out; each bad definition a 400 naming it.
import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const body = (over: Record<string, unknown> = {}) => ({
  name: unique('alert'),
  query: { view: 'observations', metric: { measure: 'totalCost', aggregation: 'sum' } },
  groupBy: { field: 'userId', topN: 10 },
  windowMinutes: 60,
  // out of reach of the costs other tests ingest into the shared project: the alert worker
  // evaluates an enabled alert as soon as it is created, and one that fired has deliveries
  condition: { operator: 'gte', warning: 1_000_000_000, alert: 2_000_000_000 },
  webhook: { url: 'http://127.0.0.2:9/hook', secret: 'whsec-0123456789abcdef' },
  ...over,
});
const post = (b: unknown) =>
  raw('/api/public/alerts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });

describe('alerts API', () => {
  it('creates, reads, lists, replaces and deletes an alert, its secret never returned', async () => {
    const created = await post(body({ noData: 'keep', intervalSeconds: 120 }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const a = created.body as Record<string, unknown> & { id: string };
    expect(a).toMatchObject({
      groupBy: { field: 'userId', topN: 10 },
      windowMinutes: 60,
      calendarMonth: false,
      condition: { operator: 'gte', warning: 1_000_000_000, alert: 2_000_000_000 },
      baseline: false,
      noData: 'keep',
      intervalSeconds: 120,
      webhook: { url: 'http://127.0.0.2:9/hook', format: 'json' },
      enabled: true,
      groups: [],
    });
    expect(JSON.stringify(a)).not.toContain('whsec');
    expect((await raw(`/api/public/alerts/${a.id}`)).body).toEqual(a);
    const listed = await raw('/api/public/alerts?limit=100');
    expect((listed.body.data as { id: string }[]).some((x) => x.id === a.id)).toBe(true);

    const replaced = await raw(`/api/public/alerts/${a.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        body({
          name: 'month',
          windowMinutes: undefined,
          calendarMonth: true,
          enabled: false,
          webhook: { url: 'http://127.0.0.2:9/other', format: 'slack' },
        }),
      ),
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body).toMatchObject({
      name: 'month',
      windowMinutes: null,
      calendarMonth: true,
      enabled: false,
      webhook: { format: 'slack' },
    });
    expect((await raw(`/api/public/alerts/${a.id}/deliveries`)).body).toEqual({ data: [] });

    expect((await raw(`/api/public/alerts/${a.id}`, { method: 'DELETE' })).body).toEqual({ message: 'Alert successfully deleted' });
    for (const path of [`/api/public/alerts/${a.id}`, `/api/public/alerts/${a.id}/deliveries`])
      expect((await raw(path)).body).toEqual({ message: 'Alert not found within authorized project', error: 'LangfuseNotFoundError' });
    expect((await raw(`/api/public/alerts/${a.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses each bad definition with a 400 naming the problem', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ condition: { operator: 'gt', warning: 5, alert: 5 } }, /condition\.warning must be below condition\.alert/],
      [{ intervalSeconds: 30 }, /intervalSeconds must be at least 60/],
      [{ windowMinutes: undefined }, /either windowMinutes .* or calendarMonth/],
      [{ calendarMonth: true }, /either windowMinutes .* or calendarMonth/],
      [{ query: { view: 'observations', metric: { measure: 'totalCost', aggregation: 'median' } } }, /^query: /],
      [{ query: { view: 'nope', metric: { measure: 'totalCost', aggregation: 'sum' } } }, /^query: /],
      [{ baseline: true, query: { view: 'observations', metric: { measure: 'latency', aggregation: 'p95' } } }, /baseline compares totals/],
      [{ webhook: { url: 'http://127.0.0.2:9/hook' } }, /webhook\.secret is required/],
      [
        { webhook: { url: 'http://8.8.8.8/hook', secret: 'whsec-0123456789abcdef' } },
        /^Invalid webhook\.url: 8\.8\.8\.8 is not in TALLY_LLM_ALLOWED_HOSTS/,
      ],
    ];
    for (const [over, message] of cases) {
      const res = await post(body(over));
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(String(res.body.message), JSON.stringify(over)).toMatch(message);
    }
    expect((await post(body({ webhook: { url: 'ftp://127.0.0.2/h', secret: 'whsec-0123456789abcdef' } }))).body.message).toBe(
      'Invalid webhook.url: the scheme must be http or https, not ftp',
    );
    // the wire shape: a short secret, an unknown groupBy field, a window or a topN out of range
    for (const over of [
      { webhook: { url: 'http://127.0.0.2:9/h', secret: 'short' } },
      { groupBy: { field: 'model' } },
      { windowMinutes: 0 },
      { groupBy: { field: 'userId', topN: 5000 } },
    ]) {
      const res = await post(body(over));
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.message).toBe('Invalid request data');
    }
  });
});
