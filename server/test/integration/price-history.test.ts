// A model's start date is a price history: a generation is priced by the definition in force when
// it started (issue 25). Two definitions matching one model name, from May and from June, at
// different prices (as in Langfuse, a project's model names are unique, so each definition has a
// name of its own; the pattern is what they share).
import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

describe('price history: the definition in force at the generation start', () => {
  it('prices May calls at the May price and June calls at the June price; before May, nothing is in force', async () => {
    const name = unique('hist-model');
    const create = async (startDate: string, inputPrice: number) => {
      const res = await raw('/api/public/models', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          modelName: `${name} from ${startDate.slice(0, 7)}`,
          matchPattern: `^${name}$`,
          unit: 'TOKENS',
          inputPrice,
          startDate,
        }),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await create('2026-05-01T00:00:00Z', 0.001);
    await create('2026-06-01T00:00:00Z', 0.002);
    const gen = (start: string) => ({ id: unique('g'), start });
    const calls = [gen('2026-04-30T23:59:59Z'), gen('2026-05-15T00:00:00Z'), gen('2026-06-01T00:00:00Z'), gen('2026-07-01T00:00:00Z')];
    const res = await raw('/api/public/ingestion', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        batch: calls.map((c) => ({
          id: unique('e'),
          timestamp: c.start,
          type: 'generation-create',
          body: { id: c.id, model: name, startTime: c.start, usageDetails: { input: 1000 } },
        })),
      }),
    });
    expect(res.body.errors).toEqual([]);
    const cost = async (id: string) => {
      const o = await raw(`/api/public/observations/${id}`);
      return { total: o.body.calculatedTotalCost, status: o.body.costStatus, price: o.body.inputPrice };
    };
    expect(await cost(calls[0]!.id)).toEqual({ total: 0, status: 'unpriced', price: null });
    expect(await cost(calls[1]!.id)).toMatchObject({ total: 1, status: 'inferred', price: 0.001 });
    expect(await cost(calls[2]!.id)).toMatchObject({ total: 2, status: 'inferred', price: 0.002 });
    expect(await cost(calls[3]!.id)).toMatchObject({ total: 2, status: 'inferred', price: 0.002 });

    // metrics count generations by costStatus (a Tally dimension): what has no price can be weighed
    const q = {
      view: 'observations',
      dimensions: [{ field: 'costStatus' }],
      metrics: [
        { measure: 'count', aggregation: 'count' },
        { measure: 'inputTokens', aggregation: 'sum' },
      ],
      filters: [{ column: 'providedModelName', operator: '=', value: name, type: 'string' }],
      fromTimestamp: '2026-04-01T00:00:00Z',
      toTimestamp: '2026-08-01T00:00:00Z',
    };
    const m = await raw(`/api/public/v2/metrics?query=${encodeURIComponent(JSON.stringify(q))}`);
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body.data).toEqual([
      { costStatus: 'inferred', count_count: 3, sum_inputTokens: 3000 },
      { costStatus: 'unpriced', count_count: 1, sum_inputTokens: 1000 },
    ]);
  });
});
