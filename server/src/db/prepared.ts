// Named prepared statements for the hot ingestion statements on PostgreSQL.
//
// Kysely sends every query unnamed, so PostgreSQL parses, analyses and plans each batch's
// 45-column upsert anew: about 15% of the backend's CPU per event. A statement whose text
// starts with a `/* prepared:<name> */` marker (see store/sql.ts) is sent as the named
// statement <name> instead: node-pg parses it once per connection and binds it afterwards.
// The text behind one name must never change; the marker's name is chosen per call site.
import type { Pool, PoolClient } from 'pg';

export const PREPARED_MARK = '/* prepared:';

export function namePreparedStatements(pool: Pool): void {
  pool.on('connect', (client) => {
    const query = client.query as (...args: unknown[]) => unknown;
    client.query = function (this: PoolClient, ...args: unknown[]) {
      const [text, values, callback] = args;
      if (typeof text === 'string' && text.startsWith(PREPARED_MARK)) {
        const name = text.slice(PREPARED_MARK.length, text.indexOf(' */'));
        return query.call(this, { name, text, values }, callback);
      }
      return query.apply(this, args);
    } as PoolClient['query'];
  });
}
