// Unstable evaluation-rules API (issue 11) on the suite's server, and
// the store functions the execution engine uses (blocked evaluators, enabledRulesFor) on a
// database of the test's own: PGlite, or the PostgreSQL of DATABASE_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/orm.ts';
import { presentRule } from '../../src/http/present/evaluation-rule.ts';
import { enabledRulesFor, getRule, saveRule } from '../../src/store/evaluation-rules.ts';
import { appendEvaluatorVersion, blockEvaluator, deleteEvaluator, unblockEvaluator } from '../../src/store/evaluators.ts';
import { createProject } from '../../src/store/projects.ts';
import { raw, unique } from '../support/client.ts';

const json = { 'content-type': 'application/json' };
const RULES = '/api/public/unstable/evaluation-rules';
const post = (body: unknown) => raw(RULES, { method: 'POST', headers: json, body: JSON.stringify(body) });
const patch = (id: string, body: unknown) => raw(`${RULES}/${id}`, { method: 'PATCH', headers: json, body: JSON.stringify(body) });
const boolDef = { dataType: 'BOOLEAN', reasoning: { description: 'Why.' }, score: { description: 'Correct?' } };
const defaultMapping = [
  { variable: 'input', source: 'input' },
  { variable: 'output', source: 'output', jsonPath: '$.content' },
];

async function evaluator(opts: { prompt?: string; mapping?: unknown[] | null } = {}) {
  const name = unique('ev');
  const body: Record<string, unknown> = { name, prompt: opts.prompt ?? 'Compare {{input}} with {{output}}.', outputDefinition: boolDef };
  if (opts.mapping !== null) body.mapping = opts.mapping ?? defaultMapping;
  const res = await raw('/api/public/unstable/evaluators', { method: 'POST', headers: json, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return res.body as { id: string; name: string };
}

describe('evaluation rules: create', () => {
  it('creates with `evaluators`: the assignment inherits (mapping null) and the alias shows the effective mapping', async () => {
    const ev = await evaluator();
    const name = unique('rule');
    const filter = [
      { column: 'type', type: 'stringOptions', operator: 'any of', value: ['GENERATION'] },
      { column: 'level', type: 'stringOptions', operator: 'none of', value: ['ERROR'] },
      { column: 'metadata', type: 'stringObject', key: 'team', operator: 'contains', value: 'search' },
      { column: 'tags', type: 'arrayOptions', operator: 'all of', value: [] },
      { column: 'isRootObservation', type: 'boolean', operator: '=', value: false },
      { column: 'parentObservationId', type: 'null', operator: 'is not null', value: '' },
      { column: 'toolCalls', type: 'number', operator: '>=', value: 1 },
      { column: 'userId', type: 'string', operator: 'starts with', value: 'u-' },
    ];
    const res = await post({
      name,
      enabled: true,
      sampling: 0.3,
      target: 'observation',
      filter,
      evaluators: [{ evaluator: { name: ev.name } }],
      extra: 'ignored',
    });
    expect(res.status).toBe(200);
    const ref = { name: ev.name, type: 'llm_as_judge', id: ev.id };
    expect(res.body).toEqual({
      id: expect.any(String),
      name,
      evaluator: ref,
      evaluators: [{ evaluator: ref, mapping: null }],
      enabled: true,
      status: 'active',
      pausedReason: null,
      pausedMessage: null,
      sampling: 0.3,
      target: 'observation',
      filter,
      mapping: defaultMapping,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await raw(`${RULES}/${res.body.id}`)).body).toEqual(res.body);
    expect((await raw(`/api/public/unstable/evaluators/${ev.id}`)).body.evaluationRuleCount).toBe(1);
  });

  it('creates with the deprecated `evaluator` + `mapping`, echoing the explicit mapping; sampling defaults to 1', async () => {
    const ev = await evaluator({ mapping: null });
    const mapping = [
      { variable: 'output', source: 'output' },
      { variable: 'input', source: 'metadata', jsonPath: "$['a b'][0]" },
    ];
    const res = await post({
      name: unique('rule'),
      enabled: false,
      target: 'observation',
      evaluator: { name: ev.name, type: 'llm_as_judge' },
      mapping,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ enabled: false, status: 'inactive', sampling: 1, filter: [], evaluators: [{ mapping }], mapping });
  });

  it('applies the schema refinements as invalid_body', async () => {
    const cases: [Record<string, unknown>, unknown][] = [
      [{}, { code: 'custom', path: ['evaluators'], message: 'Provide exactly one of evaluator or evaluators.' }],
      [
        { evaluator: { name: 'a' }, evaluators: [{ evaluator: { name: 'a' } }] },
        { code: 'custom', path: ['evaluators'], message: 'Provide exactly one of evaluator or evaluators.' },
      ],
      [
        { evaluators: [{ evaluator: { name: 'a' } }], mapping: [] },
        {
          code: 'custom',
          path: ['mapping'],
          message:
            '`mapping` is the deprecated single-evaluator alias and cannot be combined with `evaluators`. Set the mapping on the matching entry in `evaluators` instead.',
        },
      ],
      [
        { evaluator: { name: 'a', type: 'code' }, mapping: [] },
        {
          code: 'custom',
          path: ['mapping'],
          message: 'Code evaluator mappings are managed by Langfuse and cannot be provided in the request body.',
        },
      ],
    ];
    for (const [extra, issue] of cases) {
      const res = await post({ name: unique('rule'), enabled: true, target: 'observation', ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body).toEqual({ message: 'Invalid request body', code: 'invalid_body', details: { issues: [issue] } });
    }
    const schemaFailures = [
      { name: 'r', target: 'observation', evaluator: { name: 'a' } }, // enabled is required
      { name: 'r', enabled: true, target: 'observation', sampling: 0, evaluator: { name: 'a' } },
      { name: 'r', enabled: true, target: 'observation', sampling: 1.5, evaluator: { name: 'a' } },
      { name: 'r', enabled: true, target: 'trace', evaluator: { name: 'a' } },
      {
        name: 'r',
        enabled: true,
        target: 'observation',
        evaluator: { name: 'a' },
        filter: [{ column: 'model', type: 'string', operator: '=', value: 'x' }],
      },
      {
        name: 'r',
        enabled: true,
        target: 'observation',
        evaluator: { name: 'a' },
        filter: [{ column: 'name', type: 'string', operator: '=', value: 'x' }],
      },
      {
        name: 'r',
        enabled: true,
        target: 'observation',
        evaluator: { name: 'a' },
        filter: [{ column: 'name', type: 'stringOptions', operator: 'any of', value: [] }],
      },
      {
        name: 'r',
        enabled: true,
        target: 'observation',
        evaluator: { name: 'a' },
        filter: [{ column: 'isExperimentItemRootSpan', type: 'boolean', operator: '=', value: true }],
      },
      {
        name: 'r',
        enabled: true,
        target: 'observation',
        evaluator: { name: 'a' },
        filter: [{ column: 'datasetId', type: 'stringOptions', operator: 'any of', value: ['d'] }],
      },
      {
        name: 'r',
        enabled: true,
        target: 'observation',
        evaluator: { name: 'a' },
        mapping: [{ variable: 'input', source: 'expected_output' }],
      },
    ];
    for (const body of schemaFailures) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body, JSON.stringify(body)).toMatchObject({
        message: 'Invalid request body',
        code: 'invalid_body',
        details: { issues: expect.any(Array) },
      });
    }
  });

  it('refuses target experiment with a clear invalid_request', async () => {
    const res = await post({ name: unique('rule'), enabled: true, target: 'experiment', evaluator: { name: 'a' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'Evaluation rules with target "experiment" are not supported by this server; only target "observation" is.',
      code: 'invalid_request',
      details: { field: 'target', value: 'experiment' },
    });
  });

  it('answers name conflicts, unknown and repeated evaluators, filter values and mappings in order', async () => {
    const ev = await evaluator();
    const name = unique('rule');
    const first = await post({ name, enabled: false, target: 'observation', evaluator: { name: ev.name } });
    const again = await post({ name, enabled: false, target: 'observation', evaluator: { name: 'no-such-evaluator' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      message: `An evaluation rule named "${name}" already exists in this project. Use PATCH /api/public/unstable/evaluation-rules/${first.body.id} to update it instead of creating a duplicate.`,
      code: 'name_conflict',
      details: { field: 'name' },
    });
    const base = { enabled: true, target: 'observation' };
    const cases: [Record<string, unknown>, number, unknown][] = [
      [
        { evaluator: { name: 'no-such-evaluator' } },
        404,
        { message: 'Latest evaluator version not found within authorized project', code: 'resource_not_found' },
      ],
      [
        { evaluator: { name: ev.name, type: 'code' } },
        404,
        { message: 'Latest evaluator version not found within authorized project', code: 'resource_not_found' },
      ],
      [
        { evaluators: [{ evaluator: { name: ev.name } }, { evaluator: { name: ev.name } }] },
        409,
        { message: 'An evaluator can only be attached once to an evaluation rule.', code: 'conflict' },
      ],
      [
        {
          evaluator: { name: ev.name },
          filter: [{ column: 'level', type: 'stringOptions', operator: 'any of', value: ['ERROR', 'FATAL', 'TRACE'] }],
        },
        400,
        {
          message: 'Filter column "level" contains unsupported value(s): FATAL, TRACE',
          code: 'invalid_filter_value',
          details: {
            field: 'filter[0].value',
            column: 'level',
            invalidValues: ['FATAL', 'TRACE'],
            allowedValues: ['DEBUG', 'DEFAULT', 'WARNING', 'ERROR'],
          },
        },
      ],
      [
        {
          evaluator: { name: ev.name },
          mapping: [
            { variable: 'input', source: 'input' },
            { variable: 'nope', source: 'output' },
          ],
        },
        400,
        {
          message: 'Mapping variable "nope" is not present in the evaluator prompt',
          code: 'invalid_variable_mapping',
          details: { field: 'mapping[1].variable', variable: 'nope' },
        },
      ],
      [
        { evaluators: [{ evaluator: { name: ev.name }, mapping: [{ variable: 'output', source: 'output' }] }] },
        400,
        {
          message: 'Missing mappings for evaluator variables: input',
          code: 'missing_variable_mapping',
          details: { field: 'mapping', variables: ['input'] },
        },
      ],
      [
        {
          evaluator: { name: ev.name },
          mapping: [
            { variable: 'input', source: 'input' },
            { variable: 'output', source: 'output', jsonPath: '$.a)' },
          ],
        },
        400,
        {
          message:
            'Mapping for variable "output" has an invalid jsonPath "$.a)". JSONPath expressions must use balanced brackets and parentheses.',
          code: 'invalid_json_path',
          details: { field: 'mapping[1].jsonPath', variable: 'output', value: '$.a)' },
        },
      ],
      [
        {
          evaluator: { name: ev.name },
          mapping: [
            { variable: 'input', source: 'input' },
            { variable: 'output', source: 'output', jsonPath: '$.a[-2]' },
          ],
        },
        400,
        {
          message: 'Negative array indices (for example, [-1]) are not supported. Use a slice such as [-1:] instead.',
          code: 'invalid_request',
        },
      ],
    ];
    for (const [extra, status, body] of cases) {
      const res = await post({ name: unique('rule'), ...base, ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(status);
      expect(res.body, JSON.stringify(extra)).toEqual(body);
    }
    // an evaluator without a default mapping must be mapped by the rule
    const bare = await evaluator({ mapping: null });
    const unmapped = await post({ name: unique('rule'), ...base, evaluator: { name: bare.name } });
    expect(unmapped.body).toMatchObject({
      code: 'missing_variable_mapping',
      message: 'Missing mappings for evaluator variables: input, output',
    });
  });
});

describe('evaluation rules: list, get, patch, delete', () => {
  it('lists newest first with page meta', async () => {
    const ev = await evaluator();
    const a = await post({ name: unique('rule'), enabled: false, target: 'observation', evaluator: { name: ev.name } });
    const b = await post({ name: unique('rule'), enabled: false, target: 'observation', evaluator: { name: ev.name } });
    const page = await raw(`${RULES}?limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((r: any) => r.id)).toEqual([b.body.id, a.body.id]);
    expect(page.body.meta).toMatchObject({ page: 1, limit: 2 });
    expect((await raw(`${RULES}?page=abc`)).body).toMatchObject({ code: 'invalid_query', message: 'Invalid query parameters' });
  });

  it('patches only what is sent, with the reference semantics and messages', async () => {
    const ev = await evaluator();
    const other = await evaluator({ prompt: 'Judge {{output}} against {{input}}.' });
    const created = await post({
      name: unique('rule'),
      enabled: true,
      target: 'observation',
      evaluator: { name: ev.name },
      mapping: [
        { variable: 'input', source: 'metadata' },
        { variable: 'output', source: 'output' },
      ],
    });
    const id = created.body.id;
    const disabled = await patch(id, { enabled: false, sampling: 0.25, name: `renamed-${id}` });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({
      enabled: false,
      status: 'inactive',
      sampling: 0.25,
      name: `renamed-${id}`,
      evaluators: created.body.evaluators,
      createdAt: created.body.createdAt,
    });
    // swapping the evaluator keeps the stored override
    const swapped = await patch(id, { evaluator: { name: other.name } });
    expect(swapped.body.evaluator).toEqual({ name: other.name, type: 'llm_as_judge', id: other.id });
    expect(swapped.body.evaluators[0].mapping).toEqual(created.body.evaluators[0].mapping);
    // `evaluators` replaces the set; an omitted mapping inherits; a kept assignment keeps its id and place (creation order)
    const replaced = await patch(id, {
      evaluators: [
        { evaluator: { name: ev.name } },
        {
          evaluator: { name: other.name },
          mapping: [
            { variable: 'input', source: 'input' },
            { variable: 'output', source: 'tool_calls' },
          ],
        },
      ],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.evaluators.map((e: any) => [e.evaluator.name, e.mapping])).toEqual([
      [
        other.name,
        [
          { variable: 'input', source: 'input' },
          { variable: 'output', source: 'tool_calls' },
        ],
      ],
      [ev.name, null],
    ]);
    expect(replaced.body.mapping).toEqual([
      { variable: 'input', source: 'input' },
      { variable: 'output', source: 'tool_calls' },
    ]);
    // filter and mapping only with target
    const withTarget = await patch(id, {
      target: 'observation',
      filter: [{ column: 'environment', type: 'stringOptions', operator: 'any of', value: ['production'] }],
      mapping: [
        { variable: 'input', source: 'output' },
        { variable: 'output', source: 'input' },
      ],
    });
    expect(withTarget.status).toBe(200);
    expect(withTarget.body.filter).toEqual([{ column: 'environment', type: 'stringOptions', operator: 'any of', value: ['production'] }]);
    expect(withTarget.body.evaluators[0].mapping).toEqual([
      { variable: 'input', source: 'output' },
      { variable: 'output', source: 'input' },
    ]);
    const errors: [unknown, unknown][] = [
      [
        {},
        {
          message: 'Invalid request body',
          code: 'invalid_body',
          details: {
            issues: [
              { code: 'custom', path: [], message: 'Request body cannot be empty. At least one field must be provided for update.' },
            ],
          },
        },
      ],
      [
        { unknownOnly: 1 },
        {
          message: 'Invalid request body',
          code: 'invalid_body',
          details: {
            issues: [
              { code: 'custom', path: [], message: 'Request body cannot be empty. At least one field must be provided for update.' },
            ],
          },
        },
      ],
      [
        { evaluators: [{ evaluator: { name: ev.name } }], evaluator: { name: ev.name } },
        {
          message: 'Invalid request body',
          code: 'invalid_body',
          details: {
            issues: [
              {
                code: 'custom',
                path: ['evaluators'],
                message:
                  '`evaluators` replaces the whole assignment set and cannot be combined with the deprecated `evaluator` or `mapping` fields.',
              },
            ],
          },
        },
      ],
      [
        { mapping: [] },
        {
          message: 'Invalid request body',
          code: 'invalid_body',
          details: { issues: [{ code: 'custom', path: ['mapping'], message: '`mapping` can only be updated together with `target`.' }] },
        },
      ],
      [
        { target: 'experiment' },
        {
          message: 'Evaluation rules with target "experiment" are not supported by this server; only target "observation" is.',
          code: 'invalid_request',
          details: { field: 'target', value: 'experiment' },
        },
      ],
      [
        { evaluator: { name: 'no-such-evaluator' } },
        { message: 'Latest evaluator version not found within authorized project', code: 'resource_not_found' },
      ],
      [
        { target: 'observation', mapping: [{ variable: 'input', source: 'input' }] },
        {
          message: 'Missing mappings for evaluator variables: output',
          code: 'missing_variable_mapping',
          details: { field: 'mapping', variables: ['output'] },
        },
      ],
    ];
    for (const [body, answer] of errors) expect((await patch(id, body)).body, JSON.stringify(body)).toEqual(answer);
    expect((await patch('does-not-exist', { enabled: true })).body).toEqual({
      message: 'Evaluation rule not found within authorized project',
      code: 'resource_not_found',
    });
  });

  it('a rule whose evaluators are all deleted cannot be patched to map, and deletes with 200 then 404', async () => {
    const ev = await evaluator();
    const created = await post({ name: unique('rule'), enabled: true, target: 'observation', evaluator: { name: ev.name } });
    await raw(`/api/public/unstable/evaluators/${ev.id}`, { method: 'DELETE' });
    const mapped = await patch(created.body.id, { target: 'observation', mapping: [] });
    expect(mapped.status).toBe(400);
    expect(mapped.body).toEqual({
      message: 'This evaluation rule has no evaluator assignments, so there is no mapping to update. Provide `evaluators` to attach one.',
      code: 'invalid_body',
      details: { field: 'mapping' },
    });
    const enabled = await patch(created.body.id, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: false, status: 'inactive' });
    const del = await raw(`${RULES}/${created.body.id}`, { method: 'DELETE' });
    expect(del.body).toEqual({ message: 'Evaluation rule successfully deleted' });
    expect((await raw(`${RULES}/${created.body.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await raw(`${RULES}/${created.body.id}`)).body).toEqual({
      message: 'Evaluation rule not found within authorized project',
      code: 'resource_not_found',
    });
  });
});

describe('evaluation rules: blocked evaluators and enabledRulesFor (store)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir: 'memory://' });
  });
  afterAll(async () => {
    await db?.close();
  });

  it("reads paused with the most recently blocked evaluator's reason, and feeds the engine", async () => {
    const em = db.em();
    const projectId = await createProject(em, unique('eval-project'));
    const write = (name: string) => ({
      name,
      type: 'llm_as_judge' as const,
      prompt: 'Rate {{output}}.',
      outputDefinition: boolDef as any,
      modelConfig: { provider: 'p', model: 'm' },
      mapping: [{ variable: 'output', source: 'output' as const }],
    });
    const a = (await appendEvaluatorVersion(em, projectId, null, write('a')))!;
    const b = (await appendEvaluatorVersion(em, projectId, null, write('b')))!;
    const rule = (await saveRule(em, projectId, null, {
      name: 'r',
      target: 'observation',
      filters: [],
      sampling: 0.5,
      state: 'ACTIVE',
      assignments: [
        { evaluatorId: a.id, mapping: null },
        { evaluatorId: b.id, mapping: [{ variable: 'output', source: 'input', jsonPath: '$.q' }] },
      ],
    }))!;
    expect(presentRule(rule)).toMatchObject({ status: 'active', pausedReason: null });
    expect(await blockEvaluator(em, projectId, a.id, 'LLM_CONNECTION_AUTH_INVALID', 'The key was refused')).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    await blockEvaluator(em, projectId, b.id, 'EVAL_MODEL_UNAVAILABLE', 'No such model');
    expect(presentRule((await getRule(em, projectId, rule.id))!)).toMatchObject({
      enabled: true,
      status: 'paused',
      pausedReason: 'EVAL_MODEL_UNAVAILABLE',
      pausedMessage: 'No such model',
    });
    const enabled = await enabledRulesFor(em, projectId);
    expect(enabled).toHaveLength(1);
    expect(enabled[0]).toMatchObject({ id: rule.id, name: 'r', sampling: 0.5, filters: [] });
    expect(enabled[0]!.assignments.map((x) => [x.evaluatorName, x.mapping, x.blocked?.reason, x.prompt, x.modelConfig])).toEqual([
      ['a', [{ variable: 'output', source: 'output' }], 'LLM_CONNECTION_AUTH_INVALID', 'Rate {{output}}.', { provider: 'p', model: 'm' }],
      [
        'b',
        [{ variable: 'output', source: 'input', jsonPath: '$.q' }],
        'EVAL_MODEL_UNAVAILABLE',
        'Rate {{output}}.',
        { provider: 'p', model: 'm' },
      ],
    ]);
    await unblockEvaluator(em, projectId, b.id);
    expect(presentRule((await getRule(em, projectId, rule.id))!)).toMatchObject({
      status: 'paused',
      pausedReason: 'LLM_CONNECTION_AUTH_INVALID',
    });
    // a new version clears the block
    await appendEvaluatorVersion(em, projectId, { id: a.id, version: 1 }, write('a'));
    expect(presentRule((await getRule(em, projectId, rule.id))!)).toMatchObject({ status: 'active', pausedReason: null });
    // a stale version number is a concurrent update
    expect(await appendEvaluatorVersion(em, projectId, { id: a.id, version: 1 }, write('a'))).toBeNull();
    await saveRule(em, projectId, rule.id, {
      name: 'r',
      target: 'observation',
      filters: [],
      sampling: 0.5,
      state: 'INACTIVE',
      assignments: [{ evaluatorId: a.id, mapping: null }],
    });
    expect(await enabledRulesFor(em, projectId)).toEqual([]);
    expect(await deleteEvaluator(em, projectId, a.id)).toBe(true);
    expect((await getRule(em, projectId, rule.id))!.assignments).toEqual([]);
  });
});
