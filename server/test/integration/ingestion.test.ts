import { AUTH_MESSAGES } from '../../src/http/auth.ts';
import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

type Project = 'projectA' | 'projectB';
const now = () => new Date().toISOString();
let seq = 0;
const ev = (type: string, body: Record<string, unknown>, id = unique(`evt${++seq}`)) => ({ id, timestamp: now(), type, body });

async function ingest(batch: unknown[], project: Project = 'projectA') {
  const res = await raw('/api/public/ingestion', {
    method: 'POST',
    project,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  expect(res.status).toBe(207);
  return res.body as {
    successes: { id: string; status: number; warnings?: string[] }[];
    errors: { id: string; status: number; error?: unknown }[];
  };
}
const observation = async (id: string, project: Project = 'projectA') =>
  raw(`/api/public/observations/${encodeURIComponent(id)}`, { project });
async function createModel(body: Record<string, unknown>, project: Project = 'projectA') {
  const res = await raw('/api/public/models', {
    method: 'POST',
    project,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ unit: 'TOKENS', ...body }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string };
}
const flatModel = async (prices: Record<string, number>, extra: Record<string, unknown> = {}) => {
  const name = unique('itest-model');
  const m = await createModel({
    modelName: name,
    matchPattern: `(?i)^(${name})$`,
    pricingTiers: [{ name: 'Standard', isDefault: true, priority: 0, conditions: [], prices }],
    ...extra,
  });
  return { name, id: m.id };
};

describe('ingestion: durability and per-event outcomes', () => {
  it('commits every success before answering, and one invalid event does not sink the rest', async () => {
    const good = unique('obs');
    const body = await ingest([
      ev('span-create', { id: good, name: 'ok' }),
      ev('generation-create', { name: 'no id' }),
      ev('generation-create', { id: unique('obs'), usage: { input: 1, unit: 'WORDS' } }),
      ev('unknown-type', { id: 'x' }),
      ev('span-create', { id: unique('obs'), startTime: '2026-19-45T00:00:00Z' }),
      ev('generation-create', { id: unique('obs'), promptName: 'p', promptVersion: 3_000_000_000 }),
      { not: 'an event' },
      ev('sdk-log', { log: { hello: 'world' } }),
    ]);
    expect(body.successes).toHaveLength(1);
    expect(body.errors.map((e) => e.status)).toEqual([400, 400, 400, 400, 400, 400]);
    expect(body.errors.at(-1)!.id).toBe('unknown');
    expect((await observation(good)).status).toBe(200);
  });

  it('rejects only the events with text PostgreSQL cannot store, naming the field', async () => {
    const [good, emoji, nul, surrogate] = [unique('obs'), unique('obs'), unique('obs'), unique('obs')];
    // written by hand: an escaped surrogate pair, as Python's json.dumps sends non-ASCII text
    const emojiEvent = JSON.stringify(ev('span-create', { id: emoji, input: 'EMOJI' })).replace('"EMOJI"', '"smile \\ud83d\\ude00"');
    const batch = `[${[
      JSON.stringify(ev('span-create', { id: good, name: 'fine' })),
      emojiEvent,
      JSON.stringify(ev('span-create', { id: nul, input: 'a\u0000b' })),
      JSON.stringify(ev('span-create', { id: surrogate, metadata: { 'k\ud800': 1 } })),
    ].join(',')}]`;
    const res = await raw('/api/public/ingestion', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"batch":${batch}}`,
    });
    expect(res.status).toBe(207);
    expect(res.body.successes).toHaveLength(2);
    expect(
      res.body.errors.map((e: { status: number; error: { path: unknown[]; message: string }[] }) => [
        e.status,
        e.error[0]!.path,
        e.error[0]!.message,
      ]),
    ).toEqual([
      [400, ['body', 'input'], 'Text contains a NUL character (\\u0000), which cannot be stored'],
      [400, ['body', 'metadata', 'k\ud800'], 'Key contains an unpaired UTF-16 surrogate, which is not valid Unicode'],
    ]);
    expect((await observation(emoji)).body.input).toBe('smile \u{1F600}');
    expect((await observation(nul)).status).toBe(404);
  });

  it('answers 400, not 500, for such text in a model or a query parameter', async () => {
    const model = await raw('/api/public/models', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ modelName: 'bad\u0000name', matchPattern: '^x$', unit: 'TOKENS', inputPrice: 1 }),
    });
    expect(model.status).toBe(400);
    expect(model.body.error[0]).toMatchObject({ path: ['modelName'] });
    const list = await raw('/api/public/observations?name=a%00b');
    expect(list.status).toBe(400);
    expect(list.body.error[0]).toMatchObject({ path: ['name'] });
  });

  it('acknowledges a replayed event id without applying it again', async () => {
    const { name } = await flatModel({ input: 1, output: 2 });
    const id = unique('obs');
    const first = ev('generation-create', { id, model: name, usageDetails: { input: 10, output: 1 } });
    await ingest([first]);
    const replay = { ...first, body: { ...first.body, usageDetails: { input: 999 } } };
    const again = await ingest([replay]);
    expect(again.successes).toEqual([{ id: first.id, status: 201 }]);
    const o = (await observation(id)).body;
    expect(o.usageDetails).toEqual({ input: 10, output: 1, total: 11 });
    expect(o.costDetails).toEqual({ input: 10, output: 2, total: 12 });
  });

  it('answers an envelope that is not a batch with 400 errors[] and a body over 4.5 MB with 413', async () => {
    const bad = await raw('/api/public/ingestion', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ batch: {} }),
    });
    expect(bad).toMatchObject({ status: 400, body: { message: 'Invalid request data', errors: [expect.stringContaining('batch')] } });
    const big = JSON.stringify({ batch: [ev('span-create', { id: 'big', input: 'x'.repeat(5 * 1024 * 1024) })] });
    const res = await raw('/api/public/ingestion', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('PayloadTooLargeError');
  });

  it('uses the ingestion error body for 401', async () => {
    const res = await raw('/api/public/ingestion', {
      method: 'POST',
      project: null,
      headers: { 'content-type': 'application/json' },
      body: '{"batch":[]}',
    });
    expect(res).toMatchObject({ status: 401, body: { error: 'UnauthorizedError', message: AUTH_MESSAGES.missing } });
  });
});

describe('ingestion: merging and recomputation', () => {
  it('accepts usage at create, update or end and recomputes cost from the merged state', async () => {
    const { name } = await flatModel({ input: 0.5, output: 1 });
    const id = unique('obs');
    await ingest([ev('generation-create', { id, model: name, startTime: '2026-01-01T00:00:00Z' })]);
    expect((await observation(id)).body.costStatus).toBe('none');
    await ingest([ev('generation-update', { id, usageDetails: { input: 4, output: 2 } })]);
    let o = (await observation(id)).body;
    expect(o.costDetails).toEqual({ input: 2, output: 2, total: 4 });
    // an end event with only endTime keeps the earlier usage; a later non-empty map replaces it
    await ingest([ev('generation-update', { id, endTime: '2026-01-01T00:00:02Z' })]);
    o = (await observation(id)).body;
    expect(o).toMatchObject({ latency: 2, usageDetails: { input: 4, output: 2, total: 6 } });
    await ingest([ev('generation-update', { id, usage: { input: 10, output: 20 } })]);
    o = (await observation(id)).body;
    expect(o.usageDetails).toEqual({ input: 10, output: 20, total: 30 });
    expect(o.costDetails).toEqual({ input: 5, output: 20, total: 25 });
  });

  it('uses ingested cost as is and never infers cost then', async () => {
    const { name } = await flatModel({ input: 1, output: 1 });
    const id = unique('obs');
    await ingest([
      ev('generation-create', { id, model: name, usageDetails: { input: 5, output: 5 }, costDetails: { input: 0.25, output: 0.5 } }),
    ]);
    const o = (await observation(id)).body;
    expect(o).toMatchObject({ costStatus: 'ingested', costDetails: { input: 0.25, output: 0.5, total: 0.75 }, calculatedTotalCost: 0.75 });
  });

  it('prices exactly in decimal', async () => {
    const { name } = await flatModel({ input: 0.1, output: 0.2 });
    const id = unique('obs');
    await ingest([ev('generation-create', { id, model: name, usageDetails: { input: 3, output: 3 } })]);
    const o = (await observation(id)).body;
    expect(o.costDetails).toEqual({ input: 0.3, output: 0.6, total: 0.9 });
  });

  it('maps a clean chat-completions object and stores one with extra keys flat, with a warning', async () => {
    const { name } = await flatModel({ input: 1, output: 1, input_cached_tokens: 0.5 });
    const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, prompt_tokens_details: { cached_tokens: 40 } };
    const [a, b] = [unique('obs'), unique('obs')];
    const res = await ingest([
      ev('generation-create', { id: a, model: name, usageDetails: usage }),
      ev('generation-create', { id: b, model: name, usageDetails: { ...usage, cost: 0.01 } }),
    ]);
    expect(res.successes[0]!.warnings).toBeUndefined();
    expect(res.successes[1]!.warnings?.join(' ')).toContain('cost');
    // a replay changes nothing but still tells the sender what is wrong with the payload
    const replay = await ingest([
      { ...ev('generation-create', { id: b, model: name, usageDetails: { ...usage, cost: 0.01 } }), id: res.successes[1]!.id },
    ]);
    expect(replay.successes[0]!.warnings?.join(' ')).toContain('cost');
    expect((await observation(a)).body.usageDetails).toEqual({ input: 60, input_cached_tokens: 40, output: 10, total: 110 });
    expect((await observation(a)).body.costDetails).toEqual({ input: 60, input_cached_tokens: 20, output: 10, total: 90 });
    expect((await observation(b)).body.usageDetails).toEqual({ prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, total: 220 });
  });
});

describe('ingestion: models, tiers and tokenizers', () => {
  it('prefers a project model over the managed one with the same pattern, per project', async () => {
    const own = await createModel({
      modelName: unique('my-gpt-4o'),
      matchPattern: '(?i)^(openai/)?(gpt-4o)$',
      inputPrice: 1,
      outputPrice: 1,
    });
    const [a, b] = [unique('obs'), unique('obs')];
    await ingest([ev('generation-create', { id: a, model: 'gpt-4o', usageDetails: { input: 1, output: 1 } })]);
    await ingest([ev('generation-create', { id: b, model: 'gpt-4o', usageDetails: { input: 1, output: 1 } })], 'projectB');
    expect((await observation(a)).body).toMatchObject({ modelId: own.id, costDetails: { total: 2 } });
    const managed = (await observation(b, 'projectB')).body;
    expect(managed.modelId).not.toBe(own.id);
    expect(managed.costDetails.total).toBeGreaterThan(0);
    expect(managed.costDetails.total).toBeLessThan(0.001);
    await raw(`/api/public/models/${own.id}`, { method: 'DELETE' });
  });

  it('sees a new model at once and forgets a deleted one at once (cache invalidation)', async () => {
    const name = unique('late-model');
    const [a, b, c] = [unique('obs'), unique('obs'), unique('obs')];
    await ingest([ev('generation-create', { id: a, model: name, usageDetails: { input: 2 } })]);
    expect((await observation(a)).body).toMatchObject({ costStatus: 'unpriced', modelId: null });
    const m = await createModel({ modelName: name, matchPattern: `^${name}$`, inputPrice: 3 });
    await ingest([ev('generation-create', { id: b, model: name, usageDetails: { input: 2 } })]);
    expect((await observation(b)).body).toMatchObject({ costStatus: 'inferred', modelId: m.id, costDetails: { input: 6, total: 6 } });
    await raw(`/api/public/models/${m.id}`, { method: 'DELETE' });
    await ingest([ev('generation-create', { id: c, model: name, usageDetails: { input: 2 } })]);
    expect((await observation(c)).body.costStatus).toBe('unpriced');
    // history is not rewritten
    expect((await observation(b)).body.costDetails.total).toBe(6);
  });

  it('repairs usage that overlaps by exactly its details (langfuse v3 observeOpenAI), says so in the 207, and prices the bill', async () => {
    const { name } = await flatModel({ input: 0.15e-6, input_cached_tokens: 0.075e-6, output: 0.6e-6 });
    const [id, kept] = [unique('obs'), unique('obs')];
    const res = await ingest([
      ev('generation-create', {
        id,
        model: name,
        usage: { input: 1200, output: 300, total: 1500 },
        usageDetails: { input_cached_tokens: 200, output_reasoning_tokens: 100 },
      }),
      // an excess that is not the details is stored as sent, with the overlap warning
      ev('generation-create', { id: kept, model: name, usageDetails: { input: 1200, output: 300, total: 1400, input_cached_tokens: 200 } }),
    ]);
    expect(res.successes[0]!.warnings?.[0]).toMatch(/^usage buckets overlapped: `total` \(1500\) shows that `input`\/`output` included/);
    expect((await observation(id)).body).toMatchObject({
      usageDetails: { input: 1000, output: 200, total: 1500 },
      costDetails: { total: 0.000345 },
      costStatus: 'inferred',
    });
    expect(res.successes[1]!.warnings?.join(' ')).toMatch(/smaller than the sum/);
    expect((await observation(kept)).body.usageDetails).toMatchObject({ input: 1200, output: 300 });
  });

  it('selects a tier by usage threshold and by model parameter, and records it', async () => {
    const name = unique('tiered');
    await createModel({
      modelName: name,
      matchPattern: `^${name}$`,
      pricingTiers: [
        { name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { input: 1, output: 1 } },
        {
          name: 'Large',
          priority: 1,
          conditions: [{ usageDetailPattern: '^input', operator: 'gt', value: 100 }],
          prices: { input: 2, output: 2 },
        },
        {
          name: 'Flex',
          priority: 2,
          conditions: [{ source: 'model_parameters', key: 'service_tier', operator: 'in', values: ['flex'] }],
          prices: { input: 0.5, output: 0.5 },
        },
      ],
    });
    const [small, large, flex] = [unique('obs'), unique('obs'), unique('obs')];
    await ingest([
      ev('generation-create', { id: small, model: name, usageDetails: { input: 100, output: 1 } }),
      ev('generation-create', { id: large, model: name, usageDetails: { input: 60, input_cached: 50, output: 1 } }),
      ev('generation-create', {
        id: flex,
        model: name,
        modelParameters: { service_tier: 'flex' },
        usageDetails: { input: 10, output: 10 },
      }),
    ]);
    expect((await observation(small)).body).toMatchObject({ usagePricingTierName: 'Standard', costDetails: { total: 101 } });
    // input_cached has no price of its own: billed at the Large tier's input rate, and said so
    expect((await observation(large)).body).toMatchObject({
      usagePricingTierName: 'Large',
      unpricedUsageKeys: [],
      usagePricedAs: { input_cached: 'input' },
      costStatus: 'inferred',
      costDetails: { input_cached: 100, total: 222 },
    });
    expect((await observation(flex)).body).toMatchObject({ usagePricingTierName: 'Flex', costDetails: { total: 10 }, inputPrice: 0.5 });
  });

  it('infers usage with the tokenizer only when nothing was sent and the level is not ERROR', async () => {
    const { name } = await flatModel(
      { input: 1, output: 1 },
      { tokenizerId: 'openai', tokenizerConfig: { tokenizerModel: 'gpt-4o', tokensPerMessage: 3, tokensPerName: 1 } },
    );
    const [plain, chat, failed, sent] = [unique('obs'), unique('obs'), unique('obs'), unique('obs')];
    await ingest([
      ev('generation-create', { id: plain, model: name, input: 'hello world', output: 'hello' }),
      ev('generation-create', { id: chat, model: name, input: [{ role: 'user', content: 'hello world' }], output: 'hello' }),
      ev('generation-create', { id: failed, model: name, level: 'ERROR', input: 'hello world', output: 'hello' }),
      ev('generation-create', { id: sent, model: name, input: 'hello world', usageDetails: { input: 7 } }),
    ]);
    expect((await observation(plain)).body).toMatchObject({
      usageDetails: { input: 2, output: 1, total: 3 },
      costDetails: { total: 3 },
      costStatus: 'inferred',
    });
    // chat formula: 3 per message + "user" (1) + "hello world" (2) + 3 reply priming = 9
    expect((await observation(chat)).body.usageDetails).toEqual({ input: 9, output: 1, total: 10 });
    expect((await observation(failed)).body).toMatchObject({ usageDetails: {}, costStatus: 'none' });
    expect((await observation(sent)).body.usageDetails).toEqual({ input: 7, total: 7 });
  });

  it('does not tokenise for a model without a tokenizer (reasoning models): no usage, no cost', async () => {
    const id = unique('obs');
    await ingest([ev('generation-create', { id, model: 'o3-mini', input: 'think hard', output: 'done' })]);
    const o = (await observation(id)).body;
    expect(o.modelId).toBeTruthy();
    expect(o).toMatchObject({ usageDetails: {}, costDetails: {}, costStatus: 'none' });
  });
});

describe('ingestion: read side', () => {
  it('lists with filters and pages, and scopes everything to the project', async () => {
    const trace = unique('trace');
    const ids = [unique('obs'), unique('obs'), unique('obs')];
    await ingest([
      ev('trace-create', { id: trace, name: 'listing', userId: 'u-list' }),
      ev('span-create', { id: ids[0], traceId: trace, name: 'a', startTime: '2026-03-01T00:00:00Z', environment: 'Prod' }),
      ev('generation-create', { id: ids[1], traceId: trace, name: 'b', startTime: '2026-03-02T00:00:00Z' }),
      ev('event-create', { id: ids[2], traceId: trace, name: 'c', startTime: '2026-03-03T00:00:00Z', level: 'WARNING' }),
    ]);
    const all = await raw(`/api/public/observations?traceId=${trace}&limit=2`);
    expect(all.body.meta).toEqual({ page: 1, limit: 2, totalItems: 3, totalPages: 2 });
    expect(all.body.data.map((o: { id: string }) => o.id)).toEqual([ids[2], ids[1]]);
    expect((await raw(`/api/public/observations?traceId=${trace}&type=GENERATION`)).body.data.map((o: { id: string }) => o.id)).toEqual([
      ids[1],
    ]);
    expect((await raw(`/api/public/observations?traceId=${trace}&environment=prod`)).body.meta.totalItems).toBe(1);
    expect((await raw(`/api/public/observations?traceId=${trace}&level=WARNING`)).body.meta.totalItems).toBe(1);
    const window = await raw(
      `/api/public/observations?traceId=${trace}&fromStartTime=2026-03-02T00:00:00Z&toStartTime=2026-03-03T00:00:00Z`,
    );
    expect(window.body.data.map((o: { id: string }) => o.id)).toEqual([ids[1]]);
    const t = await raw(`/api/public/traces/${trace}`);
    expect(t.body).toMatchObject({ id: trace, name: 'listing', userId: 'u-list' });
    expect(t.body.observations).toHaveLength(3);
    expect((await raw(`/api/public/traces/${trace}`, { project: 'projectB' })).status).toBe(404);
    expect((await observation(ids[0]!, 'projectB')).status).toBe(404);
    expect((await raw(`/api/public/observations?traceId=${trace}`, { project: 'projectB' })).body.meta.totalItems).toBe(0);
  });

  it('copies trace fields onto observations, also when the trace arrives after them or changes', async () => {
    const trace = unique('late-trace');
    const [o1, o2] = [unique('obs'), unique('obs')];
    await ingest([ev('span-create', { id: o1, traceId: trace })]);
    await ingest([
      ev('trace-create', { id: trace, userId: 'late-user', name: 'late', tags: ['x'] }),
      ev('span-create', { id: o2, traceId: trace }),
    ]);
    const byUser = await raw(`/api/public/observations?userId=late-user&traceId=${trace}`);
    expect(byUser.body.data.map((o: { id: string }) => o.id).sort()).toEqual([o1, o2].sort());
    await ingest([ev('trace-create', { id: trace, userId: 'renamed-user' })]);
    expect((await raw(`/api/public/observations?userId=late-user&traceId=${trace}`)).body.meta.totalItems).toBe(0);
    const filtered = await raw(
      `/api/public/observations?${new URLSearchParams({
        traceId: trace,
        filter: JSON.stringify([
          { type: 'string', column: 'traceName', operator: '=', value: 'late' },
          { type: 'arrayOptions', column: 'tags', operator: 'any of', value: ['x'] },
        ]),
      })}`,
    );
    expect(filtered.body.meta.totalItems).toBe(2);
  });

  it('stores timestamps to the millisecond, before 1970 and centuries ahead', async () => {
    const times = [
      ['1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00.001Z'],
      ['1850-06-01T12:00:00.123Z', '2301-03-04T05:06:07.891Z'],
    ];
    for (const [startTime, endTime] of times) {
      const id = unique('obs-time');
      await ingest([ev('generation-create', { id, startTime, endTime, completionStartTime: endTime })]);
      expect((await observation(id)).body).toMatchObject({ startTime, endTime, completionStartTime: endTime });
    }
  });

  it('keeps awkward tag values and JSON intact', async () => {
    const trace = unique('trace');
    const tags = ['a,b', 'quote"d', 'brace{}', 'back\\slash', 'NULL', ''];
    const input = { nested: ['x', { y: 'z"\\' }], n: 1.5e-7 };
    const names = ['NULL', 'a "b" \\ {c}, d', ''];
    await ingest([
      ev('trace-create', { id: trace, tags, input }),
      ...names.map((name, i) =>
        ev('span-create', {
          id: `${trace}-obs-${i}`,
          traceId: trace,
          name,
          startTime: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
          metadata: { k: [null, true] },
        }),
      ),
    ]);
    const t = (await raw(`/api/public/traces/${trace}`)).body;
    expect(t.tags).toEqual([...new Set(tags)].sort());
    expect(t.input).toEqual(input);
    expect(t.observations.map((o: { name: string }) => o.name)).toEqual(names);
    expect(t.observations[0].metadata).toEqual({ k: [null, true] });
  });

  it('stores scores of every data type and rejects a score without a name', async () => {
    const res = await ingest([
      ev('score-create', { name: 'accuracy', value: 0.9, traceId: 't' }),
      ev('score-create', { name: 'label', value: 'good', dataType: 'CATEGORICAL', observationId: 'o' }),
      ev('score-create', { name: 'ok', value: 1, dataType: 'BOOLEAN', sessionId: 's' }),
      ev('score-create', { value: 1 }),
    ]);
    expect(res.successes).toHaveLength(3);
    expect(res.errors).toHaveLength(1);
  });

  it('explains a price without storing anything', async () => {
    const { name } = await flatModel({ input: 0.001 });
    const res = await raw('/api/public/models/explain', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: name, usageDetails: { input: 1000, output: 5 } }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      model: { modelName: name },
      tier: { name: 'Standard' },
      costStatus: 'partial',
      unpricedUsageKeys: ['output'],
      lines: [{ usageType: 'input', units: 1000, price: 0.001, cost: 1 }],
      totalCost: 1,
    });
  });
});
