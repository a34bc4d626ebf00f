// POST /api/public/evaluations/prompt-preview (issue 27: the console's evaluator editor previews
// the judge prompt filled from a chosen generation): the values a rule's execution would take
// from the observation (sources, JSON strings parsed, jsonPath), substituted as the judge gets
// them; unmapped variables stay placeholders, a path that finds nothing empties its placeholder,
// and both are named; a bad mapping is a 400 naming it, an unknown observation a 404.
import { beforeAll, describe, expect, it } from 'vitest';
import { clientFor, raw, unique } from '../support/client.ts';

const traceId = unique('pp-trace');
const generationId = unique('pp-gen');
const post = (body: unknown) =>
  raw('/api/public/evaluations/prompt-preview', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  const now = new Date().toISOString();
  const { data } = await clientFor('projectA').ingestion.batch({
    body: {
      batch: [
        { id: unique('e'), timestamp: now, type: 'trace-create', body: { id: traceId, name: 'support-chat' } },
        {
          id: unique('e'),
          timestamp: now,
          type: 'generation-create',
          body: {
            id: generationId,
            traceId,
            name: 'answer',
            model: 'gpt-4o-mini',
            input: [
              { role: 'system', content: 'Be brief.' },
              { role: 'user', content: 'What is the capital of France?' },
            ],
            output: { role: 'assistant', content: 'Paris.' },
            // a JSON string, as some SDKs record metadata: parsed before the path applies
            metadata: { retrieval: JSON.stringify({ documents: [{ title: 'France' }, { title: 'Paris' }] }) },
          },
        },
      ],
    },
  });
  expect(data.errors).toEqual([]);
});

describe('prompt preview', () => {
  it('fills the prompt from the generation as a rule would: sources, jsonPath, JSON strings parsed, values as JSON', async () => {
    const res = await post({
      prompt: 'Q: {{question}}\nA: {{answer}}\nDocs: {{docs}}\nAll: {{everything}}\nRef: {{reference}}',
      mapping: [
        { variable: 'question', source: 'input', jsonPath: '$[1].content' },
        { variable: 'answer', source: 'output', jsonPath: '$.content' },
        { variable: 'docs', source: 'metadata', jsonPath: '$.retrieval.documents[*].title' },
        { variable: 'everything', source: 'output' },
      ],
      observationId: generationId,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      prompt:
        'Q: What is the capital of France?\nA: Paris.\nDocs: ["France","Paris"]\nAll: {"role":"assistant","content":"Paris."}\nRef: {{reference}}',
      variables: {
        question: 'What is the capital of France?',
        answer: 'Paris.',
        docs: '["France","Paris"]',
        everything: '{"role":"assistant","content":"Paris."}',
      },
      unfilled: ['reference'],
      observation: { id: generationId, traceId, name: 'answer', type: 'GENERATION' },
    });
  });

  it('a path that finds nothing empties its placeholder (as the judge would get it) and is named', async () => {
    const res = await post({
      prompt: 'Tools: [{{tools}}]',
      mapping: [{ variable: 'tools', source: 'tool_calls', jsonPath: '$[0].name' }],
      observationId: generationId,
    });
    expect(res.body).toMatchObject({ prompt: 'Tools: []', variables: { tools: null }, unfilled: ['tools'] });
  });

  it('refuses a mapping the evaluator could not store, and an observation of another project', async () => {
    const badPath = await post({
      prompt: '{{a}}',
      mapping: [{ variable: 'a', source: 'output', jsonPath: 'content' }],
      observationId: generationId,
    });
    expect(badPath.status).toBe(400);
    expect(badPath.body.message).toBe(
      'Mapping for variable "a" has an invalid jsonPath "content". JSONPath expressions must start with "$".',
    );
    const notInPrompt = await post({ prompt: '{{a}}', mapping: [{ variable: 'b', source: 'output' }], observationId: generationId });
    expect(notInPrompt).toMatchObject({ status: 400, body: { message: 'Mapping variable "b" is not present in the evaluator prompt' } });
    const elsewhere = await raw('/api/public/evaluations/prompt-preview', {
      method: 'POST',
      project: 'projectB',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: '{{a}}', observationId: generationId }),
    });
    expect(elsewhere).toMatchObject({
      status: 404,
      body: { message: `Observation not found: ${generationId}`, error: 'LangfuseNotFoundError' },
    });
  });
});
