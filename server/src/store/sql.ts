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

/** element type of a column, as PostgreSQL names it; `text[]` columns travel as array literals */
export type ColumnType = 'text' | 'integer' | 'numeric' | 'double precision' | 'boolean' | 'timestamptz' | 'jsonb' | 'text[]';

export interface Column<T> {
  name: string;
  /** the value as stored; a jsonb column returns the JS value itself (upsert serialises it) */
  get: (row: T) => unknown;
  type: ColumnType;
}

/** a JS string list as a PostgreSQL array literal (unnest cannot take arrays of arrays) */
export function arrayLiteral(items: string[] | null | undefined): string | null {
  if (!items) return null;
  return '{' + items.map((s) => '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"').join(',') + '}';
}

// Each column travels as one array literal built here rather than as a JS array that node-pg
// encodes element by element (two regex passes and quotes even for numbers): building these
// was ~8% of the server's CPU per ingested event.
const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;
const quoted = (s: string) => '"' + (NEEDS_ESCAPE.test(s) ? s.replace(ESCAPED, '\\$&') : s) + '"';

function element(v: unknown, type: ColumnType): string {
  if (v === undefined || v === null) return 'NULL';
  switch (type) {
    case 'integer': case 'numeric': case 'double precision': return String(v);
    case 'boolean': return v ? 't' : 'f';
    // epoch milliseconds, turned back into a timestamp in SQL (timestampFromMs): a tenth of
    // the cost of toISOString
    case 'timestamptz': return String((v as Date).getTime());
    case 'text[]': return quoted(arrayLiteral(v as string[])!);
    default: return quoted(String(v));
  }
}

/**
 * One column of every row as a PostgreSQL array literal, or for jsonb as one JSON array (a
 * single native JSON.stringify instead of a stringify plus escaping per value). Rows of a batch
 * often share a value (the trace's tags, the batch's timestamp), so a value equal to the
 * previous row's is not encoded again.
 */
export function columnParam<T>(rows: T[], column: Column<T>): string {
  if (column.type === 'jsonb') return JSON.stringify(rows.map(column.get));
  let out = '{';
  let previous: unknown = undefined, encoded = '';
  for (let i = 0; i < rows.length; i++) {
    const v = column.get(rows[i]!);
    if (i === 0 || v !== previous) encoded = element(v, column.type);
    previous = v;
    out += (i ? ',' : '') + encoded;
  }
  return out + '}';
}

// a JSON array parameter as jsonb[]; JSON null and missing values become SQL NULL
const jsonbArray = (param: string) =>
  sql`(select array_agg(nullif(e, 'null'::jsonb) order by i) from jsonb_array_elements(cast(${param} as jsonb)) with ordinality as x(e, i))`;

/** how each column type travels (see element) */
const ARRAY_TYPE: Record<Exclude<ColumnType, 'jsonb'>, string> = {
  text: 'text', integer: 'integer', numeric: 'numeric', 'double precision': 'double precision', boolean: 'boolean',
  timestamptz: 'bigint', 'text[]': 'text',
};

// whole seconds and the remaining milliseconds apart: exact for any year (one double of epoch
// seconds loses microseconds after 2242)
const timestampFromMs = (column: string) => `to_timestamp(${column} / 1000) + (${column} % 1000) * interval '1 millisecond'`;

/**
 * INSERT … SELECT FROM unnest(one array per column) ON CONFLICT (project_id, id) DO UPDATE SET
 * every other column. One parameter per column whatever the row count, so the text is the same
 * for every batch (a prepared statement) and small to send and plan (a VALUES list of 100 rows
 * × 45 columns was a fifth of the CPU). project_id is one parameter for all rows.
 */
export function upsert<T>(table: string, projectId: string, columns: Column<T>[], rows: T[], opts: { guardRevision?: boolean; returning?: string[] } = {}): RawBuilder<unknown> {
  const names = columns.map((c) => c.name);
  const arrays = columns.map((c) =>
    c.type === 'jsonb' ? jsonbArray(columnParam(rows, c)) : sql`cast(${columnParam(rows, c)} as ${sql.raw(ARRAY_TYPE[c.type])}[])`);
  const select = sql.raw(columns.map((c) => (c.type === 'text[]' ? `cast(u.${c.name} as text[])` : c.type === 'timestamptz' ? timestampFromMs(`u.${c.name}`) : `u.${c.name}`)).join(', '));
  const updates = sql.raw(names.filter((n) => n !== 'id').map((n) => `${n} = excluded.${n}`).join(', '));
  return sql`insert into ${sql.raw(table)} (project_id, ${sql.raw(names.join(', '))})
    select cast(${projectId} as text), ${select} from unnest(${sql.join(arrays)}) as u(${sql.raw(names.join(', '))})
    on conflict (project_id, id) do update set ${updates}
    ${opts.guardRevision ? sql.raw(`where ${table}.revision = excluded.revision - 1 returning ${(opts.returning ?? ['id']).join(', ')}`) : sql``}`;
}

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
