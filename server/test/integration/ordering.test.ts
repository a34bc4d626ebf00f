// Updates of the same field in different batches are ordered by event timestamp, not by
// arrival: a batch whose events are older than those that set a field (an SDK's retried batch,
// say) leaves that field alone and sets only what no later event set.
import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const post = (batch: unknown[]) =>
  raw('/api/public/ingestion', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ batch }) });
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

describe('ordering of updates across batches', () => {
  it('keeps the newer endTime, output and usage when an older batch arrives second, and takes the fields only it sets', async () => {
    const id = unique('ordered-gen');
    const trace = unique('ordered-trace');
    const newer = await post([
      { id: unique('evt'), timestamp: at(10), type: 'trace-create', body: { id: trace, userId: 'user-new', tags: ['new'] } },
      {
        id: unique('evt'),
        timestamp: at(10),
        type: 'generation-update',
        body: { id, traceId: trace, endTime: at(10), output: 'final', usageDetails: { input: 10, output: 5 } },
      },
    ]);
    const older = await post([
      { id: unique('evt'), timestamp: at(0), type: 'trace-create', body: { id: trace, userId: 'user-old', tags: ['old'], release: 'r1' } },
      {
        id: unique('evt'),
        timestamp: at(0),
        type: 'generation-create',
        body: { id, traceId: trace, name: 'chat', startTime: at(0), model: 'some-model' },
      },
      {
        id: unique('evt'),
        timestamp: at(5),
        type: 'generation-update',
        body: { id, endTime: at(5), output: 'partial', level: 'WARNING', usageDetails: { input: 3 } },
      },
    ]);
    expect([newer.status, newer.body.errors, older.status, older.body.errors]).toEqual([207, [], 207, []]);
    const o = (await raw(`/api/public/observations/${id}`)).body;
    expect(o).toMatchObject({
      type: 'GENERATION',
      name: 'chat',
      model: 'some-model',
      startTime: at(0),
      level: 'WARNING',
      endTime: at(10),
      output: 'final',
      usageDetails: { input: 10, output: 5, total: 15 },
    });
    const t = (await raw(`/api/public/traces/${trace}`)).body;
    expect(t).toMatchObject({ userId: 'user-new', tags: ['new'], release: 'r1' });
    // the observation carries the trace's fields as merged
    const list = (await raw(`/api/public/observations?traceId=${trace}&userId=user-new`)).body;
    expect(list.data.map((x: { id: string }) => x.id)).toEqual([id]);
  });

  it('ends in the same state when the same two batches arrive in timestamp order', async () => {
    const id = unique('ordered-span');
    const first = [{ id: unique('evt'), timestamp: at(1), type: 'span-update', body: { id, output: 'old', statusMessage: 'only-old' } }];
    const second = [{ id: unique('evt'), timestamp: at(2), type: 'span-update', body: { id, output: 'new' } }];
    for (const batch of [first, second]) expect((await post(batch)).body.errors).toEqual([]);
    expect((await raw(`/api/public/observations/${id}`)).body).toMatchObject({ output: 'new', statusMessage: 'only-old' });
  });
});
