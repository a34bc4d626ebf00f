// GET /api/public/traces as Langfuse's public API defines it: filters, order, pages, field groups,
// each trace with its observation and score ids, its cost and its latency; and @langfuse/client's
// api.trace.list against it, unchanged.
import { LangfuseClient } from '@langfuse/client';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const user = unique('tl-user');
const session = unique('tl-session');
const env = unique('tl-env');
const ids = { a: unique('tl-a'), b: unique('tl-b'), c: unique('tl-c') };
const obs = { a1: unique('tl-o'), a2: unique('tl-o'), b1: unique('tl-o') };
const score = unique('tl-s');
const at = (iso: string) => new Date(iso).toISOString();

beforeAll(async () => {
  const ev = (type: string, body: Record<string, unknown>, timestamp = at('2026-06-01T10:00:00Z')) => ({
    id: unique('e'),
    timestamp,
    type,
    body,
  });
  const batch = [
    ev('trace-create', {
      id: ids.a,
      name: 'checkout',
      userId: user,
      sessionId: session,
      environment: env,
      tags: ['red', 'blue'],
      release: 'r1',
      version: 'v1',
      timestamp: at('2026-06-01T10:00:00Z'),
      input: { q: 'hi' },
      metadata: { plan: 'pro' },
    }),
    ev('trace-create', { id: ids.b, name: 'search', userId: user, environment: env, tags: ['red'], timestamp: at('2026-06-02T10:00:00Z') }),
    ev('trace-create', { id: ids.c, name: 'checkout', userId: unique('other'), environment: env, timestamp: at('2026-06-03T10:00:00Z') }),
    ev('generation-create', {
      id: obs.a1,
      traceId: ids.a,
      environment: env,
      startTime: at('2026-06-01T10:00:00Z'),
      endTime: at('2026-06-01T10:00:01.250Z'),
      costDetails: { total: 0.1 },
    }),
    ev('span-create', {
      id: obs.a2,
      traceId: ids.a,
      environment: env,
      startTime: at('2026-06-01T10:00:00.500Z'),
      endTime: at('2026-06-01T10:00:02Z'),
    }),
    ev('generation-create', {
      id: obs.b1,
      traceId: ids.b,
      environment: env,
      startTime: at('2026-06-02T10:00:00Z'),
      costDetails: { total: 0.2 },
    }),
    ev('score-create', { id: score, traceId: ids.a, name: 'quality', value: 1, environment: env }),
  ];
  const res = await raw('/api/public/ingestion', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  expect(res.body.errors).toEqual([]);
});

async function list(params: Record<string, string | string[]>) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const x of ([] as string[]).concat(v)) q.append(k, x);
  const res = await raw(`/api/public/traces?${q}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { data: Record<string, unknown>[]; meta: Record<string, number> };
}

describe('GET /api/public/traces', () => {
  it("lists a user's traces newest first with their observations, scores, cost and latency", async () => {
    const { data, meta } = await list({ userId: user });
    expect(data.map((t) => t.id)).toEqual([ids.b, ids.a]);
    expect(meta).toEqual({ page: 1, limit: 50, totalItems: 2, totalPages: 1 });
    const a = data[1]!;
    expect(a).toMatchObject({
      name: 'checkout',
      userId: user,
      sessionId: session,
      environment: env,
      tags: ['blue', 'red'],
      release: 'r1',
      version: 'v1',
      input: { q: 'hi' },
      metadata: { plan: 'pro' },
      htmlPath: `/#/traces/${ids.a}`,
      totalCost: 0.1,
      // first start 10:00:00.000, last end 10:00:02.000
      latency: 2,
      observations: [obs.a1, obs.a2],
      scores: [score],
    });
    // a trace with one observation and no end: its latency is 0 seconds; its cost is that observation's
    expect(data[0]).toMatchObject({ totalCost: 0.2, latency: 0, observations: [obs.b1], scores: [] });
  });

  it('narrows by name, session, tags (all of them), release, version, environment and time', async () => {
    const names = async (p: Record<string, string | string[]>) => (await list({ environment: env, ...p })).data.map((t) => t.id);
    expect(await names({ name: 'checkout' })).toEqual([ids.c, ids.a]);
    expect(await names({ sessionId: session })).toEqual([ids.a]);
    expect(await names({ tags: 'red' })).toEqual([ids.b, ids.a]);
    expect(await names({ tags: ['red', 'blue'] })).toEqual([ids.a]);
    expect(await names({ release: 'r1', version: 'v1' })).toEqual([ids.a]);
    expect(await names({ fromTimestamp: '2026-06-02T10:00:00Z' })).toEqual([ids.c, ids.b]);
    expect(await names({ toTimestamp: '2026-06-02T10:00:00Z' })).toEqual([ids.a]);
    expect(await names({ environment: [env, unique('none')], name: 'search' })).toEqual([ids.b]);
  });

  it('orders by the field asked, and pages', async () => {
    const first = await list({ environment: env, orderBy: 'timestamp.asc', limit: '2' });
    expect(first.data.map((t) => t.id)).toEqual([ids.a, ids.b]);
    expect(first.meta).toEqual({ page: 1, limit: 2, totalItems: 3, totalPages: 2 });
    const second = await list({ environment: env, orderBy: 'timestamp.asc', limit: '2', page: '2' });
    expect(second.data.map((t) => t.id)).toEqual([ids.c]);
    expect((await list({ environment: env, orderBy: 'name.desc' })).data.map((t) => t.name)).toEqual(['search', 'checkout', 'checkout']);
  });

  it('leaves field groups out as Langfuse does', async () => {
    const [a] = (await list({ sessionId: session, fields: 'core' })).data;
    expect(a).toMatchObject({ id: ids.a, input: null, metadata: null, totalCost: -1, latency: -1, observations: [], scores: [] });
    const [b] = (await list({ sessionId: session, fields: 'core,metrics,scores' })).data;
    expect(b).toMatchObject({ totalCost: 0.1, latency: 2, observations: [], scores: [score], input: null });
  });

  it('refuses a bad order, a bad field group and a bad timestamp with a 400 naming the parameter', async () => {
    for (const [p, name] of [
      ['orderBy=cost.desc', 'orderBy'],
      ['fields=core,costs', 'fields'],
      ['fromTimestamp=yesterday', 'fromTimestamp'],
      ['limit=0', 'limit'],
    ] as const) {
      const res = await raw(`/api/public/traces?${p}`);
      expect(res.status, p).toBe(400);
      expect(JSON.stringify(res.body), p).toContain(name);
    }
  });

  it("works with @langfuse/client's api.trace.list unchanged", async () => {
    const { publicKey, secretKey } = inject('projectA');
    const langfuse = new LangfuseClient({ publicKey, secretKey, baseUrl: inject('baseUrl') });
    const page = await langfuse.api.trace.list({ userId: user, tags: ['red'], orderBy: 'timestamp.asc' });
    expect(page.data.map((t) => t.id)).toEqual([ids.a, ids.b]);
    expect(page.data[0]!.observations).toEqual([obs.a1, obs.a2]);
    expect(page.data[0]!.totalCost).toBe(0.1);
    expect(page.meta.totalItems).toBe(2);
  });
});
