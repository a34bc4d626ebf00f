// Bulk upsert of one table's rows in one statement whose text is the same for every batch:
// each column travels as one array parameter, unnested back into rows in SQL.
import { sql, type RawBuilder } from './sql.ts';

/** element type of a column, as PostgreSQL names it; `text[]` columns travel as array literals */
export type ColumnType = 'text' | 'integer' | 'numeric' | 'double precision' | 'boolean' | 'timestamptz' | 'jsonb' | 'text[]';

export interface Column<T> {
  name: string;
  /** the value as stored; a jsonb column returns the JS value itself (upsert serialises it) */
  get: (row: T) => unknown;
  type: ColumnType;
}

// Each column travels as one array literal built here rather than as a JS array that node-pg
// encodes element by element (two regex passes and quotes even for numbers): building these
// was ~8% of the server's CPU per ingested event.
const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;
const quoted = (s: string) => `"${NEEDS_ESCAPE.test(s) ? s.replace(ESCAPED, '\\$&') : s}"`;

function element(v: unknown, type: ColumnType): string {
  if (v === undefined || v === null) return 'NULL';
  switch (type) {
    case 'integer':
    case 'numeric':
    case 'double precision':
      return String(v);
    case 'boolean':
      return v ? 't' : 'f';
    // epoch milliseconds, turned back into a timestamp in SQL (timestampFromMs): a tenth of
    // the cost of toISOString
    case 'timestamptz':
      return String((v as Date).getTime());
    // a literal inside the column's literal: quoted twice
    case 'text[]':
      return quoted(`{${(v as string[]).map(quoted).join(',')}}`);
    default:
      return quoted(String(v));
  }
}

/**
 * One column of every row as a PostgreSQL array literal, or for jsonb as one JSON array (a
 * single native JSON.stringify instead of a stringify plus escaping per value). Rows of a batch
 * often share a value (the trace's tags, the batch's timestamp), so a value equal to the
 * previous row's is not encoded again. A column that is null in every row travels as SQL NULL:
 * unnest pads a null array with nulls to the length of the others, and PostgreSQL then parses
 * nothing for it (a generation sent with usage leaves about ten of the 46 columns empty, and
 * each all-null jsonb array cost the backend ~0.1 ms per batch to parse and aggregate).
 */
export function columnParam<T>(rows: T[], column: Column<T>): string | null {
  const get = column.get;
  if (column.type === 'jsonb') {
    const values = new Array<unknown>(rows.length);
    let present = false;
    for (let i = 0; i < rows.length; i++) {
      const v = get(rows[i]!);
      values[i] = v;
      if (v !== null && v !== undefined) present = true;
    }
    return present ? JSON.stringify(values) : null;
  }
  let out = '{';
  let previous: unknown,
    encoded = '',
    present = false;
  for (let i = 0; i < rows.length; i++) {
    const v = get(rows[i]!);
    if (i === 0 || v !== previous) {
      encoded = element(v, column.type);
      if (v !== null && v !== undefined) present = true;
    }
    previous = v;
    out += (i ? ',' : '') + encoded;
  }
  return present ? `${out}}` : null;
}

/** how each column type travels (see element) */
const ARRAY_TYPE: Record<Exclude<ColumnType, 'jsonb'>, string> = {
  text: 'text',
  integer: 'integer',
  numeric: 'numeric',
  'double precision': 'double precision',
  boolean: 'boolean',
  timestamptz: 'bigint',
  'text[]': 'text',
};

// whole seconds and the remaining milliseconds apart: exact for any year (one double of epoch
// seconds loses microseconds after 2242)
export const timestampFromMs = (column: string) => `to_timestamp(${column} / 1000) + (${column} % 1000) * interval '1 millisecond'`;

// a JSON array parameter as jsonb[]; JSON null and missing values become SQL NULL
const jsonbArray = (param: string | null) =>
  sql`(select array_agg(nullif(e, 'null'::jsonb) order by i) from jsonb_array_elements(cast(${param} as jsonb)) with ordinality as x(e, i))`;

/**
 * The column list, the row source and the select list that turns its columns back into values.
 * The source unnests one array per column in parallel, padding shorter ones with nulls (which is
 * what a column sent as SQL NULL relies on). A jsonb column travels as one JSON array: by default
 * aggregated into a jsonb[] (ordered by position) that is unnested with the rest; with `zipJson`
 * its elements are zipped in directly, ROWS FROM (unnest(…), jsonb_array_elements(…), …), which
 * cost PostgreSQL ~0.1 ms less per jsonb column of a 100-row batch. The price: the planner then
 * estimates 100 source rows (jsonb_array_elements' declared rows) instead of 10, so only a
 * statement whose written rows drive no join may use it (see upsertTraces, whose copy onto
 * observations turned into a scan of the project's observations with it).
 */
function unnested<T>(columns: Column<T>[], rows: T[], zipJson = false) {
  const names = columns.map((c) => c.name);
  const arrayOf = (c: Column<T>) => sql`cast(${columnParam(rows, c)} as ${sql.raw(ARRAY_TYPE[c.type as Exclude<ColumnType, 'jsonb'>])}[])`;
  const source = zipJson
    ? sql`rows from (${sql.join(columns.map((c) => (c.type === 'jsonb' ? sql`jsonb_array_elements(cast(${columnParam(rows, c)} as jsonb))` : sql`unnest(${arrayOf(c)})`)))})`
    : sql`unnest(${sql.join(columns.map((c) => (c.type === 'jsonb' ? jsonbArray(columnParam(rows, c)) : arrayOf(c))))})`;
  const values = columns.map((c) =>
    c.type === 'text[]'
      ? `cast(u.${c.name} as text[])`
      : c.type === 'timestamptz'
        ? timestampFromMs(`u.${c.name}`)
        : // JSON null elements (a row without the value) become SQL NULL
          c.type === 'jsonb' && zipJson
          ? `nullif(u.${c.name}, 'null'::jsonb)`
          : `u.${c.name}`,
  );
  const updates = sql.raw(
    names
      .filter((n) => n !== 'id')
      .map((n) => `${n} = excluded.${n}`)
      .join(', '),
  );
  return { names, source, values, updates };
}

/**
 * INSERT … SELECT FROM unnest(one array per column) ON CONFLICT (project_id, id) DO UPDATE SET
 * every other column. One parameter per column whatever the row count, so the text is the same
 * for every batch (a prepared statement) and small to send and plan (a VALUES list of 100 rows
 * × 45 columns was a fifth of the CPU). project_id is one parameter for all rows.
 */
export function upsert<T>(table: string, projectId: string, columns: Column<T>[], rows: T[]): RawBuilder<unknown> {
  const { names, source, values, updates } = unnested(columns, rows);
  return sql`insert into ${sql.raw(table)} (project_id, ${sql.raw(names.join(', '))})
    select cast(${projectId} as text), ${sql.raw(values.join(', '))} from ${source} as u(${sql.raw(names.join(', '))})
    on conflict (project_id, id) do update set ${updates}`;
}

/**
 * The guarded write of merged rows, as common table expressions (no WITH) that end in one
 * named `written`, holding `returning` of every row written. A row `stored` (read, and locked,
 * by the batch's claim: store/existing.ts) is updated only if it is still at the revision it
 * was read at; any other row is inserted only if no row has its id by now. A row missing from
 * `written` was changed or created by a concurrent batch.
 *
 * New rows take ON CONFLICT DO NOTHING, not DO UPDATE: DO UPDATE locks the row it meets, so a
 * batch that found no row at claim time would wait on a row another batch created meanwhile
 * and then locked in its claim, outside the id order the claims lock in (a deadlock PostgreSQL
 * breaks only after deadlock_timeout, 1 s). DO NOTHING waits only for a concurrent insert of
 * the same id, and new rows are inserted in the order given (by id), so two batches inserting
 * the same ids wait for each other in one order. `variant` names the statement's shape, which
 * the caller puts in the name of its prepared statement.
 */
export function guardedUpsert<T>(
  table: string,
  projectId: string,
  columns: Column<T>[],
  rows: T[],
  stored: (row: T) => boolean,
  returning = ['id'],
  opts: { zipJson?: boolean } = {},
): { variant: 'new' | 'stored' | 'mixed'; ctes: RawBuilder<unknown> } {
  const storedRows = rows.filter(stored);
  const storedCount = storedRows.length;
  const ordered = storedCount === rows.length || storedCount === 0 ? rows : [...storedRows, ...rows.filter((r) => !stored(r))];
  const { names, source, values, updates } = unnested(columns, ordered, opts.zipJson);
  const cols = sql.raw(names.join(', '));
  const ret = sql.raw(returning.join(', '));
  const t = sql.raw(table);
  const onConflictStored = sql`on conflict (project_id, id) do update set ${updates} where ${t}.revision = excluded.revision - 1 returning ${ret}`;
  const onConflictNew = sql`on conflict (project_id, id) do nothing returning ${ret}`;
  // a batch of new rows only (bulk ingestion) or of stored rows only (updates) takes one plain
  // INSERT; only a mix needs the rows split between two (a statement text of its own for each)
  if (storedCount === 0 || storedCount === rows.length) {
    const select = sql`select cast(${projectId} as text), ${sql.raw(values.join(', '))} from ${source} as u(${cols})`;
    return storedCount === 0
      ? { variant: 'new', ctes: sql`written as (insert into ${t} (project_id, ${cols}) ${select} ${onConflictNew})` }
      : { variant: 'stored', ctes: sql`written as (insert into ${t} (project_id, ${cols}) ${select} ${onConflictStored})` };
  }
  return {
    variant: 'mixed',
    ctes: sql`batch_rows as materialized (
      select ${sql.raw(values.map((v, i) => `${v} as ${names[i]}`).join(', '))}, u.i
      from ${source} with ordinality as u(${cols}, i)),
    stored_rows as (insert into ${t} (project_id, ${cols}) select cast(${projectId} as text), ${cols} from batch_rows where i <= cast(${storedCount} as bigint)
      ${onConflictStored}),
    new_rows as (insert into ${t} (project_id, ${cols}) select cast(${projectId} as text), ${cols} from batch_rows where i > cast(${storedCount} as bigint)
      ${onConflictNew}),
    written as (select ${ret} from stored_rows union all select ${ret} from new_rows)`,
  };
}

/**
 * `written` as an UPDATE of some columns of stored rows (`columns` includes `id` and `revision`,
 * the new revision): a row is written only if it is still at the revision before, so the caller
 * compares `written` with its rows as guardedUpsert's callers do.
 */
export function guardedUpdate<T>(
  table: string,
  projectId: string,
  columns: Column<T>[],
  rows: T[],
  returning: string[],
): RawBuilder<unknown> {
  const { names, source, values } = unnested(columns, rows);
  const sets = names.filter((n) => n !== 'id').map((n) => `${n} = v.${n}`);
  return sql`written as (update ${sql.raw(table)} t set ${sql.raw(sets.join(', '))}
    from (select ${sql.raw(values.map((v, i) => `${v} as ${names[i]}`).join(', '))} from ${source} as u(${sql.raw(names.join(', '))})) v
    where t.project_id = ${projectId} and t.id = v.id and t.revision = v.revision - 1
    returning ${sql.raw(returning.map((c) => `t.${c}`).join(', '))})`;
}
