// The pure validators behind the evaluators and evaluation-rules API:
// output definitions, mappings (incl. jsonPath), rule filters.
import { describe, expect, it } from 'vitest';
import { extractJsonPath, jsonPathSyntaxProblem, unsupportedJsonPath } from '../../src/domain/evaluation/json-path.ts';
import { checkMapping, missingVariables, normaliseMapping, storageMappingProblem } from '../../src/domain/evaluation/mapping.ts';
import { parseOutputDefinition, storageOutputDefinitionIssues } from '../../src/domain/evaluation/output-definition.ts';
import { filterTypeIssues, filterValueProblem } from '../../src/domain/evaluation/rule-filters.ts';

describe('output definition', () => {
  it('trims and keeps the variant fields', () => {
    expect(
      parseOutputDefinition({
        dataType: 'CATEGORICAL',
        reasoning: { description: ' r ' },
        score: { description: ' s', categories: [' a ', 'b'], shouldAllowMultipleMatches: true, extra: 1 },
      }),
    ).toEqual({
      issues: [],
      value: {
        dataType: 'CATEGORICAL',
        reasoning: { description: 'r' },
        score: { description: 's', categories: ['a', 'b'], shouldAllowMultipleMatches: true },
      },
    });
    expect(
      parseOutputDefinition({ dataType: 'NUMERIC', reasoning: { description: 'r' }, score: { description: 's', maxValue: 3 } }).value,
    ).toEqual({ dataType: 'NUMERIC', reasoning: { description: 'r' }, score: { description: 's', maxValue: 3 } });
  });
  it('reports bound order, blank texts, too few categories and a missing flag', () => {
    expect(
      parseOutputDefinition({ dataType: 'NUMERIC', reasoning: { description: 'r' }, score: { description: 's', minValue: 1, maxValue: 0 } })
        .issues,
    ).toEqual([
      { code: 'custom', path: ['outputDefinition', 'score'], message: 'Minimum value must be less than or equal to maximum value' },
    ]);
    expect(
      parseOutputDefinition({
        dataType: 'CATEGORICAL',
        reasoning: { description: ' ' },
        score: { description: 's', categories: ['a'] },
      }).issues.map((i) => i.path.join('.')),
    ).toEqual([
      'outputDefinition.reasoning.description',
      'outputDefinition.score.categories',
      'outputDefinition.score.shouldAllowMultipleMatches',
    ]);
    expect(parseOutputDefinition({ dataType: 'TEXT' }).issues).toHaveLength(1);
  });
  it('refuses duplicate categories only at storage', () => {
    const def = parseOutputDefinition({
      dataType: 'CATEGORICAL',
      reasoning: { description: 'r' },
      score: { description: 's', categories: ['a', ' a'], shouldAllowMultipleMatches: false },
    }).value!;
    expect(storageOutputDefinitionIssues(def)).toEqual([
      { code: 'custom', path: ['outputDefinition', 'score', 'categories'], message: 'Categories must be unique' },
    ]);
  });
});

describe('mapping', () => {
  const vars = ['input', 'output'];
  it('checks source, variable, repetition, then missing, then jsonPath', () => {
    expect(checkMapping([{ variable: 'input', source: 'expected_output' }], vars, 'observation')).toMatchObject({
      code: 'invalid_variable_mapping',
      message: 'Mapping source "expected_output" is not supported for target "observation"',
      details: { field: 'mapping[0].source' },
    });
    expect(
      checkMapping(
        [
          { variable: 'input', source: 'expected_output' },
          { variable: 'output', source: 'output' },
        ],
        vars,
        'experiment',
      ),
    ).toBeNull();
    expect(checkMapping([{ variable: 'x', source: 'input' }], vars, 'observation')?.code).toBe('invalid_variable_mapping');
    expect(
      checkMapping(
        [
          { variable: 'input', source: 'input' },
          { variable: 'input', source: 'input' },
        ],
        vars,
        'observation',
      )?.code,
    ).toBe('duplicate_variable_mapping');
    expect(checkMapping([{ variable: 'input', source: 'input', jsonPath: 'bad' }], vars, 'observation')?.code).toBe(
      'missing_variable_mapping',
    );
    expect(
      checkMapping(
        [
          { variable: 'input', source: 'input', jsonPath: 'bad' },
          { variable: 'output', source: 'output' },
        ],
        vars,
        'observation',
      )?.code,
    ).toBe('invalid_json_path');
    expect(checkMapping([], [], 'observation')).toBeNull();
  });
  it('storage checks and helpers', () => {
    expect(
      storageMappingProblem(
        [
          { variable: 'a', source: 'input' },
          { variable: 'a', source: 'input' },
          { variable: 'b', source: 'input' },
          { variable: 'b', source: 'input' },
        ],
        ['a', 'b'],
      ),
    ).toBe('Duplicate mappings for evaluator variables: a, b');
    expect(storageMappingProblem([{ variable: 'z', source: 'input' }], ['a'])).toBe('Mappings reference unknown evaluator variables: z');
    expect(storageMappingProblem([], ['a', 'b'])).toBe('Missing mappings for evaluator variables: a, b');
    expect(storageMappingProblem([{ variable: 'a', source: null }], ['a'])).toBe('Evaluator variable mapping is invalid');
    expect(missingVariables(null, ['a'])).toEqual(['a']);
    expect(normaliseMapping([{ variable: 'a', source: 'input', jsonPath: null }])).toEqual([{ variable: 'a', source: 'input' }]);
  });
});

describe('jsonPath', () => {
  it('tells syntax problems in the reference words', () => {
    expect(jsonPathSyntaxProblem('$.a.b[0]')).toBeNull();
    expect(jsonPathSyntaxProblem("$['a b'][*]")).toBeNull();
    expect(jsonPathSyntaxProblem('a.b')).toBe('JSONPath expressions must start with "$".');
    expect(jsonPathSyntaxProblem('$.a[0')).toBe('JSONPath expressions must use balanced brackets and parentheses.');
    expect(jsonPathSyntaxProblem('$.a]')).toBe('JSONPath expressions must use balanced brackets and parentheses.');
    expect(jsonPathSyntaxProblem('$["a]')).toBe('JSONPath expressions must use balanced quotes, brackets, and parentheses.');
  });
  it('flags the forms the evaluator does not apply', () => {
    expect(unsupportedJsonPath('$.a[?(@.x)]')).toMatch(/^Filter expressions/);
    expect(unsupportedJsonPath('$.a[(@.length-1)]')).toMatch(/^Script expressions/);
    expect(unsupportedJsonPath('$.a[-1]')).toMatch(/^Negative array indices/);
    expect(unsupportedJsonPath('$.a[-1:]')).toBeNull();
  });
  it('extracts one match unwrapped, several as an array, none as undefined, primitives as they are', () => {
    const doc = { messages: [{ content: 'hi' }, { content: 'there' }] };
    expect(extractJsonPath(doc, '$.messages[0].content')).toBe('hi');
    expect(extractJsonPath(doc, '$.messages[*].content')).toEqual(['hi', 'there']);
    expect(extractJsonPath(doc, '$.nothing')).toBeUndefined();
    expect(extractJsonPath('text', '$.a')).toBe('text');
  });
});

describe('rule filters', () => {
  it('accepts each column with its type and shape', () => {
    expect(
      filterTypeIssues(
        [
          { column: 'type', type: 'stringOptions', operator: 'any of', value: ['SPAN'] },
          { column: 'tags', type: 'arrayOptions', operator: 'none of', value: [] },
          { column: 'metadata', type: 'stringObject', key: 'k', operator: 'ends with', value: 'v' },
          { column: 'toolCalls', type: 'number', operator: '<', value: 3 },
          { column: 'parentObservationId', type: 'null', operator: 'is null', value: '' },
        ],
        'observation',
      ),
    ).toEqual([]);
  });
  it('refuses unknown columns, mismatched types and bad shapes', () => {
    expect(
      filterTypeIssues([{ column: 'datasetId', type: 'stringOptions', operator: 'any of', value: ['d'] }], 'observation'),
    ).toHaveLength(1);
    expect(filterTypeIssues([{ column: 'datasetId', type: 'stringOptions', operator: 'any of', value: ['d'] }], 'experiment')).toEqual([]);
    expect(filterTypeIssues([{ column: 'name', type: 'string', operator: '=', value: 'x' }], 'observation')).toHaveLength(1);
    expect(filterTypeIssues([{ column: 'tags', type: 'arrayOptions', operator: 'any of', value: [] }], 'observation')[0]?.path).toEqual([
      'filter',
      0,
      'value',
    ]);
    expect(
      filterTypeIssues([{ column: 'isRootObservation', type: 'boolean', operator: '!=', value: true }], 'observation')[0]?.path,
    ).toEqual(['filter', 0, 'operator']);
  });
  it('checks the fixed values of type and level, and the target columns', () => {
    expect(
      filterValueProblem([{ column: 'type', type: 'stringOptions', operator: 'any of', value: ['SPAN', 'LLM'] }], 'observation'),
    ).toEqual({
      message: 'Filter column "type" contains unsupported value(s): LLM',
      details: {
        field: 'filter[0].value',
        column: 'type',
        invalidValues: ['LLM'],
        allowedValues: ['SPAN', 'GENERATION', 'EVENT', 'AGENT', 'TOOL', 'CHAIN', 'RETRIEVER', 'EVALUATOR', 'EMBEDDING', 'GUARDRAIL'],
      },
    });
    expect(
      filterValueProblem([{ column: 'datasetId', type: 'stringOptions', operator: 'any of', value: ['d'] }], 'observation'),
    ).toMatchObject({
      message: 'Filter column "datasetId" is not supported for target "observation"',
      details: { field: 'filter[0].column' },
    });
  });
});
