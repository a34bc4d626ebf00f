import { describe, expect, it } from 'vitest';
import { checkFilters, OBSERVATION_FILTER_COLUMNS } from '../../src/domain/filters/check.ts';

const check = (f: Record<string, unknown>) => checkFilters([f as never], OBSERVATION_FILTER_COLUMNS);

describe('filter checks', () => {
  it('accepts matching types and resolves the column', () => {
    expect(check({ type: 'stringOptions', column: 'level', operator: 'any of', value: ['ERROR'] })).toMatchObject({
      ok: true,
      filters: [{ target: 'level', columnType: 'string' }],
    });
    expect(check({ type: 'null', column: 'totalCost', operator: 'is null', value: '' }).ok).toBe(true);
  });

  it('falls back to `name` for an unknown column ending in Name', () => {
    expect(check({ type: 'string', column: 'observationName', operator: '=', value: 'x' })).toMatchObject({
      ok: true,
      filters: [{ target: 'name' }],
    });
  });

  it('names the expected filter types on a mismatch, in Langfuse wording', () => {
    expect(check({ type: 'string', column: 'tags', operator: '=', value: 'a' })).toEqual({
      ok: false,
      message:
        "Invalid filter for field 'tags': Filter type 'string' is not supported for dimension type 'string[]'. Expected 'arrayOptions'.",
    });
    expect(check({ type: 'arrayOptions', column: 'startTime', operator: 'any of', value: [] })).toMatchObject({
      ok: false,
      message: expect.stringContaining("Expected 'datetime'."),
    });
    expect(check({ type: 'number', column: 'metadata', operator: '=', value: 1 })).toMatchObject({
      ok: false,
      message: expect.stringContaining("Metadata filters require type 'stringObject'"),
    });
    expect(check({ type: 'string', column: 'nope', operator: '=', value: 'a' })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Invalid filter column nope\. Must be one of id, traceId/),
    });
  });
});
