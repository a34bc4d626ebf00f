import { describe, expect, inject, it } from 'vitest';
import { clientFor, raw, unique } from '../support/client.ts';

const a = clientFor('projectA');
const b = clientFor('projectB');

async function create(body: Record<string, unknown>, client = a) {
  const res = await client.models.create({ body: body as never });
  return res;
}

describe('Models API', () => {
  it('explain: a custom model with input and output prices only bills reasoning and cached tokens at their parent rate, and says so', async () => {
    const name = unique('io-only');
    expect(
      (await create({ modelName: name, matchPattern: `(?i)^(${name})$`, unit: 'TOKENS', inputPrice: 0.00000015, outputPrice: 0.0000006 }))
        .response!.status,
    ).toBe(200);
    // the chat-completions usage of a call billed $0.00036 at these rates (1,200 input and 300 output tokens; the definition has no cache discount)
    const usage = {
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 200 },
      completion_tokens_details: { reasoning_tokens: 100 },
    };
    const res = await raw('/api/public/models/explain', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: name, usageDetails: usage }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      costStatus: 'inferred',
      unpricedUsageKeys: [],
      totalCost: 0.00036,
      usagePricedAs: { input_cached_tokens: 'input', output_reasoning_tokens: 'output' },
    });
    expect(res.body.lines).toContainEqual({
      usageType: 'output_reasoning_tokens',
      units: 100,
      price: 0.0000006,
      cost: 0.00006,
      priceKey: 'output',
    });
  });

  it('creates a flat-price model as one default "Standard" tier and answers 200', async () => {
    const name = unique('flat');
    const res = await create({
      modelName: name,
      matchPattern: `(?i)^(${name})$`,
      unit: 'TOKENS',
      inputPrice: 0.000001,
      outputPrice: 0.000002,
      startDate: '2024-01-01',
    });
    expect(res.response!.status).toBe(200);
    const m = res.data!;
    expect(m).toMatchObject({
      modelName: name,
      unit: 'TOKENS',
      inputPrice: 0.000001,
      outputPrice: 0.000002,
      totalPrice: null,
      isLangfuseManaged: false,
      startDate: '2024-01-01T00:00:00.000Z',
      prices: { input: { price: 0.000001 }, output: { price: 0.000002 } },
    });
    expect(m.pricingTiers).toEqual([
      {
        id: `${m.id}_tier_default`,
        name: 'Standard',
        isDefault: true,
        priority: 0,
        conditions: [],
        prices: { input: 0.000001, output: 0.000002 },
      },
    ]);
    const got = await a.models.get({ path: { id: m.id } });
    expect(got.data).toEqual(m);
  });

  it('creates tiers as given, filling caseSensitive, ordered by priority', async () => {
    const name = unique('tiered');
    const res = await create({
      modelName: name,
      matchPattern: `(?i)^(${name})$`,
      unit: 'TOKENS',
      pricingTiers: [
        {
          name: 'Flex',
          priority: 2,
          conditions: [{ source: 'model_parameters', key: 'service_tier', operator: 'in', values: ['flex'] }],
          prices: { input: 1, output: 2 },
        },
        { name: '  Standard ', isDefault: true, priority: 0, conditions: [], prices: { input: 2, output: 4 } },
        {
          name: 'Large',
          priority: 1,
          conditions: [{ usageDetailPattern: 'input', operator: 'gt', value: 1000 }],
          prices: { input: 3, output: 6 },
        },
      ],
    });
    expect(res.response!.status).toBe(200);
    const m = res.data!;
    expect(m.pricingTiers.map((t) => [t.name, t.priority])).toEqual([
      ['Standard', 0],
      ['Large', 1],
      ['Flex', 2],
    ]);
    expect(m.pricingTiers[1]!.conditions).toEqual([{ usageDetailPattern: 'input', operator: 'gt', value: 1000, caseSensitive: false }]);
    expect(m.inputPrice).toBe(2);
    expect(m.prices).toEqual({ input: { price: 2 }, output: { price: 4 } });
  });

  it('rejects a duplicate name in the project but allows it in another project', async () => {
    const name = unique('dup');
    const body = { modelName: name, matchPattern: `^${name}$`, unit: 'TOKENS', inputPrice: 1 };
    expect((await create(body)).response!.status).toBe(200);
    const again = await raw('/api/public/models', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(again).toMatchObject({
      status: 400,
      body: { message: `Model name '${name}' already exists in project`, error: 'InvalidRequestError' },
    });
    expect((await create(body, b)).response!.status).toBe(200);
  });

  it('keeps a regex that would backtrack catastrophically in linear time (RE2)', async () => {
    const name = unique('redos');
    const res = await create({ modelName: name, matchPattern: '^(a+)+$', unit: 'TOKENS', inputPrice: 1 });
    expect(res.response!.status).toBe(200);
  });

  it("never lets one project see, get or delete another project's model", async () => {
    const name = unique('private');
    const m = (await create({ modelName: name, matchPattern: `^${name}$`, unit: 'TOKENS', inputPrice: 1 })).data!;
    expect((await b.models.get({ path: { id: m.id }, throwOnError: false })).response!.status).toBe(404);
    const del = await b.models.delete({ path: { id: m.id }, throwOnError: false });
    expect(del.response!.status).toBe(404);
    expect((await a.models.get({ path: { id: m.id } })).response!.status).toBe(200);
    const listB = await raw(`/api/public/models?limit=100&page=1`, { project: 'projectB' });
    const all: string[] = [];
    for (let page = 1; page <= listB.body.meta.totalPages; page++) {
      const r = await raw(`/api/public/models?limit=100&page=${page}`, { project: 'projectB' });
      all.push(...r.body.data.map((x: { id: string }) => x.id));
    }
    expect(all).not.toContain(m.id);
  });

  it('deletes a project model (200 + message), after which it is gone', async () => {
    const name = unique('del');
    const m = (await create({ modelName: name, matchPattern: `^${name}$`, unit: 'TOKENS', inputPrice: 1 })).data!;
    const del = await a.models.delete({ path: { id: m.id } });
    expect(del.response!.status).toBe(200);
    expect(del.data).toEqual({ message: 'Model successfully deleted' });
    expect((await a.models.get({ path: { id: m.id }, throwOnError: false })).response!.status).toBe(404);
  });

  it('lists managed models to every project, read-only', async () => {
    const first = await a.models.list({ query: { page: 1, limit: 100 } });
    expect(first.response!.status).toBe(200);
    const total = first.data!.meta.totalItems;
    expect(total).toBeGreaterThanOrEqual(150);
    const managed = first.data!.data.find((m) => m.isLangfuseManaged)!;
    expect((await b.models.get({ path: { id: managed.id } })).data).toEqual(managed);
    const del = await raw(`/api/public/models/${encodeURIComponent(managed.id)}`, { method: 'DELETE' });
    expect(del).toMatchObject({
      status: 404,
      body: { error: 'LangfuseNotFoundError', message: expect.stringContaining('cannot delete built-in models') },
    });
  });

  it('orders the list by modelName and pages through it without gaps or repeats', async () => {
    const seen: string[] = [];
    let page = 1;
    let totalPages = 1;
    do {
      const r = await a.models.list({ query: { page, limit: 37 } });
      expect(r.data!.meta).toMatchObject({ page, limit: 37 });
      totalPages = r.data!.meta.totalPages;
      expect(totalPages).toBe(Math.ceil(r.data!.meta.totalItems / 37));
      seen.push(...r.data!.data.map((m) => m.modelName));
      page++;
    } while (page <= totalPages);
    expect(seen).toEqual([...seen].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
    expect(new Set(seen).size).toBe(seen.length);
    const beyond = await a.models.list({ query: { page: totalPages + 1, limit: 37 } });
    expect(beyond.data!.data).toEqual([]);
    expect(beyond.data!.meta.totalItems).toBe(seen.length);
    void inject;
  });

  it('answers 404 with the contract text for an unknown id', async () => {
    const res = await raw('/api/public/models/nope');
    expect(res).toEqual(
      expect.objectContaining({ status: 404, body: { message: 'No model with this id found.', error: 'LangfuseNotFoundError' } }),
    );
  });
});
