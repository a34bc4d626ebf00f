// Large inputs and outputs are compressed with lz4 where the server has it (migration 14). The
// suite's PostgreSQL pass checks the columns and a generation ingested with a large input; on
// PGlite (no lz4) the migration is skipped and the same generation is stored with pglz.
import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const url = process.env.DATABASE_URL;

describe.skipIf(!url)('payload compression on PostgreSQL', () => {
  it('stores a large observation input with lz4 and reads it back unchanged', async () => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(`select attrelid::regclass::text as t, attname, attcompression from pg_attribute
        where attrelid in ('observations'::regclass, 'traces'::regclass) and attname in ('input', 'output', 'metadata') order by 1, 2`);
      expect(rows).toHaveLength(6);
      for (const r of rows) expect(r.attcompression, `${r.t}.${r.attname}`).toBe('l');

      const id = unique('lz4-gen');
      const input = [{ role: 'user', content: 'usage tokens cost café 日本語 '.repeat(400) }];
      const res = await raw('/api/public/ingestion', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          batch: [
            {
              id: unique('evt'),
              timestamp: new Date().toISOString(),
              type: 'generation-create',
              body: { id, model: 'gpt-4o-mini', input, usageDetails: { input: 10 } },
            },
          ],
        }),
      });
      expect(res.status).toBe(207);
      const stored = await client.query('select pg_column_compression(input) as method from observations where id = $1', [id]);
      expect(stored.rows).toEqual([{ method: 'lz4' }]);
      expect((await raw(`/api/public/observations/${id}`)).body.input).toEqual(input);
    } finally {
      await client.end();
    }
  });
});
