// One statement on the PostgreSQL server of DATABASE_URL, from its `postgres` database: tests
// that need a database of their own create and drop it with this.
import pg from 'pg';

export async function pgAdmin(statement: string, url = process.env.DATABASE_URL): Promise<void> {
  if (!url) throw new Error('pgAdmin needs DATABASE_URL');
  const c = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}
