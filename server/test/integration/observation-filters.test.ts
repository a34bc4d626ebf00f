import { beforeAll, describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const trace = unique('ftrace');
const ids = { cheap: unique('cheap'), pricey: unique('pricey'), span: unique('span') };
const now = () => new Date().toISOString();

beforeAll(async () => {
  const model = unique('fmodel');
  await raw('/api/public/models', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ modelName: model, matchPattern: `^${model}$`, unit: 'TOKENS', inputPrice: 0.001 }),
  });
  const batch = [
    { id: unique('e'), timestamp: now(), type: 'trace-create', body: { id: trace, name: 'filtered', tags: ['red', 'blue'] } },
    {
      id: unique('e'),
      timestamp: now(),
      type: 'generation-create',
      body: {
        id: ids.cheap,
        traceId: trace,
        name: 'Cheap call',
        model,
        usageDetails: { input: 1 },
        metadata: { team: 'search', shard: 3, beta: true },
        startTime: '2026-05-01T00:00:00Z',
        endTime: '2026-05-01T00:00:00.250Z',
      },
    },
    {
      id: unique('e'),
      timestamp: now(),
      type: 'generation-create',
      body: {
        id: ids.pricey,
        traceId: trace,
        name: 'pricey call',
        model,
        usageDetails: { input: 100 },
        metadata: { team: 'ads', shard: 9 },
        startTime: '2026-05-02T00:00:00Z',
        endTime: '2026-05-02T00:00:03Z',
      },
    },
    { id: unique('e'), timestamp: now(), type: 'span-create', body: { id: ids.span, traceId: trace, startTime: '2026-05-03T00:00:00Z' } },
  ];
  const res = await raw('/api/public/ingestion', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  expect(res.body.errors).toEqual([]);
});

async function matching(filters: unknown[]) {
  const q = new URLSearchParams({ traceId: trace, filter: JSON.stringify(filters), useEventsTable: 'true' });
  const res = await raw(`/api/public/observations?${q}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((o: { id: string }) => o.id).sort();
}
const sorted = (...xs: string[]) => xs.sort();

describe('observations list: filter parameter', () => {
  it('filters by number, string (case-sensitive), options, datetime and null', async () => {
    expect(await matching([{ type: 'number', column: 'totalCost', operator: '>', value: 0.01 }])).toEqual([ids.pricey]);
    expect(await matching([{ type: 'number', column: 'latency', operator: '<', value: 1000 }])).toEqual([ids.cheap]);
    expect(await matching([{ type: 'string', column: 'name', operator: 'contains', value: 'call' }])).toEqual(
      sorted(ids.cheap, ids.pricey),
    );
    expect(await matching([{ type: 'string', column: 'name', operator: 'starts with', value: 'cheap' }])).toEqual([]);
    expect(await matching([{ type: 'stringOptions', column: 'type', operator: 'none of', value: ['GENERATION'] }])).toEqual([ids.span]);
    expect(await matching([{ type: 'datetime', column: 'startTime', operator: '>=', value: '2026-05-02T00:00:00Z' }])).toEqual(
      sorted(ids.pricey, ids.span),
    );
    expect(await matching([{ type: 'null', column: 'name', operator: 'is null', value: '' }])).toEqual([ids.span]);
  });

  it('filters tags with arrayOptions and metadata by key, all filters together', async () => {
    expect(await matching([{ type: 'arrayOptions', column: 'tags', operator: 'all of', value: ['blue', 'red'] }])).toHaveLength(3);
    expect(await matching([{ type: 'arrayOptions', column: 'tags', operator: 'none of', value: ['red'] }])).toEqual([]);
    expect(await matching([{ type: 'stringObject', column: 'metadata', key: 'team', operator: '=', value: 'ads' }])).toEqual([ids.pricey]);
    expect(await matching([{ type: 'numberObject', column: 'metadata', key: 'shard', operator: '<', value: 5 }])).toEqual([ids.cheap]);
    expect(await matching([{ type: 'booleanObject', column: 'metadata', key: 'beta', operator: '=', value: true }])).toEqual([ids.cheap]);
    expect(
      await matching([
        { type: 'string', column: 'providedModelName', operator: 'starts with', value: 'fmodel' },
        { type: 'number', column: 'inputTokens', operator: '>=', value: 50 },
      ]),
    ).toEqual([ids.pricey]);
  });

  it('rejects bad JSON, bad shapes, unknown columns and type mismatches with 400', async () => {
    const get = (filter: string) => raw(`/api/public/observations?${new URLSearchParams({ filter })}`);
    expect(await get('[{')).toMatchObject({ status: 400, body: { message: 'Invalid JSON in filter parameter' } });
    const shape = await get(JSON.stringify([{ type: 'number', column: 'totalCost', operator: 'between', value: 1 }]));
    expect(shape.status).toBe(400);
    expect(shape.body.message).toBe('Invalid request data');
    expect((await get(JSON.stringify([{ type: 'string', column: 'colour', operator: '=', value: 'x' }]))).body.message).toMatch(
      /^Invalid filter column colour/,
    );
    expect((await get(JSON.stringify([{ type: 'string', column: 'metadata', operator: '=', value: 'x' }]))).body.message).toContain(
      "Metadata filters require type 'stringObject'",
    );
    expect((await get(JSON.stringify([{ type: 'number', column: 'name', operator: '=', value: 1 }]))).body.message).toContain(
      "Expected 'string' or 'stringOptions'",
    );
  });

  it('ignores query parameters it does not know, as Langfuse does', async () => {
    expect((await raw('/api/public/models?limit=1&someSdkFlag=1')).status).toBe(200);
  });
});
