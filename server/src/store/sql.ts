// Raw-SQL helpers over MikroORM's Kysely instance: real bind parameters (MikroORM's own
// execute() inlines values), the same on PostgreSQL and PGlite.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { PREPARED_MARK } from '../db/prepared.ts';

export type Db = Kysely<any>;
export const kysely = (em: SqlEntityManager): Db => em.getKysely() as Db;
export { sql };
export type { RawBuilder };

/** timestamptz as both drivers return it ("2026-01-01 10:00:00.123+00") → Date */
export function toDate(v: unknown): Date {
  if (v instanceof Date) return v;
  const s = String(v).replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00');
  return new Date(s);
}
export const toDateOrNull = (v: unknown) => (v === null || v === undefined ? null : toDate(v));
export const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * Marks a statement as a named prepared statement (db/prepared.ts): PostgreSQL parses and plans
 * it once per connection. Only for statements whose text is the same on every call.
 */
export const prepared = <T>(name: string, statement: RawBuilder<T>): RawBuilder<T> => sql<T>`${sql.raw(`${PREPARED_MARK}${name} */ `)}${statement}`;

/** a row changed since it was read: the batch must be re-applied on fresh rows */
export class ConcurrentWriteError extends Error {}

/**
 * PostgreSQL rolled the transaction back because of another one (deadlock, serialization
 * failure): running it again is safe. The driver's error may be wrapped (`cause`).
 */
export function isTransientConflict(e: unknown): boolean {
  if (e instanceof ConcurrentWriteError) return true;
  for (let x = e as { code?: unknown; cause?: unknown } | undefined, depth = 0; x && depth < 5; x = x.cause as typeof x, depth++) {
    if (x.code === '40P01' || x.code === '40001') return true;
  }
  return false;
}
