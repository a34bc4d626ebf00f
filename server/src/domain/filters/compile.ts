// The compile stage of filters (check.ts is the first): a checked filter → a SQL condition on a
// given column expression, every value a bind parameter. Pure (it builds SQL text, runs
// nothing): the observations list (store/filter-sql.ts) and the metrics compiler share it.
import { sql, type RawBuilder } from 'kysely';
import type { CheckedFilter } from './check.ts';

// string operators are case-sensitive, as in Langfuse; strpos/left/right avoid LIKE's wildcards
function stringCondition(col: RawBuilder<unknown>, operator: string, v: string): RawBuilder<unknown> {
  switch (operator) {
    case '=':
      return sql`${col} = ${v}`;
    case 'contains':
      return sql`strpos(${col}, ${v}) > 0`;
    case 'does not contain':
      return sql`strpos(coalesce(${col}, ''), ${v}) = 0`;
    case 'starts with':
      return sql`left(${col}, length(${v})) = ${v}`;
    default:
      return sql`right(${col}, length(${v})) = ${v}`; // ends with
  }
}

const COMPARISONS = new Set(['=', '>', '<', '>=', '<=']);
const op = (o: string) => {
  if (!COMPARISONS.has(o)) throw new Error(`operator ${o}`); // the spec's enums already exclude anything else
  return sql.raw(o);
};

export function filterCondition(f: CheckedFilter, col: RawBuilder<unknown>): RawBuilder<unknown> {
  // shape-valid against the spec's filter of its type: a string, a number, a boolean, a date-time or a list
  const v = f.value;
  switch (f.type) {
    case 'string':
      return stringCondition(col, f.operator, v as string);
    case 'stringOptions':
      return f.operator === 'any of' ? sql`${col} = any(${v})` : sql`(${col} is null or not (${col} = any(${v})))`;
    // numeric, so an integer column compared with 1e308 widens instead of failing the cast
    case 'number':
      return sql`${col} ${op(f.operator)} cast(${v} as numeric)`;
    case 'datetime':
      return sql`${col} ${op(f.operator)} ${new Date(v as string)}`;
    case 'boolean':
      return f.operator === '=' ? sql`${col} = ${v}` : sql`${col} is distinct from ${v}`;
    case 'arrayOptions':
      if (f.operator === 'any of') return sql`${col} && cast(${v} as text[])`;
      if (f.operator === 'none of') return sql`not (${col} && cast(${v} as text[]))`;
      return sql`${col} @> cast(${v} as text[])`;
    case 'stringObject':
      return stringCondition(sql`(${col} ->> ${f.key!})`, f.operator, v as string);
    case 'numberObject':
      return sql`(case when jsonb_typeof(${col} -> ${f.key!}) = 'number' then (${col} ->> ${f.key!})::numeric end) ${op(f.operator)} cast(${v} as numeric)`;
    case 'booleanObject':
      return f.operator === '='
        ? sql`(${col} -> ${f.key!}) = to_jsonb(cast(${v} as boolean))`
        : sql`(${col} -> ${f.key!}) is distinct from to_jsonb(cast(${v} as boolean))`;
    case 'null':
      // text columns treat '' as missing, as Langfuse's nullIf(col, '') does
      if (f.columnType === 'string')
        return f.operator === 'is null' ? sql`nullif(${col}, '') is null` : sql`nullif(${col}, '') is not null`;
      return f.operator === 'is null' ? sql`${col} is null` : sql`${col} is not null`;
    default:
      throw new Error(`filter type ${f.type} has no SQL`);
  }
}
