import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { mockOperation } from '../../sdk/mocks/index.ts';
import { Evaluators } from '../src/pages/Evaluators.tsx';
import { emptyEvaluator, evaluatorRequest } from '../src/pages/evaluators/evaluator-draft.ts';
import { emptyRule, ruleDraftOf, ruleRequest } from '../src/pages/evaluators/rule-draft.ts';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

const API = `${BASE_URL}/api/public`;
const meta = (n: number) => ({ page: 1, limit: 50, totalItems: n, totalPages: n ? 1 : 0 });

const pausedRule = {
  id: 'rule-paused',
  name: 'helpfulness-rule',
  evaluator: { name: 'helpfulness', type: 'llm_as_judge', id: 'ev-1' },
  evaluators: [{ evaluator: { name: 'helpfulness', type: 'llm_as_judge', id: 'ev-1' }, mapping: null }],
  enabled: true,
  status: 'paused',
  pausedReason: 'LLM_CONNECTION_MISSING',
  pausedMessage: 'No LLM connection for provider "openai-prod".',
  sampling: 1,
  target: 'observation',
  filter: [{ column: 'type', type: 'stringOptions', operator: 'any of', value: ['GENERATION'] }],
  mapping: [],
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
};
const job = (over: Record<string, unknown>) => ({
  id: 'job-x',
  status: 'PENDING',
  observationId: 'obs-1',
  traceId: 'trace-1',
  evaluatorId: 'ev-1',
  attempts: 1,
  runAfter: '2026-11-22T10:00:00.000Z',
  error: null,
  scoreId: null,
  executionTraceId: null,
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:05.000Z',
  ...over,
});
const score = {
  id: 'score-1',
  projectId: 'p',
  environment: 'default',
  name: 'helpfulness',
  source: 'EVAL',
  authorUserId: null,
  comment: 'Answers the question directly.',
  metadata: null,
  configId: null,
  queueId: null,
  executionTraceId: 'judge-trace',
  createdAt: '2026-11-22T10:00:06.000Z',
  updatedAt: '2026-11-22T10:00:06.000Z',
  timestamp: '2026-11-22T10:00:06.000Z',
  traceId: 'trace-2',
  observationId: 'obs-2',
  sessionId: null,
  datasetRunId: null,
  dataType: 'NUMERIC',
  value: 0.8,
  stringValue: null,
};

afterEach(() => mockServer.events.removeAllListeners());

describe('Evaluators page', () => {
  it('lists the evaluators, the rules with their settings and asks for EVAL scores (spec examples)', async () => {
    const urls: string[] = [];
    mockServer.events.on('request:start', ({ request }) => {
      urls.push(request.url);
    });
    renderSignedIn(<Evaluators />);
    const evs = await screen.findByRole('table', { name: 'Evaluators' });
    const row = within(evs).getByRole('rowheader', { name: 'helpfulness' }).closest('tr')!;
    expect(row).toHaveTextContent('NUMERIC');
    expect(row).toHaveTextContent('openai / gpt-4o-mini');
    const tone = within(evs).getByRole('rowheader', { name: 'tone' }).closest('tr')!;
    expect(tone).toHaveTextContent('CATEGORICAL');
    expect(tone).toHaveTextContent('anthropic / claude-3-5-haiku-20241022');

    const rule = await screen.findByRole('listitem', { name: 'grade-support-answers' });
    expect(rule).toHaveTextContent('active');
    expect(rule).toHaveTextContent('5%');
    expect(rule).toHaveTextContent(
      'type any of [GENERATION]; traceName any of [support-chat]; environment any of [production]; metadata.channel = "web"',
    );
    // the spec's executions of the rule: one completed with its score, one failed with its error
    const jobs = await screen.findByRole('table', { name: 'Executions of grade-support-answers' });
    const [completed, failed] = within(jobs).getAllByRole('row').slice(1) as [HTMLElement, HTMLElement];
    expect(completed).toHaveTextContent('COMPLETED');
    expect(completed).toHaveTextContent('helpfulness');
    expect(within(completed).getByRole('link', { name: '14e20a4a106a2043' })).toHaveAttribute(
      'href',
      '#/traces/c8aea1df91cd2537f1c151b2e24f0267?observation=14e20a4a106a2043',
    );
    // its score is not on the mocked scores page, so the row names it by id
    await waitFor(() => expect(completed).toHaveTextContent('e8a32ce9-414a-59c9-8fe8-c5890c6d2a47'));
    expect(within(completed).queryByRole('button', { name: /^Retry/ })).toBeNull();
    expect(failed).toHaveTextContent('ERROR');
    expect(failed).toHaveTextContent('Invalid LLM response format from model gpt-4o-mini. Error: score 8 is above the maximum 1');
    // retried: the spec's answer, the same job queued again
    await userEvent.click(within(failed).getByRole('button', { name: 'Retry execution d7cecce737af0c0af233f67715a34682' }));
    await waitFor(() => expect(within(jobs).getAllByRole('row')[2]).toHaveTextContent('PENDING'));
    expect(within(jobs).getAllByRole('row')[2]).toHaveTextContent('2026-11-26 16:12:40 UTC');
    expect(within(jobs).getAllByRole('row')[2]).not.toHaveTextContent('Invalid LLM response');

    await screen.findByRole('table', { name: 'Scores written by evaluators' });
    const scoreQueries = urls.filter((u) => u.includes('/api/public/v2/scores')).map((u) => new URL(u).searchParams);
    expect(scoreQueries.some((q) => q.get('source') === 'EVAL')).toBe(true);
    // the executions ask for their scores by id
    expect(scoreQueries.some((q) => q.get('scoreIds') === 'e8a32ce9-414a-59c9-8fe8-c5890c6d2a47')).toBe(true);
  });

  it('says how to get executions when a rule has none (the spec example noJobsYet)', async () => {
    mockServer.use(mockOperation('evaluationRules_executions', 'noJobsYet', { baseUrl: BASE_URL }));
    renderSignedIn(<Evaluators />);
    expect(await screen.findByText('No executions yet')).toBeInTheDocument();
    expect(screen.getByText(/Ingest an observation that matches the rule’s filters/)).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Executions of grade-support-answers' })).toBeNull();
  });

  it('shows a paused rule with its reason, its executions with status, error and score, and the scores', async () => {
    mockServer.use(
      http.get(`${API}/unstable/evaluation-rules`, () => HttpResponse.json({ data: [pausedRule], meta: meta(1) })),
      http.get(`${API}/unstable/evaluation-rules/:id/executions`, ({ params }) =>
        HttpResponse.json(
          params.id === 'rule-paused'
            ? {
                data: [
                  job({ id: 'job-1', status: 'ERROR', error: 'Evaluator paused: LLM_CONNECTION_MISSING' }),
                  job({
                    id: 'job-2',
                    status: 'COMPLETED',
                    scoreId: 'score-1',
                    observationId: 'obs-2',
                    traceId: 'trace-2',
                    executionTraceId: 'judge-trace',
                  }),
                ],
                meta: meta(2),
              }
            : { data: [], meta: meta(0) },
        ),
      ),
      http.get(`${API}/v2/scores`, () => HttpResponse.json({ data: [score], meta: meta(1) })),
    );
    renderSignedIn(<Evaluators />);
    const rule = await screen.findByRole('listitem', { name: 'helpfulness-rule' });
    const paused = within(rule).getByRole('note', { name: 'helpfulness-rule is paused' });
    expect(paused).toHaveTextContent('Paused: LLM_CONNECTION_MISSING');
    expect(paused).toHaveTextContent('No LLM connection for provider "openai-prod".');

    const jobs = await screen.findByRole('table', { name: 'Executions of helpfulness-rule' });
    const rows = within(jobs).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveTextContent('ERROR');
    expect(rows[0]).toHaveTextContent('Evaluator paused: LLM_CONNECTION_MISSING');
    expect(rows[1]).toHaveTextContent('COMPLETED');
    await waitFor(() => expect(rows[1]).toHaveTextContent('helpfulness: 0.8'));
    expect(rows[1]).toHaveTextContent('2026-11-22 10:00:00 UTC');
    expect(within(rows[1]!).getByRole('link', { name: 'obs-2' })).toHaveAttribute('href', '#/traces/trace-2?observation=obs-2');
    expect(within(rows[1]!).getByRole('link', { name: 'trace-2' })).toHaveAttribute('href', '#/traces/trace-2');

    const scores = await screen.findByRole('table', { name: 'Scores written by evaluators' });
    const s = within(scores).getByRole('rowheader', { name: 'helpfulness' }).closest('tr')!;
    expect(s).toHaveTextContent('0.8');
    expect(s).toHaveTextContent('Answers the question directly.');
    expect(within(s).getByRole('link', { name: 'trace-2' })).toHaveAttribute('href', '#/traces/trace-2');
    expect(within(s).getByRole('link', { name: 'obs-2' })).toHaveAttribute('href', '#/traces/trace-2?observation=obs-2');

    // a failed execution is retried in place; a completed one offers no retry
    let retriedPath = '';
    mockServer.use(
      http.post(`${API}/unstable/evaluation-rules/:rule/executions/:job/retry`, ({ request, params }) => {
        retriedPath = new URL(request.url).pathname;
        return HttpResponse.json(job({ id: String(params.job), status: 'PENDING', attempts: 0, error: null }));
      }),
    );
    expect(within(rows[1]!).queryByRole('button', { name: /^Retry/ })).toBeNull();
    await userEvent.click(within(rows[0]!).getByRole('button', { name: 'Retry execution job-1' }));
    await waitFor(() => expect(within(jobs).getAllByRole('row')[1]).toHaveTextContent('PENDING'));
    expect(retriedPath).toBe('/api/public/unstable/evaluation-rules/rule-paused/executions/job-1/retry');
    expect(within(jobs).getAllByRole('row')[1]).not.toHaveTextContent('Evaluator paused');
  });

  it('disables a rule, and shows the refusal when the server says no', async () => {
    const bodies: unknown[] = [];
    mockServer.events.on('request:start', async ({ request }) => {
      if (request.method === 'PATCH') bodies.push(await request.clone().json());
    });
    renderSignedIn(<Evaluators />);
    await userEvent.click(await screen.findByRole('button', { name: 'Disable grade-support-answers' }));
    // the spec's first answer (`pause`): enabled false, status inactive
    expect(await screen.findByRole('button', { name: 'Enable grade-support-answers' })).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'grade-support-answers' })).toHaveTextContent('inactive');
    expect(bodies).toEqual([{ enabled: false }]);

    mockServer.use(
      http.patch(`${API}/unstable/evaluation-rules/:id`, () =>
        HttpResponse.json(
          { message: 'Enabling this rule would exceed the limit of 50 active evaluation rules', code: 'conflict' },
          { status: 409 },
        ),
      ),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Enable grade-support-answers' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Enabling this rule would exceed the limit of 50 active evaluation rules');
    expect(alert).toHaveTextContent('409');
    expect(screen.getByRole('button', { name: 'Enable grade-support-answers' })).toBeEnabled();
  });

  it('says how to create evaluators and rules when there are none', async () => {
    mockServer.use(
      http.get(`${API}/unstable/evaluators`, () => HttpResponse.json({ data: [], meta: meta(0) })),
      http.get(`${API}/unstable/evaluation-rules`, () => HttpResponse.json({ data: [], meta: meta(0) })),
      http.get(`${API}/v2/scores`, () => HttpResponse.json({ data: [], meta: meta(0) })),
    );
    renderSignedIn(<Evaluators />);
    expect(await screen.findByText('No evaluators yet')).toBeInTheDocument();
    expect(screen.getByText(/POST \/api\/public\/unstable\/evaluators with/)).toBeInTheDocument();
    expect(await screen.findByText('No evaluation rules yet')).toBeInTheDocument();
    expect(screen.getByText(/POST \/api\/public\/unstable\/evaluation-rules with/)).toBeInTheDocument();
    expect(await screen.findByText('No evaluator scores yet')).toBeInTheDocument();
  });

  it("shows the server's message when the list fails", async () => {
    mockServer.use(
      http.get(`${API}/unstable/evaluation-rules`, () =>
        HttpResponse.json({ message: 'Invalid query parameters', code: 'invalid_query', details: { issues: [] } }, { status: 400 }),
      ),
    );
    renderSignedIn(<Evaluators />);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Evaluation rules: Invalid query parameters');
  });

  it('creates an evaluator in the console: variables mapped from the prompt, the judge prompt previewed from a generation, the spec body sent', async () => {
    let created: Record<string, unknown> | undefined;
    let previewed: Record<string, unknown> | undefined;
    mockServer.use(
      http.post(`${API}/evaluations/prompt-preview`, async ({ request }) => {
        previewed = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({
          prompt: 'Question: What is the capital of France?\nAnswer: Paris.',
          variables: { question: 'What is the capital of France?', answer: 'Paris.' },
          unfilled: [],
          observation: { id: String(previewed.observationId), traceId: 't', name: 'answer', type: 'GENERATION' },
        });
      }),
      http.post(`${API}/unstable/evaluators`, async ({ request }) => {
        created = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({
          ...(created as object),
          id: 'ev-new',
          version: 1,
          variables: ['question', 'answer'],
          evaluationRuleCount: 0,
          createdAt: '2026-11-27T10:00:00.000Z',
          updatedAt: '2026-11-27T10:00:00.000Z',
        });
      }),
    );
    const user = userEvent.setup();
    renderSignedIn(<Evaluators />);
    await user.click(await screen.findByRole('button', { name: 'New evaluator' }));
    const form = screen.getByRole('form', { name: 'New evaluator' });
    await user.type(within(form).getByLabelText('Evaluator name'), 'correctness');
    // braces are typed as {{ in user-event's syntax
    await user.type(within(form).getByLabelText('Judge prompt'), 'Question: {{{{question}}\nAnswer: {{{{answer}}');
    await user.selectOptions(within(form).getByLabelText('{{question}} from'), 'input');
    await user.type(within(form).getByLabelText('{{question}} JSONPath'), '$[[1].content');
    await user.selectOptions(within(form).getByLabelText('{{answer}} from'), 'output');
    await user.type(within(form).getByLabelText('{{answer}} JSONPath'), '$.content');
    await user.type(within(form).getByLabelText('What the score means'), 'Correctness from 0 to 1');
    await user.type(within(form).getByLabelText('Connection'), 'openai');
    await user.type(within(form).getByLabelText('Model'), 'gpt-4o-mini');
    const generation = within(form).getByLabelText('Generation to fill the prompt from');
    // the newest generation is offered (the spec example's), then replaced by the one chosen
    await waitFor(() => expect(generation).not.toHaveValue(''));
    await user.clear(generation);
    await user.type(generation, 'gen-42');
    await user.click(within(form).getByRole('button', { name: 'Preview prompt' }));
    expect(await within(form).findByLabelText('What the judge would read')).toHaveTextContent(
      'Question: What is the capital of France? Answer: Paris.',
    );
    expect(previewed).toEqual({
      prompt: 'Question: {{question}}\nAnswer: {{answer}}',
      mapping: [
        { variable: 'question', source: 'input', jsonPath: '$[1].content' },
        { variable: 'answer', source: 'output', jsonPath: '$.content' },
      ],
      observationId: 'gen-42',
    });
    await user.click(within(form).getByRole('button', { name: 'Create evaluator' }));
    expect(await screen.findByText('Saved correctness, version 1.')).toBeInTheDocument();
    expect(created).toEqual({
      name: 'correctness',
      type: 'llm_as_judge',
      prompt: 'Question: {{question}}\nAnswer: {{answer}}',
      outputDefinition: {
        dataType: 'NUMERIC',
        reasoning: { description: 'Why this score, step by step.' },
        score: { description: 'Correctness from 0 to 1', minValue: 0, maxValue: 1 },
      },
      modelConfig: { provider: 'openai', model: 'gpt-4o-mini' },
      mapping: [
        { variable: 'question', source: 'input', jsonPath: '$[1].content' },
        { variable: 'answer', source: 'output', jsonPath: '$.content' },
      ],
    });
  });

  it('edits an evaluator as its next version: prefilled, the name kept, POSTed under that name', async () => {
    let posted: Record<string, unknown> | undefined;
    mockServer.use(
      http.post(`${API}/unstable/evaluators`, async ({ request }) => {
        posted = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({
          ...(posted as object),
          id: 'ev-x',
          version: 2,
          variables: [],
          mapping: null,
          evaluationRuleCount: 0,
          createdAt: '2026-11-27T10:00:00.000Z',
          updatedAt: '2026-11-27T10:00:00.000Z',
        });
      }),
    );
    const user = userEvent.setup();
    renderSignedIn(<Evaluators />);
    const table = await screen.findByRole('table', { name: 'Evaluators' });
    const editButton = within(table).getAllByRole('button', { name: /^Edit / })[0]!;
    const name = editButton.getAttribute('aria-label')!.replace(/^Edit /, '');
    await user.click(editButton);
    const form = screen.getByRole('form', { name: `New version of ${name}` });
    expect(within(form).getByLabelText('Evaluator name')).toHaveValue(name);
    expect(within(form).getByLabelText('Evaluator name')).toHaveAttribute('readonly');
    const prompt = within(form).getByLabelText('Judge prompt') as HTMLTextAreaElement;
    expect(prompt.value.length).toBeGreaterThan(0);
    await user.type(prompt, ' Be strict.');
    await user.click(within(form).getByRole('button', { name: 'Save new version' }));
    await screen.findByText(`Saved ${name}, version 2.`);
    expect(posted).toMatchObject({ name, prompt: expect.stringMatching(/ Be strict\.$/) });
  });

  it('checks what the server would refuse before sending: a partial default mapping, fewer than two categories, a model without a connection', () => {
    const d = {
      ...emptyEvaluator(),
      name: 'n',
      prompt: '{{a}} {{b}}',
      scoreDescription: 's',
      mapping: { a: { source: 'input' as const, jsonPath: '' } },
    };
    expect(evaluatorRequest(d)).toEqual({
      errors: { mapping: 'Map every variable, or none (each rule then maps them): b is not mapped.' },
    });
    expect(evaluatorRequest({ ...d, mapping: {} })).toMatchObject({ body: { name: 'n' } });
    expect(evaluatorRequest({ ...d, mapping: {} })).not.toHaveProperty('body.mapping');
    expect(evaluatorRequest({ ...d, mapping: {}, dataType: 'CATEGORICAL', categories: 'good\n good ' })).toEqual({
      errors: { 'outputDefinition.score.categories': 'Give at least two categories, one per line.' },
    });
    expect(evaluatorRequest({ ...d, mapping: {}, model: 'gpt-4o' })).toEqual({
      errors: { modelConfig: 'Give both the connection and the model, or neither.' },
    });
  });

  const judge = (over: Record<string, unknown>) => ({
    type: 'llm_as_judge',
    version: 1,
    outputDefinition: { dataType: 'BOOLEAN', reasoning: { description: 'Why.' }, score: { description: 'Polite or not.' } },
    modelConfig: { provider: 'openai', model: 'gpt-4o-mini' },
    evaluationRuleCount: 0,
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
    ...over,
  });
  const mapped = judge({
    id: 'ev-m',
    name: 'politeness',
    prompt: 'Polite? {{answer}}',
    variables: ['answer'],
    mapping: [{ variable: 'answer', source: 'output' }],
  });
  const unmapped = judge({
    id: 'ev-u',
    name: 'grounded',
    prompt: 'Q {{question}} A {{answer}}',
    variables: ['question', 'answer'],
    mapping: null,
  });

  it('creates a rule in the console: its observations, its sampling, its evaluators, the mapping of one without a default', async () => {
    let created: Record<string, unknown> | undefined;
    mockServer.use(
      http.get(`${API}/unstable/evaluators`, () => HttpResponse.json({ data: [mapped, unmapped], meta: meta(2) })),
      http.get(`${API}/unstable/evaluation-rules`, () => HttpResponse.json({ data: [], meta: meta(0) })),
      http.post(`${API}/unstable/evaluation-rules`, async ({ request }) => {
        created = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({
          ...pausedRule,
          ...(created as object),
          id: 'rule-new',
          status: 'active',
          pausedReason: null,
          pausedMessage: null,
        });
      }),
    );
    const user = userEvent.setup();
    renderSignedIn(<Evaluators />);
    await user.click(await screen.findByRole('button', { name: 'New rule' }));
    const form = screen.getByRole('form', { name: 'New rule' });
    await user.click(within(form).getByRole('button', { name: 'Create rule' }));
    expect(within(form).getByLabelText('Rule name')).toHaveAccessibleDescription('Required: the rule’s name.');
    expect(within(form).getByText('Choose at least one evaluator.')).toBeInTheDocument();
    await user.type(within(form).getByLabelText('Rule name'), 'support answers');
    await user.clear(within(form).getByLabelText('Sampling'));
    await user.type(within(form).getByLabelText('Sampling'), '0.25');
    await user.type(within(form).getByLabelText('Observation names'), 'answer, summary');
    await user.click(within(form).getByRole('checkbox', { name: 'politeness' }));
    await user.click(within(form).getByRole('checkbox', { name: 'grounded' }));
    // only the evaluator without a default mapping asks for one
    expect(within(form).queryByLabelText('politeness: {{answer}} from')).toBeNull();
    await user.selectOptions(within(form).getByLabelText('grounded: {{question}} from'), 'input');
    await user.click(within(form).getByRole('button', { name: 'Create rule' }));
    expect(within(form).getByText('Map answer: grounded has no default mapping.')).toBeInTheDocument();
    await user.selectOptions(within(form).getByLabelText('grounded: {{answer}} from'), 'output');
    await user.type(within(form).getByLabelText('grounded: {{answer}} JSONPath'), '$.content');
    await user.click(within(form).getByRole('button', { name: 'Create rule' }));
    expect(await screen.findByText('Created rule support answers.')).toBeInTheDocument();
    expect(created).toEqual({
      name: 'support answers',
      enabled: true,
      sampling: 0.25,
      target: 'observation',
      filter: [
        { column: 'type', type: 'stringOptions', operator: 'any of', value: ['GENERATION'] },
        { column: 'name', type: 'stringOptions', operator: 'any of', value: ['answer', 'summary'] },
      ],
      evaluators: [
        { evaluator: { name: 'politeness' } },
        {
          evaluator: { name: 'grounded' },
          mapping: [
            { variable: 'question', source: 'input' },
            { variable: 'answer', source: 'output', jsonPath: '$.content' },
          ],
        },
      ],
    });
  });

  it('edits a rule: prefilled from it, filters the form does not show kept, sent as an update', () => {
    const rule = {
      ...pausedRule,
      sampling: 0.5,
      filter: [
        { column: 'type', type: 'stringOptions', operator: 'any of', value: ['GENERATION', 'EVENT'] },
        { column: 'tags', type: 'arrayOptions', operator: 'any of', value: ['beta'] },
      ],
    } as never;
    const d = ruleDraftOf(rule);
    expect(d).toMatchObject({
      name: 'helpfulness-rule',
      sampling: '0.5',
      lists: { type: 'GENERATION, EVENT', name: '', environment: '' },
      evaluators: ['helpfulness'],
    });
    const built = ruleRequest({ ...d, lists: { ...d.lists, environment: 'production' } }, [
      judge({ id: 'ev-1', name: 'helpfulness', prompt: 'No variables.', mapping: null }),
    ] as never);
    expect(built).toMatchObject({
      body: {
        filter: [
          { column: 'type', value: ['GENERATION', 'EVENT'] },
          { column: 'environment', value: ['production'] },
          { column: 'tags', type: 'arrayOptions', value: ['beta'] },
        ],
        evaluators: [{ evaluator: { name: 'helpfulness' } }],
      },
    });
    expect(ruleRequest({ ...emptyRule(), name: 'x', sampling: '0', evaluators: ['helpfulness'] }, [])).toEqual({
      errors: { sampling: 'A share of the matching observations above 0 and at most 1 (1: all of them, 0.1: one in ten).' },
    });
  });
});
