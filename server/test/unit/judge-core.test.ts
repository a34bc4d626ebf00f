// The evaluator's pure core: prompt compilation, deterministic ids and sampling, the judge's
// request and the reading of its answer, variable extraction and rule matching.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { executionTraceId, jobId, samplingValue, sampled, scoreId, uuidV5 } from '../../src/domain/evaluation/ids.ts';
import { JUDGE_DEFAULT_PARAMS, judgeCall, readJudgeAnswer, type OutputDefinition } from '../../src/domain/evaluation/judge.ts';
import { compilePrompt, promptVariables } from '../../src/domain/evaluation/prompt.ts';
import { ruleMatches, type ObservationForMatching } from '../../src/domain/evaluation/rule-match.ts';
import { extractVariables } from '../../src/domain/evaluation/variables.ts';

describe('prompt', () => {
  it('lists declared variables once, in order; compiles {{ x }} with spaces; keeps unknown ones; never substitutes twice', () => {
    const p = 'Q: {{query}} A: {{generation}} again {{query}} {{ spaced }} {{1bad}}';
    expect(promptVariables(p)).toEqual(['query', 'generation']);
    expect(
      compilePrompt('{{ query }}|{{generation}}|{{missing}}|{{n}}|{{o}}', {
        query: 'hi {{generation}}',
        generation: 'x',
        n: null,
        o: { a: 1 },
      }),
    ).toBe('hi {{generation}}|x|{{missing}}||{"a":1}');
  });
});

describe('ids and sampling', () => {
  it('uuidV5 matches the RFC test vector', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('job, trace and score ids are deterministic and shaped as Langfuse writes them', () => {
    const j = jobId('rule', 'assign', 'trace', 'obs');
    expect(j).toMatch(/^[0-9a-f]{32}$/);
    expect(jobId('rule', 'assign', 'trace', 'obs')).toBe(j);
    expect(jobId('rule2', 'assign', 'trace', 'obs')).not.toBe(j);
    expect(executionTraceId(j)).toMatch(/^[0-9a-f]{32}$/);
    expect(scoreId(j, 'helpfulness', 0)).toBe(scoreId(j, 'helpfulness', 0));
    expect(scoreId(j, 'helpfulness', 1)).not.toBe(scoreId(j, 'helpfulness', 0));
  });

  it('ids and sample values never change between versions: stored jobs and scores are found again by them', () => {
    // reference: SHA-256 of the UTF-8 text through createHash, as the first release computed them
    const ref = (s: string) => createHash('sha256').update(s, 'utf8').digest();
    const many = Array.from({ length: 2000 }, (_, i) => `${i.toString(36)}-${'é日☃x'.slice(0, i % 5)}-${crypto.randomUUID()}`);
    for (const id of ['obs-1', 'naïve-☃-日本', 'a'.repeat(300), '', ...many]) {
      const h = ref(`langfuse:evaluation-sampling:v1\0${id}`);
      expect(samplingValue(id)).toBe(((h.readUInt32BE(0) >>> 11) * 2 ** 32 + h.readUInt32BE(4)) / 2 ** 53);
      expect(jobId('rule', 'assign', 'trace', id)).toBe(
        ref(JSON.stringify(['observation-eval', 'rule', 'assign', 'trace', id]))
          .toString('hex')
          .slice(0, 32),
      );
      expect(executionTraceId(id)).toBe(ref(id).toString('hex').slice(0, 32));
    }
  });

  it('sampling is a stable value in [0,1) per observation, uniform enough that 10% samples ~10%', () => {
    expect(samplingValue('obs-1')).toBe(samplingValue('obs-1'));
    let hits = 0;
    for (let i = 0; i < 20_000; i++) {
      const v = samplingValue(`obs-${i}`);
      expect(v >= 0 && v < 1).toBe(true);
      if (sampled(0.1, `obs-${i}`)) hits++;
    }
    expect(hits / 20_000).toBeGreaterThan(0.09);
    expect(hits / 20_000).toBeLessThan(0.11);
    expect(sampled(1, 'anything')).toBe(true);
    expect(sampled(0, 'anything')).toBe(false);
  });
});

describe('the judge request', () => {
  it('sends one user message, all six parameters (defaults for unset ones) and the forced extract tool', () => {
    const c = judgeCall({ model: 'gpt-4o', prompt: 'Grade it', params: { temperature: 0.3 }, outputDefinition: null });
    expect(c.messages).toEqual([{ role: 'user', content: 'Grade it' }]);
    expect(c.params).toEqual({ ...JUDGE_DEFAULT_PARAMS, temperature: 0.3 });
    expect(c.toolChoice).toEqual({ name: 'extract' });
    expect(c.tools![0]!.parameters).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { score: { type: 'string' }, reasoning: { type: 'string' } },
      required: ['score', 'reasoning'],
      additionalProperties: false,
    });
    expect(c).not.toHaveProperty('providerOptions');
  });

  it("carries the output definition's descriptions on the two properties", () => {
    const def: OutputDefinition = { dataType: 'NUMERIC', score: { description: '1 to 5' }, reasoning: { description: 'why' } };
    const props = (judgeCall({ model: 'm', prompt: 'p', outputDefinition: def }).tools![0]!.parameters as any).properties;
    expect(props).toEqual({ score: { type: 'string', description: '1 to 5' }, reasoning: { type: 'string', description: 'why' } });
  });
});

describe("reading the judge's answer", () => {
  const call = (args: unknown) => [{ name: 'extract', arguments: typeof args === 'string' ? args : JSON.stringify(args) }];
  const numeric: OutputDefinition = {
    dataType: 'NUMERIC',
    score: { description: 's', minValue: 0, maxValue: 1 },
    reasoning: { description: 'r' },
  };
  const boolean: OutputDefinition = { dataType: 'BOOLEAN', score: { description: 's' }, reasoning: { description: 'r' } };
  const single: OutputDefinition = {
    dataType: 'CATEGORICAL',
    score: { description: 's', categories: ['good', 'bad'], shouldAllowMultipleMatches: false },
    reasoning: { description: 'r' },
  };
  const multi: OutputDefinition = { ...single, score: { ...single.score, shouldAllowMultipleMatches: true } } as OutputDefinition;

  it('converts the string score per data type', () => {
    expect(readJudgeAnswer(call({ score: '0.8', reasoning: 'ok' }), numeric, 'm')).toEqual({
      ok: true,
      scores: [{ dataType: 'NUMERIC', value: 0.8 }],
      reasoning: 'ok',
    });
    expect(readJudgeAnswer(call({ score: '4', reasoning: 'legacy' }), null, 'm')).toEqual({
      ok: true,
      scores: [{ dataType: 'NUMERIC', value: 4 }],
      reasoning: 'legacy',
    });
    expect(readJudgeAnswer(call({ score: 'True', reasoning: 'r' }), boolean, 'm')).toMatchObject({
      ok: true,
      scores: [{ dataType: 'BOOLEAN', value: 1 }],
    });
    expect(readJudgeAnswer(call({ score: 'no', reasoning: 'r' }), boolean, 'm')).toMatchObject({ ok: true, scores: [{ value: 0 }] });
    expect(readJudgeAnswer(call({ score: 'GOOD', reasoning: 'r' }), single, 'm')).toMatchObject({
      ok: true,
      scores: [{ dataType: 'CATEGORICAL', value: 'good' }],
    });
    expect(readJudgeAnswer(call({ score: '["good","bad"]', reasoning: 'r' }), multi, 'm')).toMatchObject({
      ok: true,
      scores: [{ value: 'good' }, { value: 'bad' }],
    });
    expect(readJudgeAnswer(call({ score: 'bad, good', reasoning: 'r' }), multi, 'm')).toMatchObject({
      ok: true,
      scores: [{ value: 'bad' }, { value: 'good' }],
    });
  });

  it('refuses what does not fit, naming the model', () => {
    const msg = (r: ReturnType<typeof readJudgeAnswer>) => (r.ok ? 'ok' : r.message);
    expect(msg(readJudgeAnswer(call({ score: '1.5', reasoning: 'r' }), numeric, 'gpt-4o'))).toBe(
      'Invalid LLM response format from model gpt-4o. Error: score 1.5 is above the maximum 1',
    );
    expect(msg(readJudgeAnswer(call({ score: 'high', reasoning: 'r' }), numeric, 'm'))).toMatch(/is not a number/);
    expect(msg(readJudgeAnswer(call({ score: 'maybe', reasoning: 'r' }), boolean, 'm'))).toMatch(/not a boolean/);
    expect(msg(readJudgeAnswer(call({ score: 'ugly', reasoning: 'r' }), single, 'm'))).toMatch(/not one of the categories/);
    expect(msg(readJudgeAnswer(call({ score: 'good,good', reasoning: 'r' }), multi, 'm'))).toMatch(/named twice/);
    expect(msg(readJudgeAnswer(call({ score: '1' }), numeric, 'm'))).toMatch(/reasoning must be a string/);
    expect(msg(readJudgeAnswer([], numeric, 'm'))).toMatch(/no extract tool call/);
    expect(msg(readJudgeAnswer(call('not json'), numeric, 'm'))).toMatch(/not JSON/);
  });
});

describe('variables from an observation', () => {
  it('parses JSON strings, selects with jsonPath (one match unwrapped, several as an array, none undefined), reads tool calls', () => {
    const obs = {
      input: JSON.stringify({
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'What is 2+2?' },
        ],
      }),
      output: {
        role: 'assistant',
        content: '4',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calc', arguments: '{"expr":"2+2"}' } }],
      },
      metadata: { lang: 'en' },
    };
    const v = extractVariables(obs, [
      { variable: 'query', source: 'input', jsonPath: '$.messages[1].content' },
      { variable: 'roles', source: 'input', jsonPath: '$.messages[*].role' },
      { variable: 'none', source: 'input', jsonPath: '$.nothing' },
      { variable: 'generation', source: 'output', jsonPath: '$.content' },
      { variable: 'meta', source: 'metadata' },
      { variable: 'tools', source: 'tool_calls', jsonPath: '$[0].arguments.expr' },
    ]);
    expect(v).toEqual({
      query: 'What is 2+2?',
      roles: ['system', 'user'],
      none: undefined,
      generation: '4',
      meta: { lang: 'en' },
      tools: '2+2',
    });
  });
});

describe('rule matching', () => {
  const obs: ObservationForMatching = {
    id: 'o',
    type: 'GENERATION',
    level: 'DEFAULT',
    name: 'chat',
    environment: 'production',
    traceName: 'support-bot',
    version: 'v2',
    userId: 'u1',
    sessionId: null,
    tags: ['beta', 'eu'],
    metadata: { tier: 'gold' },
    parentObservationId: null,
    output: { tool_calls: [{ function: { name: 'search', arguments: '{}' } }] },
  };
  it('ANDs every filter type', () => {
    expect(ruleMatches(obs, [])).toBe(true);
    expect(
      ruleMatches(obs, [
        { column: 'type', type: 'stringOptions', operator: 'any of', value: ['GENERATION'] },
        { column: 'traceName', type: 'stringOptions', operator: 'none of', value: ['other'] },
        { column: 'version', type: 'string', operator: 'starts with', value: 'v' },
        { column: 'tags', type: 'arrayOptions', operator: 'all of', value: ['beta', 'eu'] },
        { column: 'metadata', type: 'stringObject', key: 'tier', operator: '=', value: 'gold' },
        { column: 'isRootObservation', type: 'boolean', operator: '=', value: true },
        { column: 'sessionId', type: 'null', operator: 'is null', value: '' },
        { column: 'toolCalls', type: 'number', operator: '>=', value: 1 },
        { column: 'calledToolNames', type: 'arrayOptions', operator: 'any of', value: ['search'] },
      ]),
    ).toBe(true);
    expect(ruleMatches(obs, [{ column: 'level', type: 'stringOptions', operator: 'any of', value: ['ERROR'] }])).toBe(false);
    expect(ruleMatches(obs, [{ column: 'tags', type: 'arrayOptions', operator: 'none of', value: ['eu'] }])).toBe(false);
  });
  it("never matches the judge's or the playground's own observations", () => {
    for (const environment of ['langfuse-llm-as-a-judge', 'langfuse', 'llm-as-a-judge', 'tally-playground'])
      expect(ruleMatches({ ...obs, environment }, []), environment).toBe(false);
  });
});
