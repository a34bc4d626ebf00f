// Evaluation-rule filters. Pure: the columns and filter
// types per target, the per-type shape check, and the static value check of `type` and `level`.
import { ObservationLevelValues, ObservationTypeValues } from '../../../../generated/enums.ts';

export type RuleTarget = 'observation' | 'experiment';
export type RuleFilterType = 'string' | 'stringObject' | 'number' | 'stringOptions' | 'arrayOptions' | 'boolean' | 'null';

export interface RuleFilter {
  column: string;
  type: RuleFilterType;
  operator: string;
  value: unknown;
  key?: string;
}

export const OBSERVATION_TYPES: readonly string[] = ObservationTypeValues;
export const OBSERVATION_LEVELS: readonly string[] = ObservationLevelValues;

/** column → filter type, for target observation */
export const OBSERVATION_COLUMNS: Record<string, RuleFilterType> = {
  type: 'stringOptions',
  level: 'stringOptions',
  name: 'stringOptions',
  environment: 'stringOptions',
  traceName: 'stringOptions',
  experimentId: 'stringOptions',
  version: 'string',
  userId: 'string',
  sessionId: 'string',
  tags: 'arrayOptions',
  calledToolNames: 'arrayOptions',
  metadata: 'stringObject',
  isRootObservation: 'boolean',
  parentObservationId: 'null',
  toolCalls: 'number',
};
export const EXPERIMENT_COLUMNS: Record<string, RuleFilterType> = { ...OBSERVATION_COLUMNS, datasetId: 'stringOptions' };
export const columnsFor = (target: RuleTarget) => (target === 'observation' ? OBSERVATION_COLUMNS : EXPERIMENT_COLUMNS);

export const OPERATORS: Record<RuleFilterType, string[]> = {
  string: ['=', 'contains', 'does not contain', 'starts with', 'ends with'],
  stringObject: ['=', 'contains', 'does not contain', 'starts with', 'ends with'],
  number: ['=', '>', '<', '>=', '<='],
  stringOptions: ['any of', 'none of'],
  arrayOptions: ['any of', 'none of', 'all of'],
  boolean: ['=', '<>'],
  null: ['is null', 'is not null'],
};

export interface Issue {
  code: string;
  path: (string | number)[];
  message: string;
}

/** the per-type shape of one filter (the body schema's part): issues with paths from the body root */
export function filterShapeIssues(f: RuleFilter, i: number): Issue[] {
  const at = ['filter', i];
  const issues: Issue[] = [];
  const ops = OPERATORS[f.type];
  if (!ops) return [{ code: 'invalid_union', path: [...at, 'type'], message: 'Invalid input' }];
  if (!ops.includes(f.operator))
    issues.push({
      code: 'invalid_value',
      path: [...at, 'operator'],
      message: `Invalid option: expected one of ${ops.map((o) => JSON.stringify(o)).join('|')}`,
    });
  const v = f.value;
  const strings = Array.isArray(v) && v.every((x) => typeof x === 'string');
  switch (f.type) {
    case 'string':
    case 'stringObject':
      if (typeof v !== 'string') issues.push({ code: 'invalid_type', path: [...at, 'value'], message: 'Invalid input: expected string' });
      if (f.type === 'stringObject' && typeof f.key !== 'string')
        issues.push({ code: 'invalid_type', path: [...at, 'key'], message: 'Invalid input: expected string' });
      break;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v))
        issues.push({ code: 'invalid_type', path: [...at, 'value'], message: 'Invalid input: expected number' });
      break;
    case 'stringOptions':
      if (!strings) issues.push({ code: 'invalid_type', path: [...at, 'value'], message: 'Invalid input: expected array' });
      else if ((v as string[]).length === 0)
        issues.push({ code: 'too_small', path: [...at, 'value'], message: 'Too small: expected array to have >=1 items' });
      break;
    case 'arrayOptions':
      if (!strings) issues.push({ code: 'invalid_type', path: [...at, 'value'], message: 'Invalid input: expected array' });
      else if ((v as string[]).length === 0 && f.operator === 'any of')
        issues.push({ code: 'too_small', path: [...at, 'value'], message: 'Too small: expected array to have >=1 items' });
      break;
    case 'boolean':
      if (typeof v !== 'boolean') issues.push({ code: 'invalid_type', path: [...at, 'value'], message: 'Invalid input: expected boolean' });
      break;
    case 'null':
      if (v !== '') issues.push({ code: 'invalid_value', path: [...at, 'value'], message: 'Invalid input: expected ""' });
      break;
  }
  return issues;
}

export interface FilterProblem {
  message: string;
  details: Record<string, unknown>;
}

/**
 * The target check (400 invalid_filter_value): a column the target does not offer, a column
 * used with another filter type, or a `type`/`level` value outside the fixed sets.
 */
export function filterValueProblem(filters: RuleFilter[], target: RuleTarget): FilterProblem | null {
  const columns = columnsFor(target);
  for (const [i, f] of filters.entries()) {
    if (!(f.column in columns)) {
      return {
        message: `Filter column "${f.column}" is not supported for target "${target}"`,
        details: { field: `filter[${i}].column`, column: f.column, allowedValues: Object.keys(columns) },
      };
    }
    const fixed = f.column === 'type' ? OBSERVATION_TYPES : f.column === 'level' ? OBSERVATION_LEVELS : null;
    if (fixed && Array.isArray(f.value)) {
      const invalid = (f.value as string[]).filter((v) => !fixed.includes(v));
      if (invalid.length) {
        return {
          message: `Filter column "${f.column}" contains unsupported value(s): ${invalid.join(', ')}`,
          details: { field: `filter[${i}].value`, column: f.column, invalidValues: invalid, allowedValues: fixed },
        };
      }
    }
  }
  return null;
}

/** the body-schema check of a column's filter type (a column the target lists, used with another type) */
export function filterTypeIssues(filters: RuleFilter[], target: RuleTarget): Issue[] {
  const columns = columnsFor(target);
  const issues: Issue[] = [];
  filters.forEach((f, i) => {
    const want = columns[f.column];
    if (!want)
      issues.push({
        code: 'invalid_union',
        path: ['filter', i, 'column'],
        message: `Invalid input: column "${f.column}" is not a filter column of target "${target}"`,
      });
    else if (want !== f.type)
      issues.push({
        code: 'invalid_union',
        path: ['filter', i],
        message: `Invalid input: column "${f.column}" takes filters of type "${want}"`,
      });
    else issues.push(...filterShapeIssues(f, i));
  });
  return issues;
}

/** the filter fields that are stored (unknown keys dropped, as on every unstable body) */
export function cleanFilters(filters: RuleFilter[]): RuleFilter[] {
  return filters.map((f) => {
    const out: RuleFilter = { column: f.column, type: f.type, operator: f.operator, value: f.value };
    return f.type === 'stringObject' ? { column: f.column, type: f.type, key: f.key, operator: f.operator, value: f.value } : out;
  });
}
