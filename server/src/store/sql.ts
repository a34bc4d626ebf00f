// Raw-SQL helpers over MikroORM's Kysely instance: real bind parameters (MikroORM's own
// execute() inlines values), the same on PostgreSQL and PGlite.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { PREPARED_MARK } from '../db/prepared.ts';
import { MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS } from '../domain/time/timestamp.ts';

/**
 * Tally's statements are raw `sql` with a row type of their own (`sql<Row>`), never the query
 * builder: the instance knows no tables.
 */
export type Db = Kysely<unknown>;
export const kysely = (em: SqlEntityManager): Db => em.getKysely<unknown>();
export { sql };
export type { RawBuilder };

/**
 * A timestamptz column in a row: text as both drivers return it ("2026-01-01 10:00:00.123+00"),
 * or a JSON string when the row was read through to_jsonb; toDate() reads either (and a Date).
 */
export type Timestamp = string | Date;
/** a numeric or bigint column (decimal text from the drivers), or a number when read through to_jsonb */
export type Numeric = string | number;

/**
 * timestamptz as both drivers return it ("2026-01-01 10:00:00.123+00") → Date. Tally refuses
 * timestamps outside years 1000–9999 (domain/time/timestamp.ts), but a row stored by an earlier
 * version may hold one ("0001-01-01 00:00:00+00 BC", "10000-01-01 …"): it reads as the nearest
 * bound of the range rather than as an Invalid Date that fails every read of the row.
 */
export function toDate(v: unknown): Date {
  const d =
    v instanceof Date
      ? v
      : new Date(
          String(v)
            .replace(' ', 'T')
            .replace(/([+-]\d\d)$/, '$1:00'),
        );
  const ms = d.getTime();
  if (ms >= MIN_TIMESTAMP_MS && ms <= MAX_TIMESTAMP_MS) return d;
  const early = Number.isNaN(ms) ? / BC$/.test(String(v)) : ms < MIN_TIMESTAMP_MS;
  return new Date(early ? MIN_TIMESTAMP_MS : MAX_TIMESTAMP_MS);
}
export const toDateOrNull = (v: unknown) => (v === null || v === undefined ? null : toDate(v));
export const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * Marks a statement as a named prepared statement (db/prepared.ts): PostgreSQL parses and plans
 * it once per connection. Only for statements whose text is the same on every call.
 */
export const prepared = <T>(name: string, statement: RawBuilder<T>): RawBuilder<T> =>
  sql<T>`${sql.raw(`${PREPARED_MARK}${name} */ `)}${statement}`;

/**
 * The embedded database (PGlite) has a single connection: its transactions run one after the
 * other, so there is nothing for a batch to lock against (store/existing.ts lockTraces, whose
 * statement cost PGlite ~1 ms per batch, 15% of the contention probe's throughput).
 */
export const runsOneAtATime = (em: SqlEntityManager): boolean => em.getPlatform().constructor.name === 'PglitePlatform';

/** a row changed since it was read: the batch must be re-applied on fresh rows */
export class ConcurrentWriteError extends Error {}

/** the SQLSTATE of a driver error, which may be wrapped (`cause`) */
function hasCode(e: unknown, codes: string[]): boolean {
  for (let x = e as { code?: unknown; cause?: unknown } | undefined, depth = 0; x && depth < 5; x = x.cause as typeof x, depth++) {
    if (typeof x.code === 'string' && codes.includes(x.code)) return true;
  }
  return false;
}

/**
 * PostgreSQL rolled the transaction back because of another one (deadlock, serialization
 * failure), or a row changed since it was read: running it again is safe.
 */
export const isTransientConflict = (e: unknown): boolean => e instanceof ConcurrentWriteError || hasCode(e, ['40P01', '40001']);

/** a statement waited for a row lock longer than lock_timeout (55P03): other batches hold the rows */
export const isLockTimeout = (e: unknown): boolean => hasCode(e, ['55P03']);
