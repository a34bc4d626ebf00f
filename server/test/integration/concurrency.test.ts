import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const post = (batch: unknown[]) =>
  raw('/api/public/ingestion', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ batch }) });

describe('concurrent ingestion', () => {
  it('loses no field when many requests update one observation at the same time', async () => {
    const id = unique('contended');
    // one request per field; all sent at once, so their merges race on the same row
    const fields: Record<string, unknown>[] = [
      { name: 'n' }, { output: 'last' }, { level: 'WARNING' }, { statusMessage: 'two' }, { version: 'v4' },
      { completionStartTime: '2026-01-01T00:00:05Z' }, { endTime: '2026-01-01T00:00:07Z' }, { usageDetails: { input: 9 } },
      { environment: 'prod' }, { input: 'question' }, { metadata: { team: 'a' } }, { model: 'some-model' },
    ];
    const results = await Promise.all(fields.map((f, i) => post([{
      id: unique('evt'), timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      type: i === 0 ? 'generation-create' : 'generation-update', body: { id, ...f },
    }])));
    for (const r of results) expect(r.body.errors).toEqual([]);
    const o = (await raw(`/api/public/observations/${id}`)).body;
    expect(o).toMatchObject({
      name: 'n', output: 'last', level: 'WARNING', statusMessage: 'two', version: 'v4', completionStartTime: '2026-01-01T00:00:05.000Z',
      endTime: '2026-01-01T00:00:07.000Z', usageDetails: { input: 9, total: 9 }, environment: 'prod', input: 'question', metadata: { team: 'a' },
      model: 'some-model',
    });
  });
});
