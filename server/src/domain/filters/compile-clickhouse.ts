// The compile stage of filters in ClickHouse's dialect (compile.ts is PostgreSQL's): a checked
// filter → a condition on a column expression, every value a {name:Type} placeholder that `bind`
// hands out. Each condition keeps PostgreSQL's answer, NULLs included: a condition PostgreSQL
// finds NULL (unknown) excludes the row, so here it is false or NULL too.
import type { CheckedFilter } from './check.ts';

/** a value as a query parameter of a ClickHouse type: returns its placeholder, e.g. {p3:String} */
export type Bind = (value: unknown, type: string) => string;

/**
 * The column a filter reads: its SQL, and for an array of a left-joined row (a score's trace's
 * tags), when the row is missing: PostgreSQL's array is NULL there, ClickHouse's is [].
 */
export interface FilterOperand {
  sql: string;
  missing?: string;
}

const COMPARISONS = new Set(['=', '>', '<', '>=', '<=']);
const op = (o: string) => {
  if (!COMPARISONS.has(o)) throw new Error(`operator ${o}`); // the spec's enums already exclude anything else
  return o;
};

// case-sensitive, as in PostgreSQL (strpos, left, right): bytes of UTF-8 match as characters do
function stringCondition(col: string, operator: string, v: string): string {
  switch (operator) {
    case '=':
      return `${col} = ${v}`;
    case 'contains':
      return `position(${col}, ${v}) > 0`;
    case 'does not contain':
      return `position(coalesce(${col}, ''), ${v}) = 0`;
    case 'starts with':
      return `startsWith(${col}, ${v})`;
    default:
      return `endsWith(${col}, ${v})`; // ends with
  }
}

/**
 * PostgreSQL's `metadata ->> key`: a string value as its text, another value as its JSON text,
 * a JSON null or a missing key as NULL (the column holds PostgreSQL's jsonb text)
 */
const jsonText = (col: string, key: string) =>
  `multiIf(JSONType(${col}, ${key}) = 'String', JSONExtractString(${col}, ${key}), JSONType(${col}, ${key}) = 'Null', NULL, JSONExtractRaw(${col}, ${key}))`;
const JSON_NUMBERS = "('Int64', 'UInt64', 'Double')";

export function filterConditionClickHouse(f: CheckedFilter, operand: FilterOperand, bind: Bind): string {
  const col = operand.sql;
  // shape-valid against the spec's filter of its type: a string, a number, a boolean, a date-time or a list
  const v = f.value;
  const present = (cond: string) => (operand.missing ? `(NOT (${operand.missing}) AND ${cond})` : cond);
  switch (f.type) {
    case 'string':
      return stringCondition(col, f.operator, bind(v, 'String'));
    case 'stringOptions': {
      const list = bind(v, 'Array(String)');
      return f.operator === 'any of' ? `has(${list}, ${col})` : `(${col} IS NULL OR NOT has(${list}, ${col}))`;
    }
    case 'number':
      return `${col} ${op(f.operator)} ${bind(v, 'Float64')}`;
    case 'datetime':
      return `${col} ${op(f.operator)} fromUnixTimestamp64Milli(${bind(new Date(v as string).getTime(), 'Int64')})`;
    case 'boolean':
      return f.operator === '=' ? `${col} = ${bind(v, 'Bool')}` : `NOT (${col} <=> ${bind(v, 'Bool')})`;
    case 'arrayOptions': {
      const list = bind(v, 'Array(String)');
      if (f.operator === 'any of') return present(`hasAny(${col}, ${list})`);
      if (f.operator === 'none of') return present(`NOT hasAny(${col}, ${list})`);
      return present(`hasAll(${col}, ${list})`);
    }
    case 'stringObject':
      return stringCondition(`(${jsonText(col, bind(f.key!, 'String'))})`, f.operator, bind(v, 'String'));
    case 'numberObject': {
      const key = bind(f.key!, 'String');
      return `if(JSONType(${col}, ${key}) IN ${JSON_NUMBERS}, toFloat64OrNull(JSONExtractRaw(${col}, ${key})), NULL) ${op(f.operator)} ${bind(v, 'Float64')}`;
    }
    case 'booleanObject': {
      const key = bind(f.key!, 'String');
      const equal = `ifNull(JSONType(${col}, ${key}) = 'Bool' AND JSONExtractBool(${col}, ${key}) = ${bind(v, 'Bool')}, 0)`;
      return f.operator === '=' ? equal : `NOT ${equal}`;
    }
    case 'null': {
      // text columns treat '' as missing, as Langfuse's nullIf(col, '') does
      const isNull = operand.missing ?? `${col} IS NULL`;
      if (f.columnType === 'string') return f.operator === 'is null' ? `(${isNull} OR ${col} = '')` : `(NOT (${isNull}) AND ${col} != '')`;
      return f.operator === 'is null' ? `(${isNull})` : `NOT (${isNull})`;
    }
    default:
      throw new Error(`filter type ${f.type} has no SQL`);
  }
}
