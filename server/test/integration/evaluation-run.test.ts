// Evaluation rules at work on the suite's server (PGlite, and PostgreSQL when DATABASE_URL is
// set): an ingested generation that matches an enabled rule is judged through a connection to a
// fake gateway on 127.0.0.2, the score lands with source EVAL, the judge's call is a priced
// generation in langfuse-llm-as-a-judge that is never judged itself; retries, pausing and
// re-ingestion behave as Langfuse documents them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';
import { json, startFakeProvider, type FakeProvider, type Received } from '../support/fake-provider.ts';
import { FAKE_PROVIDER_HOST } from './global-setup.ts';

type Project = 'projectA' | 'projectB';
let gateway: FakeProvider;
const KEY = `sk-judge-${unique('k')}`;

const send = (method: string, path: string, body?: unknown, project: Project = 'projectA') =>
  raw(path, {
    method,
    project,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const judgeReply = (score: string, reasoning = 'Because.') => ({
  id: 'chatcmpl-j',
  object: 'chat.completion',
  created: 1763856000,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    {
      index: 0,
      finish_reason: 'stop',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'extract', arguments: JSON.stringify({ score, reasoning }) } }],
      },
    },
  ],
  usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
});

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** a connection, an evaluator and a rule on generations named `name` (ingestion sees the rule at once: its cache is invalidated by the write) */
async function setup(project: Project, opts: { filterName?: string; sampling?: number } = {}) {
  const provider = unique('judge-conn');
  expect(
    (
      await send(
        'PUT',
        '/api/public/llm-connections',
        { provider, adapter: 'openai', secretKey: KEY, baseURL: `${gateway.url}/v1`, extraHeaders: { 'x-judge-tenant': 'acme' } },
        project,
      )
    ).status,
  ).toBe(201);
  const evaluatorName = unique('helpfulness');
  const ev = await send(
    'POST',
    '/api/public/unstable/evaluators',
    {
      name: evaluatorName,
      prompt: 'Question: {{question}}\nAnswer: {{answer}}\nThink step by step.',
      outputDefinition: {
        dataType: 'NUMERIC',
        reasoning: { description: 'Why.' },
        score: { description: 'Helpfulness 0 to 1.', minValue: 0, maxValue: 1 },
      },
      modelConfig: { provider, model: 'gpt-4o-mini' },
      mapping: [
        { variable: 'question', source: 'input', jsonPath: '$.question' },
        { variable: 'answer', source: 'output', jsonPath: '$.content' },
      ],
    },
    project,
  );
  expect(ev.status, JSON.stringify(ev.body)).toBe(200);
  const rule = await send(
    'POST',
    '/api/public/unstable/evaluation-rules',
    {
      name: unique('rule'),
      enabled: true,
      sampling: opts.sampling ?? 1,
      target: 'observation',
      filter: opts.filterName ? [{ column: 'name', type: 'stringOptions', operator: 'any of', value: [opts.filterName] }] : [],
      evaluators: [{ evaluator: { name: evaluatorName } }],
    },
    project,
  );
  expect(rule.status, JSON.stringify(rule.body)).toBe(200);
  return { provider, evaluatorName, evaluatorId: ev.body.id as string, ruleId: rule.body.id as string };
}

async function ingestGeneration(
  name: string,
  output: string,
  project: Project = 'projectA',
  id = unique('gen'),
  traceId = unique('trace'),
) {
  const res = await send(
    'POST',
    '/api/public/ingestion',
    {
      batch: [
        { id: unique('e'), timestamp: new Date().toISOString(), type: 'trace-create', body: { id: traceId, name: 'support-bot' } },
        {
          id: unique('e'),
          timestamp: new Date().toISOString(),
          type: 'generation-create',
          body: {
            id,
            traceId,
            name,
            model: 'gpt-4o-mini',
            input: { question: 'Capital of France?' },
            output: { role: 'assistant', content: output },
          },
        },
      ],
    },
    project,
  );
  expect(res.status).toBe(207);
  expect(res.body.errors).toEqual([]);
  return { id, traceId };
}

const evalScores = async (name: string, project: Project = 'projectA') =>
  (await send('GET', `/api/public/v2/scores?name=${encodeURIComponent(name)}&source=EVAL`, undefined, project)).body.data as any[];
const executions = async (ruleId: string, project: Project = 'projectA') =>
  (await send('GET', `/api/public/unstable/evaluation-rules/${ruleId}/executions`, undefined, project)).body.data as any[];

beforeAll(async () => {
  gateway = await startFakeProvider(FAKE_PROVIDER_HOST);
});
afterAll(async () => {
  await gateway.close();
});

describe('evaluation rules on ingestion', () => {
  it('retries a failed execution on request: queued again, judged, one score; a completed one cannot be retried', async () => {
    const name = unique('retry');
    const s = await setup('projectA', { filterName: name });
    gateway.reset();
    // an answer without the extract call: the execution fails, and nothing pauses the rule
    gateway.answer = (_r, res) =>
      json(res, 200, {
        ...judgeReply('1'),
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'I think it is fine.' } }],
      });
    const g = await ingestGeneration(name, 'Paris');
    const [failed] = await until('the failed execution', async () => {
      const jobs = await executions(s.ruleId);
      return jobs[0]?.status === 'ERROR' && jobs;
    });
    expect(failed.error).toBeTruthy();
    const retryPath = (id: string) => `/api/public/unstable/evaluation-rules/${s.ruleId}/executions/${id}/retry`;

    gateway.answer = (_r, res) => json(res, 200, judgeReply('1', 'Right.'));
    const retried = await send('POST', retryPath(failed.id));
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body).toMatchObject({ id: failed.id, status: 'PENDING', attempts: 0, error: null, observationId: g.id });
    const [done] = await until('the retried execution', async () => {
      const jobs = await executions(s.ruleId);
      return jobs[0]?.status === 'COMPLETED' && jobs;
    });
    expect(await evalScores(s.evaluatorName)).toEqual([expect.objectContaining({ id: done.scoreId, value: 1, observationId: g.id })]);

    const again = await send('POST', retryPath(done.id));
    expect(again).toMatchObject({
      status: 409,
      body: { message: 'Only a failed or cancelled execution can be retried; this one is COMPLETED', code: 'invalid_request' },
    });
    expect(await send('POST', retryPath('no-such-execution'))).toMatchObject({ status: 404, body: { code: 'resource_not_found' } });
    // another project's key finds nothing
    expect((await send('POST', retryPath(done.id), undefined, 'projectB')).status).toBe(404);
  });

  it('judges a matching generation through the connection and writes an EVAL score; the judge call is a priced, unjudged generation', async () => {
    const name = unique('chat');
    const s = await setup('projectA', { filterName: name });
    gateway.reset();
    gateway.answer = (_r, res) => json(res, 200, judgeReply('0.9', 'Correct and concise.'));
    const other = await ingestGeneration(unique('not-matching'), 'ignored');
    const g = await ingestGeneration(name, 'Paris');

    const [score] = await until('the score', async () => (await evalScores(s.evaluatorName)).at(0) && evalScores(s.evaluatorName));
    expect(score).toMatchObject({
      name: s.evaluatorName,
      value: 0.9,
      source: 'EVAL',
      dataType: 'NUMERIC',
      comment: 'Correct and concise.',
      traceId: g.traceId,
      observationId: g.id,
      environment: 'default',
    });

    // exactly one call, the brief's request with the mapped variables in the prompt
    expect(gateway.received).toHaveLength(1);
    const r: Received = gateway.received[0]!;
    expect(r.path).toBe('/v1/chat/completions');
    expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r.headers['x-judge-tenant']).toBe('acme');
    expect(r.headers.accept).toBe('application/json');
    expect(Object.keys(r.body).sort()).toEqual([
      'frequency_penalty',
      'max_tokens',
      'messages',
      'model',
      'n',
      'presence_penalty',
      'stream',
      'temperature',
      'tool_choice',
      'tools',
      'top_p',
    ]);
    expect(r.body.messages).toEqual([{ role: 'user', content: 'Question: Capital of France?\nAnswer: Paris\nThink step by step.' }]);
    expect(r.body.stream).toBe(false);
    expect(r.body.tool_choice).toEqual({ type: 'function', function: { name: 'extract' } });

    // the job, and the judge's own trace: priced, in the internal environment, never judged
    const jobs = await executions(s.ruleId);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ status: 'COMPLETED', observationId: g.id, scoreId: score.id, attempts: 1, error: null });
    const trace = await send('GET', `/api/public/traces/${jobs[0].executionTraceId}`);
    expect(trace.status).toBe(200);
    expect(trace.body).toMatchObject({ name: `Execute evaluator: ${s.evaluatorName}`, environment: 'langfuse-llm-as-a-judge' });
    expect(trace.body.observations).toHaveLength(1);
    expect(trace.body.observations[0]).toMatchObject({
      type: 'GENERATION',
      model: 'gpt-4o-mini',
      usageDetails: { input: 100, output: 20, total: 120 },
      costStatus: 'inferred',
    });
    expect(score.executionTraceId ?? jobs[0].executionTraceId).toBe(jobs[0].executionTraceId);
    expect(other.id).not.toBe(g.id);

    // ingested again with a new output: the same job runs again and overwrites the same score
    gateway.answer = (_r, res) => json(res, 200, judgeReply('0.2', 'Wrong now.'));
    await ingestGeneration(name, 'Lyon', 'projectA', g.id, g.traceId);
    const again = await until('the new verdict', async () => {
      const list = await evalScores(s.evaluatorName);
      return list.length === 1 && list[0].value === 0.2 ? list : null;
    });
    expect(again[0].id).toBe(score.id);
    expect(await executions(s.ruleId)).toHaveLength(1);
  });

  it('while ingestion keeps the server busy the judge keeps to one call a second; the rest follows once ingestion eases', async () => {
    const name = unique('busy');
    const s = await setup('projectA', { filterName: name });
    gateway.reset();
    gateway.answer = (_r, res) => json(res, 200, judgeReply('0.5'));
    const marker = unique('busy-answer');
    const mine = () => gateway.received.filter((r) => r.raw.includes(marker)).length;
    // two senders back to back for 2.5 s, one batch in ten enqueuing a job: batches under way nearly
    // all the time, so busy from about 0.5 s on (half of the last second)
    const started = Date.now();
    let batches = 0;
    let sent = 0;
    let atOneSecond = -1;
    await Promise.all(
      [0, 1].map(async () => {
        while (Date.now() - started < 2_500) {
          // at most 40 jobs: one page of scores holds them
          if (batches++ % 10 || sent >= 40) await ingestGeneration(`${name}-unjudged`, 'Paris');
          else await ingestGeneration(name, `${marker}-${sent++}`);
          if (atOneSecond < 0 && Date.now() - started >= 1_000) atOneSecond = mine();
        }
      }),
    );
    const lastPart = mine() - atOneSecond;
    expect(sent).toBeGreaterThanOrEqual(8);
    // one claim a second over the last 1.5 s, where a wake per batch ran one per batch
    expect(lastPart).toBeLessThanOrEqual(3);
    await until('every job judged', async () => (await evalScores(s.evaluatorName)).length >= sent, 30_000);
    expect(mine()).toBe(sent);
  });

  it('a steady light load does not hold the judge back: its jobs are judged while it goes on', async () => {
    const name = unique('light');
    await setup('projectA', { filterName: name });
    gateway.reset();
    gateway.answer = (_r, res) => json(res, 200, judgeReply('0.5'));
    const marker = unique('light-answer');
    const mine = () => gateway.received.filter((r) => r.raw.includes(marker)).length;
    // a batch every 250 ms for 2 s ("a batch within the last 300 ms" called this busy throughout,
    // and judged one job per 500 ms)
    for (let i = 0; i < 8; i++) {
      await ingestGeneration(name, `${marker}-${i}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(mine()).toBeGreaterThanOrEqual(7);
  });

  it("a rule on every observation never judges the judge's own generation", async () => {
    const s = await setup('projectB');
    gateway.reset();
    gateway.answer = (_r, res) => json(res, 200, judgeReply('1'));
    const g = await ingestGeneration(unique('any'), 'Paris', 'projectB');
    await until('the score', async () => (await evalScores(s.evaluatorName, 'projectB')).length === 1);
    // give a wrongly enqueued job for the judge's generation time to show up
    await new Promise((r) => setTimeout(r, 1_000));
    const jobs = await executions(s.ruleId, 'projectB');
    expect(jobs.map((j) => j.observationId)).toEqual([g.id]);
    expect(gateway.received).toHaveLength(1);
    await send('DELETE', `/api/public/unstable/evaluation-rules/${s.ruleId}`, undefined, 'projectB');
  });

  it('retries a rate-limited call, and pauses the evaluator on an invalid key', async () => {
    const name = unique('chat');
    const s = await setup('projectA', { filterName: name });
    gateway.reset();
    let calls = 0;
    gateway.answer = (_r, res) =>
      ++calls === 1
        ? json(res, 429, { error: { message: 'Rate limit reached', code: 'rate_limit_exceeded' } })
        : json(res, 200, judgeReply('1'));
    await ingestGeneration(name, 'Paris');
    await until('the score after a retry', async () => (await evalScores(s.evaluatorName)).length === 1);
    const [job] = await executions(s.ruleId);
    expect(job).toMatchObject({ status: 'COMPLETED', attempts: 2 });

    gateway.answer = (_r, res) => json(res, 401, { error: { message: `Incorrect API key provided: ${KEY}`, code: 'invalid_api_key' } });
    const failed = await ingestGeneration(name, 'Paris');
    const errored = await until('the failed job', async () =>
      (await executions(s.ruleId)).find((j) => j.observationId === failed.id && j.status === 'ERROR'),
    );
    expect(errored.error).toMatch(/Incorrect API key provided/);
    expect(errored.error).not.toContain(KEY);
    const rule = (await send('GET', `/api/public/unstable/evaluation-rules/${s.ruleId}`)).body;
    expect(rule).toMatchObject({ status: 'paused', pausedReason: 'LLM_CONNECTION_AUTH_INVALID', enabled: true });

    // paused: later generations get no job
    const received = gateway.received.length;
    const later = await ingestGeneration(name, 'Paris');
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await executions(s.ruleId)).some((j) => j.observationId === later.id)).toBe(false);
    expect(gateway.received.length).toBe(received);

    // a new key for the connection lifts the pause
    expect(
      (
        await send('PUT', '/api/public/llm-connections', {
          provider: s.provider,
          adapter: 'openai',
          secretKey: `${KEY}-new`,
          baseURL: `${gateway.url}/v1`,
        })
      ).status,
    ).toBe(200);
    expect((await send('GET', `/api/public/unstable/evaluation-rules/${s.ruleId}`)).body).toMatchObject({
      status: 'active',
      pausedReason: null,
    });
    gateway.answer = (_r, res) => json(res, 200, judgeReply('1'));
    const resumed = await ingestGeneration(name, 'Paris');
    await until('the resumed job', async () =>
      (await executions(s.ruleId)).find((j) => j.observationId === resumed.id && j.status === 'COMPLETED'),
    );
    expect(gateway.received.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}-new`);
  });
});
