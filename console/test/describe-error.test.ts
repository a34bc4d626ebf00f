import { describe, expect, it } from 'vitest';
import { TallyApiError, TallyNetworkError } from '../../sdk/index.ts';
import { describeError, sentence } from '../src/api.ts';

const apiError = (status: number, body: unknown) => new TallyApiError({ status, body });

describe("describeError: the server's words for a failed call", () => {
  it('keeps the message and maps Langfuse-style issues (`error: [...]`) to their dotted paths', () => {
    const p = describeError(
      apiError(400, {
        message: 'Invalid request data',
        error: [
          { code: 'invalid_value', path: ['pricingTiers', 1, 'conditions', 0, 'operator'], message: 'Invalid option' },
          { code: 'too_small', path: ['modelName'], message: 'Too small' },
          { code: 'custom', path: ['modelName'], message: 'Already taken' },
        ],
      }),
    );
    expect(p).toEqual({
      message: 'Invalid request data',
      status: 400,
      fields: { 'pricingTiers.1.conditions.0.operator': 'Invalid option.', modelName: 'Too small. Already taken.' },
    });
  });

  it('maps the unstable envelope (`details.issues`) too', () => {
    const p = describeError(
      apiError(400, {
        message: 'Invalid request',
        code: 'invalid_request',
        details: { issues: [{ path: ['filter', 0, 'value'], message: 'Expected an array' }] },
      }),
    );
    expect(p.fields).toEqual({ 'filter.0.value': 'Expected an array.' });
  });

  it('never answers with a blank: a bodiless error names its status, a network failure says so', () => {
    expect(describeError(apiError(502, null)).message).toBe('The server answered 502');
    expect(describeError(apiError(401, { message: '', error: 'Unauthorized' })).message).toBe('Unauthorized');
    expect(describeError(new TallyNetworkError({ cause: new Error('ECONNREFUSED') })).message).toContain('ECONNREFUSED');
    expect(describeError(new Error('boom')).message).toBe('boom');
  });

  it('a server that cannot be reached is said so in words, without the query string of the call', () => {
    const query = encodeURIComponent(JSON.stringify({ view: 'observations', metrics: [{ measure: 'totalCost', aggregation: 'sum' }] }));
    const e = new TallyNetworkError({
      cause: new TypeError('Failed to fetch'),
      method: 'GET',
      url: `http://127.0.0.1:3000/api/public/v2/metrics?query=${query}`,
    });
    const { message } = describeError(e);
    expect(message).toMatch(/^Can't reach the Tally server at http:\/\/127\.0\.0\.1:3000: it may be stopped/);
    expect(message).toContain('(GET /api/public/v2/metrics: Failed to fetch)');
    expect(message).not.toContain('query=');
    expect(message.length).toBeLessThan(220);
  });

  it("reads the validator's texts as sentences next to their fields", () => {
    const cases: [string, string][] = [
      ['Too small: expected string to have >=1 characters', 'Required.'],
      ['Too small: expected string to have >=16 characters', 'Must be at least 16 characters long.'],
      ['Too big: expected string to have <=200 characters', 'Must be at most 200 characters long.'],
      ['Too small: expected number to be >=0', 'Must be 0 or more.'],
      ['Too big: expected number to be <=1000', 'Must be 1000 or less.'],
      ['Too small: expected number to be >0', 'Must be more than 0.'],
      ['Too small: expected array to have >=1 items', 'Add at least one.'],
      ['Too big: expected array to have <=50 items', 'At most 50 allowed.'],
      ['Invalid input: expected "matchPattern" to be present', 'Required.'],
      ['Invalid input: expected number', 'Must be a number.'],
      ['Invalid input: expected integer', 'Must be a whole number.'],
      ['Invalid option: expected one of "TOKENS"|"CHARACTERS"', 'Must be one of TOKENS, CHARACTERS.'],
      ['Unrecognized key: "colour"', '“colour” is not a field this accepts.'],
      ['matchPattern is not a valid regex pattern: missing )', 'MatchPattern is not a valid regex pattern: missing ).'],
    ];
    for (const [raw, said] of cases) expect(sentence(raw), raw).toBe(said);
    const p = describeError(
      apiError(400, { message: 'Invalid request data', error: [{ code: 'too_small', path: ['name'], message: cases[0]![0] }] }),
    );
    expect(p.fields).toEqual({ name: 'Required.' });
  });
});
