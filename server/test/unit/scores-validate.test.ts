import { describe, expect, it } from 'vitest';
import { inferDataType, storedValues } from '../../src/domain/scores/data-type.ts';
import { BOOLEAN_MESSAGE, SUBJECT_MESSAGE, scoreCreateIssues } from '../../src/domain/scores/validate.ts';

describe('score data types', () => {
  it('infers CATEGORICAL from a string and NUMERIC otherwise', () => {
    expect(inferDataType('a', undefined)).toBe('CATEGORICAL');
    expect(inferDataType(1, null)).toBe('NUMERIC');
    expect(inferDataType(1, 'BOOLEAN')).toBe('BOOLEAN');
  });
  it('stores BOOLEAN labels and string values', () => {
    expect(storedValues(1, 'BOOLEAN')).toEqual({ value: 1, stringValue: 'True' });
    expect(storedValues(0, 'BOOLEAN')).toEqual({ value: 0, stringValue: 'False' });
    expect(storedValues('x', 'TEXT')).toEqual({ value: null, stringValue: 'x' });
    expect(storedValues(0.5, 'NUMERIC')).toEqual({ value: 0.5, stringValue: null });
  });
});

describe('score-create checks', () => {
  it('needs exactly one subject, observationId only with traceId', () => {
    expect(scoreCreateIssues({ name: 'n', value: 1, traceId: 't', observationId: 'o' })).toEqual([]);
    expect(scoreCreateIssues({ name: 'n', value: 1, datasetRunId: 'd' })).toEqual([]);
    expect(scoreCreateIssues({ name: 'n', value: 1 })[0]!.message).toBe(SUBJECT_MESSAGE);
    expect(scoreCreateIssues({ name: 'n', value: 1, sessionId: 's', datasetRunId: 'd' })[0]!.message).toBe(SUBJECT_MESSAGE);
  });
  it('matches value to data type', () => {
    expect(scoreCreateIssues({ name: 'n', value: 0.5, dataType: 'BOOLEAN', traceId: 't' })[0]!.message).toBe(BOOLEAN_MESSAGE);
    expect(scoreCreateIssues({ name: 'n', value: 'x'.repeat(500), dataType: 'TEXT', traceId: 't' })).toEqual([]);
    expect(scoreCreateIssues({ name: 'n', value: 'x'.repeat(501), dataType: 'TEXT', traceId: 't' })[0]!.code).toBe('too_big');
    expect(scoreCreateIssues({ name: 'n', value: 'c', dataType: 'CORRECTION', traceId: 't', source: 'ANNOTATION' })).toEqual([]);
    expect(scoreCreateIssues({ name: 'n', value: 1, traceId: 't', source: 'ANNOTATION', configId: 'c' })).toEqual([]);
  });
});
