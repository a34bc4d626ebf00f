// Unstable evaluators API (issue 11) on the suite's server: PGlite,
// and PostgreSQL when DATABASE_URL is set.
import { AUTH_MESSAGES } from '../../src/http/auth.ts';
import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const json = { 'content-type': 'application/json' };
const post = (body: unknown, project: 'projectA' | 'projectB' = 'projectA') =>
  raw('/api/public/unstable/evaluators', { method: 'POST', project, headers: json, body: JSON.stringify(body) });
const boolDef = { dataType: 'BOOLEAN', reasoning: { description: 'Why.' }, score: { description: 'Correct?' } };
const judge = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  prompt: 'Compare {{input}} with {{output}}.',
  outputDefinition: boolDef,
  ...extra,
});

describe('evaluators: create and versions', () => {
  it('creates version 1 with the derived variables, then appends versions under the same id', async () => {
    const name = unique('judge');
    const v1 = await post(
      judge(name, {
        mapping: [
          { variable: 'input', source: 'input' },
          { variable: 'output', source: 'output', jsonPath: '$.content' },
        ],
      }),
    );
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({
      id: expect.any(String),
      name,
      type: 'llm_as_judge',
      version: 1,
      prompt: 'Compare {{input}} with {{output}}.',
      variables: ['input', 'output'],
      outputDefinition: boolDef,
      modelConfig: null,
      mapping: [
        { variable: 'input', source: 'input' },
        { variable: 'output', source: 'output', jsonPath: '$.content' },
      ],
      evaluationRuleCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const v2 = await post({
      name,
      prompt: 'Is {{ spaced }} {{1x}} {{answer}} {{answer}} fine?',
      outputDefinition: boolDef,
      modelConfig: { provider: 'p', model: 'm' },
      unknownKey: 1,
    });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({
      id: v1.body.id,
      version: 2,
      variables: ['answer'],
      mapping: null,
      modelConfig: { provider: 'p', model: 'm' },
      createdAt: v1.body.createdAt,
    });
    const v3 = await post({
      name,
      prompt: 'Is {{ spaced }} {{1x}} {{answer}} {{answer}} fine?',
      outputDefinition: boolDef,
      modelConfig: { provider: 'p', model: 'm' },
    });
    expect(v3.body.version).toBe(3);
    const got = await raw(`/api/public/unstable/evaluators/${v1.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(v3.body);
  });

  it('trims the output definition texts and keeps numeric bounds', async () => {
    const res = await post(
      judge(unique('num'), {
        outputDefinition: {
          dataType: 'NUMERIC',
          reasoning: { description: '  Why.  ' },
          score: { description: ' Score ', minValue: 0, maxValue: 10 },
        },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.outputDefinition).toEqual({
      dataType: 'NUMERIC',
      reasoning: { description: 'Why.' },
      score: { description: 'Score', minValue: 0, maxValue: 10 },
    });
  });

  it('answers schema failures as invalid_body', async () => {
    const cases: [unknown, unknown][] = [
      [
        { name: 'x', outputDefinition: boolDef },
        [{ code: 'invalid_type', path: ['prompt'], message: 'Invalid input: expected string, received undefined' }],
      ],
      [
        judge('x', {
          outputDefinition: { dataType: 'NUMERIC', reasoning: { description: 'a' }, score: { description: 'b', minValue: 2, maxValue: 1 } },
        }),
        [{ code: 'custom', path: ['outputDefinition', 'score'], message: 'Minimum value must be less than or equal to maximum value' }],
      ],
      [
        judge('x', { outputDefinition: { dataType: 'BOOLEAN', reasoning: { description: '   ' }, score: { description: 'b' } } }),
        [
          {
            code: 'too_small',
            path: ['outputDefinition', 'reasoning', 'description'],
            message: 'Too small: expected string to have >=1 characters',
          },
        ],
      ],
      [
        judge('x', { sourceCode: 'print(1)' }),
        [{ code: 'invalid_type', path: ['sourceCode'], message: 'Invalid input: expected undefined' }],
      ],
    ];
    for (const [body, issues] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ message: 'Invalid request body', code: 'invalid_body', details: { issues } });
    }
    for (const body of [
      { ...judge('x'), type: null },
      { ...judge('x'), name: '' },
      { ...judge('x'), prompt: '' },
      {
        name: 'x',
        prompt: 'p',
        outputDefinition: {
          dataType: 'CATEGORICAL',
          reasoning: { description: 'a' },
          score: { description: 'b', categories: ['one'], shouldAllowMultipleMatches: false },
        },
      },
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ message: 'Invalid request body', code: 'invalid_body', details: { issues: expect.any(Array) } });
    }
  });

  it('checks a supplied mapping against the prompt, in the reference order and words', async () => {
    const cases: [unknown[], number, unknown][] = [
      [
        [{ variable: 'answer', source: 'input' }],
        400,
        {
          message: 'Mapping variable "answer" is not present in the evaluator prompt',
          code: 'invalid_variable_mapping',
          details: { field: 'mapping[0].variable', variable: 'answer' },
        },
      ],
      [
        [
          { variable: 'input', source: 'input' },
          { variable: 'input', source: 'output' },
        ],
        400,
        {
          message: 'Mapping variable "input" can only be mapped once',
          code: 'duplicate_variable_mapping',
          details: { field: 'mapping', variable: 'input' },
        },
      ],
      [
        [{ variable: 'input', source: 'input' }],
        400,
        {
          message: 'Missing mappings for evaluator variables: output',
          code: 'missing_variable_mapping',
          details: { field: 'mapping', variables: ['output'] },
        },
      ],
      [
        [],
        400,
        {
          message: 'Missing mappings for evaluator variables: input, output',
          code: 'missing_variable_mapping',
          details: { field: 'mapping', variables: ['input', 'output'] },
        },
      ],
      [
        [
          { variable: 'input', source: 'input' },
          { variable: 'output', source: 'output', jsonPath: 'content' },
        ],
        400,
        {
          message: 'Mapping for variable "output" has an invalid jsonPath "content". JSONPath expressions must start with "$".',
          code: 'invalid_json_path',
          details: { field: 'mapping[1].jsonPath', variable: 'output', value: 'content' },
        },
      ],
      [
        [
          { variable: 'input', source: 'input', jsonPath: '$.a[0' },
          { variable: 'output', source: 'output' },
        ],
        400,
        {
          message:
            'Mapping for variable "input" has an invalid jsonPath "$.a[0". JSONPath expressions must use balanced brackets and parentheses.',
          code: 'invalid_json_path',
          details: { field: 'mapping[0].jsonPath', variable: 'input', value: '$.a[0' },
        },
      ],
      [
        [
          { variable: 'input', source: 'input', jsonPath: "$['a]" },
          { variable: 'output', source: 'output' },
        ],
        400,
        {
          message: `Mapping for variable "input" has an invalid jsonPath "$['a]". JSONPath expressions must use balanced quotes, brackets, and parentheses.`,
          code: 'invalid_json_path',
          details: { field: 'mapping[0].jsonPath', variable: 'input', value: "$['a]" },
        },
      ],
      [
        [
          { variable: 'input', source: 'input', jsonPath: '$.items[?(@.ok)]' },
          { variable: 'output', source: 'output' },
        ],
        400,
        { message: 'Filter expressions ([?...]) are not supported and will not be applied.', code: 'invalid_request' },
      ],
      [
        [
          { variable: 'input', source: 'input', jsonPath: '$.items[(@.length-1)]' },
          { variable: 'output', source: 'output' },
        ],
        400,
        {
          message: 'Script expressions ([(...)]) are not supported. The evaluator will use the unfiltered value instead.',
          code: 'invalid_request',
        },
      ],
      [
        [
          { variable: 'input', source: 'input', jsonPath: '$.items[-1]' },
          { variable: 'output', source: 'output' },
        ],
        400,
        {
          message: 'Negative array indices (for example, [-1]) are not supported. Use a slice such as [-1:] instead.',
          code: 'invalid_request',
        },
      ],
    ];
    for (const [mapping, status, body] of cases) {
      const res = await post(judge(unique('m'), { mapping }));
      expect(res.status, JSON.stringify(mapping)).toBe(status);
      expect(res.body, JSON.stringify(mapping)).toEqual(body);
    }
    // an observation evaluator's mapping takes observation sources only
    const expected = await post(
      judge(unique('m'), {
        mapping: [
          { variable: 'input', source: 'expected_output' },
          { variable: 'output', source: 'output' },
        ],
      }),
    );
    expect(expected.body).toMatchObject({ code: 'invalid_body' });
    // an empty mapping is fine when the prompt has no variables
    expect((await post({ name: unique('m'), prompt: 'No variables.', outputDefinition: boolDef, mapping: [] })).status).toBe(200);
  });

  it('refuses duplicate categories at storage and code evaluators with 403', async () => {
    const dup = await post(
      judge(unique('c'), {
        outputDefinition: {
          dataType: 'CATEGORICAL',
          reasoning: { description: 'a' },
          score: { description: 'b', categories: ['x', ' x '], shouldAllowMultipleMatches: true },
        },
      }),
    );
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({
      message: 'Invalid request data',
      code: 'invalid_request',
      details: { issues: [{ code: 'custom', path: ['outputDefinition', 'score', 'categories'], message: 'Categories must be unique' }] },
    });
    const code = await post({ name: unique('code'), type: 'code', sourceCode: 'def f(): pass', sourceCodeLanguage: 'PYTHON' });
    expect(code.status).toBe(403);
    expect(code.body).toEqual({ message: 'Code evals are not enabled', code: 'access_denied' });
    const tooBig = await post({ name: unique('code'), type: 'code', sourceCode: 'é'.repeat(131073), sourceCodeLanguage: 'PYTHON' });
    expect(tooBig.body).toEqual({
      message: 'Invalid request body',
      code: 'invalid_body',
      details: { issues: [{ code: 'custom', path: ['sourceCode'], message: 'Source code must be 262144 bytes or less' }] },
    });
  });

  it('refuses a new version that an existing rule assignment no longer maps', async () => {
    const name = unique('guarded');
    const ev = await post(judge(name));
    const rule = await raw('/api/public/unstable/evaluation-rules', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        name: unique('rule'),
        enabled: true,
        target: 'observation',
        evaluator: { name },
        mapping: [
          { variable: 'input', source: 'input' },
          { variable: 'output', source: 'output' },
        ],
      }),
    });
    expect(rule.status).toBe(200);
    const broken = await post({ name, prompt: 'Now {{input}}, {{output}} and {{context}}.', outputDefinition: boolDef });
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ message: 'Missing mappings for evaluator variables: context', code: 'invalid_request' });
    const fine = await post({ name, prompt: 'Only {{output}} now.', outputDefinition: boolDef });
    expect(fine.status).toBe(200);
    expect(fine.body).toMatchObject({ id: ev.body.id, version: 2, evaluationRuleCount: 1 });
  });
});

describe('evaluators: list, get, delete, errors', () => {
  it("lists the project's evaluators by updatedAt desc with page meta, and only its own", async () => {
    const a = await post(judge(unique('list')));
    const b = await post(judge(unique('list')));
    const other = await post(judge(unique('other')), 'projectB');
    const page = await raw('/api/public/unstable/evaluators?page=1&limit=2');
    expect(page.status).toBe(200);
    expect(page.body.data.map((e: any) => e.id)).toEqual([b.body.id, a.body.id]);
    expect(page.body.meta).toMatchObject({ page: 1, limit: 2, totalPages: Math.ceil(page.body.meta.totalItems / 2) });
    const all = await raw('/api/public/unstable/evaluators?limit=100');
    expect(all.body.data.some((e: any) => e.id === other.body.id)).toBe(false);
    const far = await raw('/api/public/unstable/evaluators?page=9999');
    expect(far.body.data).toEqual([]);
    expect((await raw(`/api/public/unstable/evaluators/${other.body.id}`)).status).toBe(404);
  });

  it('answers query, auth and method errors in the envelope', async () => {
    const bad = await raw('/api/public/unstable/evaluators?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      message: 'Invalid query parameters',
      code: 'invalid_query',
      details: { issues: [{ path: ['limit'] }] },
    });
    const noAuth = await raw('/api/public/unstable/evaluators', { project: null });
    expect(noAuth.body).toEqual({ message: AUTH_MESSAGES.missing, code: 'authentication_failed' });
    for (const method of ['PATCH', 'PUT']) {
      const res = await raw('/api/public/unstable/evaluators/some-id', { method, headers: json, body: '{}' });
      expect(res.status).toBe(405);
      expect(res.body).toEqual({ message: 'Method not allowed', code: 'method_not_allowed' });
    }
    const missing = await raw('/api/public/unstable/evaluators/does-not-exist');
    expect(missing.body).toEqual({ message: 'Evaluator not found', code: 'resource_not_found' });
  });

  it('deletes all versions and assignments; a rule left without evaluators becomes inactive', async () => {
    const name = unique('doomed');
    const mapping = [
      { variable: 'input', source: 'input' },
      { variable: 'output', source: 'output' },
    ];
    const ev = await post(judge(name, { mapping }));
    expect((await post(judge(name, { mapping }))).body.version).toBe(2);
    const rule = await raw('/api/public/unstable/evaluation-rules', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: unique('rule'), enabled: true, target: 'observation', evaluators: [{ evaluator: { name } }] }),
    });
    expect(rule.body.status).toBe('active');
    const del = await raw(`/api/public/unstable/evaluators/${ev.body.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ message: 'Evaluator successfully deleted' });
    expect((await raw(`/api/public/unstable/evaluators/${ev.body.id}`)).status).toBe(404);
    expect((await raw(`/api/public/unstable/evaluators/${ev.body.id}`, { method: 'DELETE' })).status).toBe(404);
    const after = await raw(`/api/public/unstable/evaluation-rules/${rule.body.id}`);
    expect(after.body).toMatchObject({ enabled: false, status: 'inactive', evaluator: null, evaluators: [], mapping: [] });
    // the name is free again: version 1 of a new evaluator
    const again = await post(judge(name));
    expect(again.body).toMatchObject({ version: 1 });
    expect(again.body.id).not.toBe(ev.body.id);
  });
});
