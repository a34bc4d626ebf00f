// A reprice job with ClickHouse configured (embedded): the rows it reprices reach ClickHouse
// through the change feed, so ClickHouse's copy of each generation, its own hourly and daily
// roll-ups, and the metrics answered from them all show the new costs; an ingested cost stays.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, type TestServer } from '../support/start.ts';
import { exportCaughtUp } from '../support/analytics-lag.ts';
import { startWithClickHouse } from './export-cases.ts';

let t: TestServer;
let stop: () => Promise<void>;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tally-reprice-ch-'));
  const started = await startWithClickHouse('reprice_ch', {
    url: `chdb:${dir}`,
    close: async () => rmSync(dir, { recursive: true, force: true }),
  });
  t = started.t;
  stop = started.close;
}, 120_000);
afterAll(async () => {
  await stop?.();
});

const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${t.server.url}${path}`, {
    ...init,
    headers: { authorization: basic(t.projectA), 'content-type': 'application/json' },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

async function ch<T>(query: string): Promise<T[]> {
  const a = t.server.analytics!;
  const rs = await a.client.query({ query: query.replaceAll('$db', a.database), format: 'JSONEachRow' });
  return rs.json<T>();
}

const uid = (p: string) => `${p}-${Math.random().toString(36).slice(2, 10)}`;
const hour = (d: number, h: number) => new Date(Date.UTC(2026, 5, d, h, 30)).toISOString();

async function metrics(query: Record<string, unknown>) {
  const r = await api(`/api/public/v2/metrics?query=${encodeURIComponent(JSON.stringify(query))}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as Record<string, unknown>[];
}

describe('reprice with ClickHouse', () => {
  it("keeps ClickHouse's rows, its roll-ups and the metrics it answers in step with the new prices", async () => {
    const model = uid('rp-ch-model');
    const env = uid('rp-ch-env');
    const created = await api('/api/public/models', {
      method: 'POST',
      body: JSON.stringify({ modelName: `${model} (wrong)`, matchPattern: `^${model}$`, unit: 'TOKENS', inputPrice: 0.001 }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const ids = { a: uid('g'), b: uid('g'), sent: uid('g') };
    const gen = (id: string, start: string, extra: Record<string, unknown> = {}) => ({
      id: uid('e'),
      timestamp: start,
      type: 'generation-create',
      body: { id, model, environment: env, startTime: start, usageDetails: { input: 1000 }, ...extra },
    });
    const ingested = await api('/api/public/ingestion', {
      method: 'POST',
      // two days, so the daily roll-up serves whole days and the hourly one the edges
      body: JSON.stringify({
        batch: [gen(ids.a, hour(10, 9)), gen(ids.b, hour(11, 14)), gen(ids.sent, hour(11, 15), { costDetails: { total: 7 } })],
      }),
    });
    expect(ingested.status).toBe(207);
    await exportCaughtUp(t.server.url);
    const daily = {
      view: 'observations',
      dimensions: [{ field: 'environment' }],
      metrics: [{ measure: 'totalCost', aggregation: 'sum' }],
      filters: [{ column: 'environment', operator: '=', value: env, type: 'string' }],
      timeDimension: { granularity: 'day' },
      fromTimestamp: '2026-06-09T00:00:00.000Z',
      toTimestamp: '2026-06-13T00:00:00.000Z',
    };
    const costs = async () =>
      Object.fromEntries(
        (await metrics(daily)) // gap-filled days read 0
          .filter((r) => Number(r.sum_totalCost ?? 0) !== 0)
          .map((r) => [String(r.time_dimension).slice(0, 10), Number(r.sum_totalCost)]),
      );
    expect(await costs()).toEqual({ '2026-06-10': 1, '2026-06-11': 8 });

    // the price was wrong: replaced by the right one, then the window repriced
    expect((await api(`/api/public/models/${created.body.id}`, { method: 'DELETE' })).status).toBe(200);
    const right = await api('/api/public/models', {
      method: 'POST',
      body: JSON.stringify({ modelName: `${model} (right)`, matchPattern: `^${model}$`, unit: 'TOKENS', inputPrice: 0.003 }),
    });
    expect(right.status).toBe(200);
    const job = await api('/api/public/models/reprice', {
      method: 'POST',
      body: JSON.stringify({ fromTimestamp: '2026-06-10T00:00:00.000Z', toTimestamp: '2026-06-12T00:00:00.000Z' }),
    });
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    let done: Record<string, any> = {};
    for (let i = 0; i < 200 && !['succeeded', 'failed'].includes(done.status); i++) {
      await new Promise((r) => setTimeout(r, 50));
      done = (await api(`/api/public/models/reprice/${job.body.id}`)).body;
    }
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    expect(done.generationsChanged).toBe(2);
    await exportCaughtUp(t.server.url);

    // ClickHouse's copy of each row: the inferred costs follow, the ingested one stays
    const rows = await ch<{ id: string; total_cost: string; model_id: string }>(
      `SELECT id, toString(total_cost) AS total_cost, model_id FROM $db.observations FINAL WHERE id IN ('${ids.a}', '${ids.b}', '${ids.sent}') ORDER BY start_time`,
    );
    expect(rows.map((r) => [r.id, Number(r.total_cost)])).toEqual([
      [ids.a, 3],
      [ids.b, 3],
      [ids.sent, 7],
    ]);
    expect(rows.slice(0, 2).every((r) => r.model_id === right.body.id)).toBe(true);
    // its own roll-ups, read as the metrics engine reads them
    const rolled = await ch<{ day: string; cost: string }>(
      `SELECT toString(toDate(day)) AS day, toString(sum(total_cost)) AS cost FROM $db.observation_daily FINAL
       WHERE project_id = '${t.projectA.projectId}' AND environment = '${env}' GROUP BY day ORDER BY day`,
    );
    expect(rolled.map((r) => [r.day, Number(r.cost)])).toEqual([
      ['2026-06-10', 3],
      ['2026-06-11', 10],
    ]);
    // and the metrics answered from ClickHouse: by day (the roll-ups) and by hour (the hourly one)
    expect(await costs()).toEqual({ '2026-06-10': 3, '2026-06-11': 10 });
    const byHour = await metrics({ ...daily, timeDimension: { granularity: 'hour' } });
    expect(byHour.filter((r) => Number(r.sum_totalCost ?? 0) !== 0).map((r) => Number(r.sum_totalCost))).toEqual([3, 3, 7]);
  }, 120_000);
});
