// Issue 7: contention is not an error. Concurrent batches on the same observations queue on
// row locks (store/existing.ts) instead of colliding; each is applied, none answers 5xx.
// (PGlite has one connection, so batches there run one after the other anyway.)
import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const post = (batch: unknown[]) =>
  raw('/api/public/ingestion', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ batch }) });

describe('ingestion under contention', () => {
  it('applies every batch of 8 writers updating the same few observations at the same time, each field ending with its latest event', async () => {
    const run = unique('contention');
    const ids = Array.from({ length: 4 }, (_, i) => `${run}-obs-${i}`);
    const trace = `${run}-trace`;
    const WRITERS = 8,
      ROUNDS = 20;
    let seq = 0;
    /** per observation, the output of the acknowledged event with the latest timestamp */
    const latest = new Map<string, { ts: string; output: string }>();
    const answers: { status: number; errors: unknown[]; message?: string }[] = [];
    // every batch updates all the shared observations (the first ones create them), and every
    // 4th also changes their trace, whose fields are then copied onto them
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let n = 0; n < ROUNDS; n++) {
          const at = () => new Date(Date.UTC(2026, 0, 1) + seq++ * 10).toISOString();
          const events: unknown[] = ids.map((id, i) => ({
            id: unique('evt'),
            timestamp: at(),
            type: i % 2 ? 'span-update' : 'generation-update',
            body: { id, traceId: trace, output: `w${w}-n${n}`, level: n % 2 ? 'WARNING' : 'DEFAULT' },
          }));
          if (n % 4 === w % 4)
            events.push({ id: unique('evt'), timestamp: at(), type: 'trace-create', body: { id: trace, userId: `user-w${w}-n${n}` } });
          const r = await post(events);
          answers.push({ status: r.status, errors: r.body.errors ?? [], message: r.body.message });
          if (r.status !== 207) continue;
          for (const e of events as { timestamp: string; type: string; body: { id: string; output?: string } }[]) {
            if (e.type === 'trace-create' || (latest.get(e.body.id)?.ts ?? '') > e.timestamp) continue;
            latest.set(e.body.id, { ts: e.timestamp, output: e.body.output! });
          }
        }
      }),
    );
    expect(answers.filter((a) => a.status !== 207 || a.errors.length)).toEqual([]);
    expect(answers).toHaveLength(WRITERS * ROUNDS);
    // each observation holds the output of its latest event, whatever order the batches ran in
    for (const id of ids) expect((await raw(`/api/public/observations/${id}`)).body.output).toBe(latest.get(id)!.output);
    // every observation carries the trace fields of the trace as stored
    const t = (await raw(`/api/public/traces/${trace}`)).body;
    for (const id of ids)
      expect(
        (await raw(`/api/public/observations?traceId=${trace}&userId=${t.userId}&limit=10`)).body.data.map((o: { id: string }) => o.id),
      ).toContain(id);
  });
});
