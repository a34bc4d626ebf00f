// Checks filters (already shape-valid against the spec's `Filter`) against the columns of a
// view: unknown columns and type mismatches are errors with Langfuse's wording. Pure: the
// SQL is built by the store from the checked result.

export type ColumnType = 'string' | 'number' | 'datetime' | 'string[]' | 'boolean' | 'object';

export interface Filter {
  type: string;
  column: string;
  operator: string;
  value: unknown;
  key?: string;
}

export interface CheckedFilter extends Filter {
  /** the catalog entry the column resolved to */
  target: string;
  columnType: ColumnType;
}

/** the filter types a column of each type accepts (`null` on any) */
export const ALLOWED_FILTER_TYPES: Record<ColumnType, string[]> = {
  string: ['string', 'stringOptions'],
  number: ['number'],
  datetime: ['datetime'],
  'string[]': ['arrayOptions'],
  boolean: ['boolean'],
  object: ['stringObject', 'numberObject', 'booleanObject'],
};

const quoteList = (xs: string[]) =>
  xs.length === 1 ? `'${xs[0]}'` : xs.length === 2 ? `'${xs[0]}' or '${xs[1]}'` : xs.map((x) => `'${x}'`).join(', ');

export type FilterCheck = { ok: true; filters: CheckedFilter[] } | { ok: false; message: string };

export function checkFilters(filters: Filter[], columns: Record<string, ColumnType>): FilterCheck {
  const checked: CheckedFilter[] = [];
  for (const f of filters) {
    // Langfuse: an unknown column ending in "Name" means the `name` dimension (LFE-4838)
    // own keys only: a column named `__proto__` or `valueOf` is unknown, not Object's
    const target = Object.hasOwn(columns, f.column)
      ? f.column
      : f.column.endsWith('Name') && Object.hasOwn(columns, 'name')
        ? 'name'
        : null;
    if (!target) return { ok: false, message: `Invalid filter column ${f.column}. Must be one of ${Object.keys(columns).join(', ')}` };
    const columnType = columns[target]!;
    if (columnType === 'object' && !ALLOWED_FILTER_TYPES.object.includes(f.type) && f.type !== 'null') {
      return {
        ok: false,
        message: `Invalid filter for field '${f.column}': Metadata filters require type 'stringObject' with a 'key' property, not '${f.type}'. Example: {"type":"stringObject","column":"${f.column}","key":"environment","operator":"=","value":"production"}`,
      };
    }
    if (f.type !== 'null' && !ALLOWED_FILTER_TYPES[columnType].includes(f.type)) {
      return {
        ok: false,
        message: `Invalid filter for field '${f.column}': Filter type '${f.type}' is not supported for dimension type '${columnType}'. Expected ${quoteList(ALLOWED_FILTER_TYPES[columnType])}.`,
      };
    }
    checked.push({ ...f, target, columnType });
  }
  return { ok: true, filters: checked };
}

/** Filterable columns of an observation (the list endpoint's `filter`). */
export const OBSERVATION_FILTER_COLUMNS: Record<string, ColumnType> = {
  id: 'string',
  traceId: 'string',
  traceName: 'string',
  name: 'string',
  type: 'string',
  level: 'string',
  environment: 'string',
  version: 'string',
  parentObservationId: 'string',
  providedModelName: 'string',
  promptName: 'string',
  userId: 'string',
  sessionId: 'string',
  traceRelease: 'string',
  traceVersion: 'string',
  costStatus: 'string',
  tags: 'string[]',
  metadata: 'object',
  startTime: 'datetime',
  endTime: 'datetime',
  latency: 'number',
  inputTokens: 'number',
  outputTokens: 'number',
  totalTokens: 'number',
  inputCost: 'number',
  outputCost: 'number',
  totalCost: 'number',
  promptVersion: 'number',
};
