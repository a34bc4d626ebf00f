// Events Langfuse keeps that Tally used to refuse (issue 10): each is now stored, with a
// warning where a value was not, so an SDK that treats a 400 as final loses nothing.
import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const now = () => new Date().toISOString();
const ev = (type: string, body: Record<string, unknown>, id = unique('evt')) => ({ id, timestamp: now(), type, body });

async function ingest(batch: unknown[]) {
  const res = await raw('/api/public/ingestion', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  expect(res.status).toBe(207);
  return res.body as {
    successes: { id: string; status: number; warnings?: string[] }[];
    errors: { id: string; status: number; message?: string; error?: any }[];
  };
}
const observation = (id: string) => raw(`/api/public/observations/${encodeURIComponent(id)}`);

async function pricedModel() {
  const name = unique('lenient-model');
  const res = await raw('/api/public/models', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ modelName: name, matchPattern: `(?i)^(${name})$`, unit: 'TOKENS', inputPrice: 0.001, outputPrice: 0.002 }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return name;
}

describe('ingestion keeps what Langfuse keeps', () => {
  it('a legacy usage with negative counts: stored, the bad values dropped with a warning, priced on the valid part', async () => {
    const model = await pricedModel();
    const id = unique('obs');
    const e = ev('generation-create', { id, model, usage: { input: 4, output: -7, total: -3 } });
    const body = await ingest([e]);
    expect(body.errors).toEqual([]);
    expect(body.successes).toEqual([
      {
        id: e.id,
        status: 201,
        warnings: [
          'usage.output (-7) was not stored: a usage count must be a whole number >= 0',
          'usage.total (-3) was not stored: a usage count must be a whole number >= 0',
        ],
      },
    ]);
    const o = (await observation(id)).body;
    expect(o.usageDetails).toEqual({ input: 4, total: 4 });
    expect(o.costDetails).toEqual({ input: 0.004, total: 0.004 });
  });

  it('a legacy usage with a fractional count: stored without it, with a warning', async () => {
    const id = unique('obs');
    const e = ev('generation-create', { id, usage: { input: 10, output: 2.5 } });
    const body = await ingest([e]);
    expect(body.successes[0]!.warnings).toEqual(['usage.output (2.5) was not stored: a usage count must be a whole number >= 0']);
    expect((await observation(id)).body.usageDetails).toEqual({ input: 10, total: 10 });
  });

  it('TEXT and CORRECTION scores are accepted', async () => {
    const traceId = unique('trace');
    const body = await ingest([
      ev('trace-create', { id: traceId }),
      ev('score-create', { id: unique('score'), traceId, name: 'note', dataType: 'TEXT', value: 'looks right' }),
      ev('score-create', { id: unique('score'), traceId, name: 'fix', dataType: 'CORRECTION', value: 'Paris, not Lyon' }),
    ]);
    expect(body.errors).toEqual([]);
    expect(body.successes).toHaveLength(3);
  });

  it('a legacy observation-create without an id is stored under the event id', async () => {
    const e = ev('observation-create', { type: 'GENERATION', name: 'legacy', usage: { input: 3, output: 1 } });
    const body = await ingest([e]);
    expect(body.errors).toEqual([]);
    const o = await observation(e.id);
    expect(o.status).toBe(200);
    expect(o.body).toMatchObject({ id: e.id, type: 'GENERATION', name: 'legacy', usageDetails: { input: 3, output: 1, total: 4 } });
    // a replay of the same event changes nothing
    expect((await ingest([e])).successes).toHaveLength(1);
    expect((await observation(e.id)).body.usageDetails).toEqual({ input: 3, output: 1, total: 4 });
  });

  it("dataset-run-item-create is refused with Langfuse's message; the other events of the batch stay", async () => {
    const ok = unique('obs');
    const bad = ev('dataset-run-item-create', { runName: 'r', datasetItemId: 'i' });
    const body = await ingest([ev('span-create', { id: ok }), bad]);
    expect(body.successes).toHaveLength(1);
    expect(body.errors).toEqual([
      {
        id: bad.id,
        status: 400,
        message: 'Invalid request data',
        error: [{ code: 'custom', path: ['type'], message: 'Dataset run item creation is only allowed for internal usage' }],
      },
    ]);
  });

  it('still refuses what Langfuse refuses: an unknown unit, a count beyond 2^53, a non-number count', async () => {
    const body = await ingest([
      ev('generation-create', { id: unique('obs'), usage: { input: 1, unit: 'WORDS' } }),
      ev('generation-create', { id: unique('obs'), usage: { input: 2 ** 53 } }),
      ev('generation-create', { id: unique('obs'), usage: { input: '12' } }),
    ]);
    expect(body.successes).toEqual([]);
    expect(body.errors.map((e) => e.status)).toEqual([400, 400, 400]);
  });
});
