// Raw-SQL helpers over MikroORM's Kysely instance: real bind parameters (MikroORM's own
// execute() inlines values), the same on PostgreSQL and PGlite.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { SqlEntityManager } from '@mikro-orm/sql';

export type Db = Kysely<any>;
export const kysely = (em: SqlEntityManager): Db => em.getKysely() as Db;
export { sql };

/** timestamptz as both drivers return it ("2026-01-01 10:00:00.123+00") → Date */
export function toDate(v: unknown): Date {
  if (v instanceof Date) return v;
  const s = String(v).replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00');
  return new Date(s);
}
export const toDateOrNull = (v: unknown) => (v === null || v === undefined ? null : toDate(v));
export const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export interface Column<T> {
  name: string;
  get: (row: T) => unknown;
  cast?: string;
}

/** INSERT … VALUES (…), (…) ON CONFLICT (key) DO UPDATE SET every non-key column */
export function upsert<T>(table: string, columns: Column<T>[], rows: T[], key: string[]): RawBuilder<unknown> {
  const names = sql.raw(columns.map((c) => c.name).join(', '));
  const values = sql.join(rows.map((r) => sql`(${sql.join(columns.map((c) => (c.cast ? sql`cast(${c.get(r)} as ${sql.raw(c.cast)})` : sql`${c.get(r)}`)))})`));
  const updates = sql.raw(columns.filter((c) => !key.includes(c.name)).map((c) => `${c.name} = excluded.${c.name}`).join(', '));
  return sql`insert into ${sql.raw(table)} (${names}) values ${values} on conflict (${sql.raw(key.join(', '))}) do update set ${updates}`;
}

export const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
