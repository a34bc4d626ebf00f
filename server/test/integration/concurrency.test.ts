import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const post = (batch: unknown[]) =>
  raw('/api/public/ingestion', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ batch }) });

describe('concurrent ingestion', () => {
  it('loses no field when many requests update one observation at the same time', async () => {
    const id = unique('contended');
    // one request per field; all sent at once, so their merges race on the same row
    const fields: Record<string, unknown>[] = [
      { name: 'n' },
      { output: 'last' },
      { level: 'WARNING' },
      { statusMessage: 'two' },
      { version: 'v4' },
      { completionStartTime: '2026-01-01T00:00:05Z' },
      { endTime: '2026-01-01T00:00:07Z' },
      { usageDetails: { input: 9 } },
      { environment: 'prod' },
      { input: 'question' },
      { metadata: { team: 'a' } },
      { model: 'some-model' },
    ];
    const results = await Promise.all(
      fields.map((f, i) =>
        post([
          {
            id: unique('evt'),
            timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
            type: i === 0 ? 'generation-create' : 'generation-update',
            body: { id, ...f },
          },
        ]),
      ),
    );
    for (const r of results) expect(r.body.errors).toEqual([]);
    const o = (await raw(`/api/public/observations/${id}`)).body;
    expect(o).toMatchObject({
      name: 'n',
      output: 'last',
      level: 'WARNING',
      statusMessage: 'two',
      version: 'v4',
      completionStartTime: '2026-01-01T00:00:05.000Z',
      endTime: '2026-01-01T00:00:07.000Z',
      usageDetails: { input: 9, total: 9 },
      environment: 'prod',
      input: 'question',
      metadata: { team: 'a' },
      model: 'some-model',
    });
  });
});

describe('trace fields under concurrency', () => {
  it('leaves every observation with the trace fields of the last trace change, whatever ran alongside', async () => {
    const trace = unique('contended-trace');
    const ids = Array.from({ length: 10 }, (_, i) => `${trace}-obs-${i}`);
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const first = await post([
      { id: unique('evt'), timestamp: at(0), type: 'trace-create', body: { id: trace, userId: 'user-before' } },
      ...ids.map((id) => ({ id: unique('evt'), timestamp: at(0), type: 'span-create', body: { id, traceId: trace } })),
    ]);
    expect(first.body.errors).toEqual([]);
    // the trace changes while every observation of it is updated by a batch of its own
    const results = await Promise.all([
      post([{ id: unique('evt'), timestamp: at(5), type: 'trace-create', body: { id: trace, userId: 'user-after' } }]),
      ...ids.map((id) =>
        post([{ id: unique('evt'), timestamp: at(6), type: 'span-update', body: { id, traceId: trace, level: 'WARNING' } }]),
      ),
    ]);
    for (const r of results) expect(r.body.errors).toEqual([]);
    const list = (await raw(`/api/public/observations?traceId=${trace}&userId=user-after&limit=50`)).body;
    expect(list.meta.totalItems).toBe(ids.length);
    expect(list.data.every((o: { level: string }) => o.level === 'WARNING')).toBe(true);
  });
});
