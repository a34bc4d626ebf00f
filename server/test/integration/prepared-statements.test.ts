// The hot ingestion statements run as named prepared statements on PostgreSQL (db/prepared.ts).
// PGlite has no pool to hook, so this runs in the PostgreSQL pass of the suite only.
import { describe, expect, it } from 'vitest';
import { namePreparedStatements } from '../../src/db/prepared.ts';

const url = process.env.DATABASE_URL;

describe.skipIf(!url)('named prepared statements', () => {
  it('prepares a marked statement once per connection and binds new values to it', async () => {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    namePreparedStatements(pool);
    const client = await pool.connect();
    try {
      const a = await client.query('/* prepared:tally_test_double */ select $1::int * 2 as x', [21]);
      const b = await client.query('/* prepared:tally_test_double */ select $1::int * 2 as x', [50]);
      expect([a.rows[0].x, b.rows[0].x]).toEqual([42, 100]);
      await client.query('select $1::int as unmarked', [1]);
      const { rows } = await client.query('select name from pg_prepared_statements order by name');
      expect(rows.map((r: { name: string }) => r.name)).toEqual(['tally_test_double']);
    } finally {
      client.release();
      await pool.end();
    }
  });
});
