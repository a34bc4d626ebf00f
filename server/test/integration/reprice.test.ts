// Reprice jobs (issue 25) against the shared test server: a price corrected, a dry run that
// changes nothing and reports what would change, the job applied (observation reads and metrics
// follow, an ingested cost stays), a second run that changes nothing, and the audit list.
import { describe, expect, inject, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const json = { 'content-type': 'application/json' };

async function waitFor(id: string) {
  for (let i = 0; i < 200; i++) {
    const r = await raw(`/api/public/models/reprice/${id}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    if (r.body.status === 'succeeded' || r.body.status === 'failed') return r.body;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`reprice job ${id} did not finish`);
}

async function reprice(body: Record<string, unknown>) {
  const r = await raw('/api/public/models/reprice', { method: 'POST', headers: json, body: JSON.stringify(body) });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  expect(r.body.status).toBe('queued');
  return waitFor(r.body.id);
}

const model = async (modelName: string, pattern: string, inputPrice: number) => {
  const r = await raw('/api/public/models', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ modelName, matchPattern: pattern, unit: 'TOKENS', inputPrice }),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id as string;
};

describe('reprice jobs', () => {
  it('dry run, then apply: inferred costs follow the corrected price, ingested ones stay, a second run changes nothing', async () => {
    const name = unique('rp-model');
    const nameless = unique('rp-unpriced');
    const env = unique('rp-env');
    const wrong = await model(`${name} (wrong)`, `^${name}$`, 0.001);
    const day = (h: number) => new Date(Date.UTC(2026, 3, 10, h)).toISOString();
    const gen = (id: string, m: string, start: string, extra: Record<string, unknown> = {}) => ({
      id: unique('e'),
      timestamp: start,
      type: 'generation-create',
      body: { id, model: m, environment: env, startTime: start, usageDetails: { input: 1000 }, ...extra },
    });
    const ids = { a: unique('g'), b: unique('g'), c: unique('g'), sent: unique('g'), none: unique('g'), outside: unique('g') };
    const res = await raw('/api/public/ingestion', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        batch: [
          gen(ids.a, name, day(1)),
          gen(ids.b, name, day(2)),
          gen(ids.c, name, day(3)),
          gen(ids.sent, name, day(4), { costDetails: { total: 5 } }),
          gen(ids.none, nameless, day(5)),
          gen(ids.outside, name, new Date(Date.UTC(2026, 4, 1)).toISOString()),
        ],
      }),
    });
    expect(res.body.errors).toEqual([]);
    const cost = async (id: string) => {
      const o = (await raw(`/api/public/observations/${id}`)).body;
      return [o.calculatedTotalCost, o.costStatus];
    };
    expect(await cost(ids.a)).toEqual([1, 'inferred']);
    expect(await cost(ids.none)).toEqual([0, 'unpriced']);

    // the price was wrong: replace the definition, and price the unpriced model
    expect((await raw(`/api/public/models/${wrong}`, { method: 'DELETE' })).status).toBe(200);
    const right = await model(`${name} (right)`, `^${name}$`, 0.002);
    const fresh = await model(nameless, `^${nameless}$`, 0.0005);
    const window = { fromTimestamp: '2026-04-10T00:00:00Z', toTimestamp: '2026-04-11T00:00:00Z' };

    const dry = await reprice({ ...window, dryRun: true });
    expect(dry).toMatchObject({ status: 'succeeded', dryRun: true, generationsChanged: 4, costBefore: 3, costAfter: 6.5, error: null });
    expect(dry.generationsScanned).toBeGreaterThanOrEqual(4);
    expect(dry.requestedBy).toBe(inject('projectA').publicKey);
    expect(dry.changes).toEqual(
      expect.arrayContaining([
        { day: '2026-04-10', model: name, modelId: right, generations: 3, costBefore: 3, costAfter: 6 },
        { day: '2026-04-10', model: nameless, modelId: fresh, generations: 1, costBefore: 0, costAfter: 0.5 },
      ]),
    );
    // a dry run writes nothing
    expect(await cost(ids.a)).toEqual([1, 'inferred']);

    const applied = await reprice(window);
    expect(applied).toMatchObject({ status: 'succeeded', dryRun: false, generationsChanged: 4, costBefore: 3, costAfter: 6.5 });
    expect(await cost(ids.a)).toEqual([2, 'inferred']);
    expect(await cost(ids.none)).toEqual([0.5, 'inferred']);
    // the cost the client sent is never repriced; a generation outside the window neither
    expect(await cost(ids.sent)).toEqual([5, 'ingested']);
    expect(await cost(ids.outside)).toEqual([1, 'inferred']);
    expect((await raw(`/api/public/observations/${ids.a}`)).body.modelId).toBe(right);

    // metrics follow (v2 and v1): the whole day from the roll-ups, and hour by hour from the table
    const metric = async (granularity: string, path = '/api/public/v2/metrics') => {
      const q = {
        view: 'observations',
        metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
        filters: [{ column: 'environment', operator: '=', value: env, type: 'string' }],
        timeDimension: { granularity },
        ...window,
        toTimestamp: '2026-04-10T23:59:59.999Z',
      };
      const r = await raw(`${path}?query=${encodeURIComponent(JSON.stringify(q))}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body.data as { sum_totalCost: number | null }[]).reduce((s, x) => s + (x.sum_totalCost ?? 0), 0);
    };
    expect(await metric('day')).toBeCloseTo(6 + 5 + 0.5, 10);
    expect(await metric('hour')).toBeCloseTo(11.5, 10);
    expect(await metric('day', '/api/public/metrics')).toBeCloseTo(11.5, 10);
    expect(await metric('hour', '/api/public/metrics')).toBeCloseTo(11.5, 10);

    // run again: nothing left to change
    const again = await reprice(window);
    expect(again).toMatchObject({ status: 'succeeded', generationsChanged: 0, costBefore: 0, costAfter: 0, changes: [] });

    // the audit trail, newest first
    const list = await raw('/api/public/models/reprice?limit=100');
    expect(list.status).toBe(200);
    const listed = (list.body.data as { id: string }[]).map((j) => j.id);
    expect(listed.indexOf(again.id)).toBeLessThan(listed.indexOf(applied.id));
    expect(listed.indexOf(applied.id)).toBeLessThan(listed.indexOf(dry.id));
  });

  it('modelIds narrows a job to the generations those definitions price, now or before', async () => {
    const [x, y] = [unique('rp-x'), unique('rp-y')];
    const mx = await model(x, `^${x}$`, 0.001);
    await model(y, `^${y}$`, 0.001);
    const at = '2026-04-12T10:00:00Z';
    const ids = [unique('g'), unique('g')];
    const res = await raw('/api/public/ingestion', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        batch: [x, y].map((m, i) => ({
          id: unique('e'),
          timestamp: at,
          type: 'generation-create',
          body: { id: ids[i], model: m, startTime: at, usageDetails: { input: 1000 } },
        })),
      }),
    });
    expect(res.body.errors).toEqual([]);
    // both models' definitions replaced at twice the price; only x's generations asked for
    await raw(`/api/public/models/${mx}`, { method: 'DELETE' });
    const mx2 = await model(`${x} v2`, `^${x}$`, 0.002);
    await model(`${y} v2`, `^${y}$`, 0.003); // the older y definition stays; this newer one wins now
    const job = await reprice({ fromTimestamp: '2026-04-12T00:00:00Z', toTimestamp: '2026-04-13T00:00:00Z', modelIds: [mx2] });
    expect(job).toMatchObject({ status: 'succeeded', generationsChanged: 1, modelIds: [mx2] });
    expect((await raw(`/api/public/observations/${ids[0]}`)).body.calculatedTotalCost).toBe(2);
    expect((await raw(`/api/public/observations/${ids[1]}`)).body.calculatedTotalCost).toBe(1);
  });

  it('refuses an empty window and an unknown job', async () => {
    const r = await raw('/api/public/models/reprice', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ fromTimestamp: '2026-05-01T00:00:00Z', toTimestamp: '2026-04-01T00:00:00Z' }),
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('toTimestamp must be after fromTimestamp');
    expect((await raw('/api/public/models/reprice/nope')).status).toBe(404);
    // the path is not taken for a model id
    expect((await raw('/api/public/models/reprice')).status).toBe(200);
  });
});
