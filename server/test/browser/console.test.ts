// The web console as a person uses it: Tally started with `make run` on a fresh embedded
// database, driven in Debian's Chromium (playwright-core). Each flow leaves screenshots at 1280
// and 390 px wide in scratch/browser/console/ (git-ignored). Run by `make browser-test`.
import { mkdirSync } from 'node:fs';
import type http from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { launchChromium } from './support/chromium.ts';
import { shoot, signedIn } from './support/console-page.ts';
import { makeRun, type RunningTally } from './support/make-run.ts';
import { api } from './support/tally-api.ts';

const SHOTS = new URL('../../../scratch/browser/console/', import.meta.url).pathname;
const API_KEY = 'sk-fake-e2e-0123456789abcdef';

let tally: RunningTally;
let browser: Browser;
let fake: FakeProvider;

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
  fake = await startFakeProvider('127.0.0.2');
  // the fake provider is on loopback: only it may be called
  tally = await makeRun({ TALLY_LLM_EGRESS: 'allowlist', TALLY_LLM_ALLOWED_HOSTS: '127.0.0.2' });
});
afterAll(async () => {
  await browser?.close();
  await tally?.stop();
  await fake?.close();
});

describe('the console in a browser, against make run', () => {
  it('creates a model with two tiers; a generation on the second tier shows its cost on the dashboard', async () => {
    const { page, problems } = await signedIn(browser, tally);
    await page.getByRole('link', { name: 'Models' }).click();
    await page.getByRole('heading', { name: 'Create a model' }).waitFor();
    const form = page.getByRole('form', { name: 'Create a model', exact: true });
    await form.getByLabel('Model name', { exact: true }).fill('e2e-tiered');
    // an invalid pattern first: the server's message is shown, not a blank
    await form.getByLabel('Match pattern', { exact: true }).fill('(?i)^e2e-tiered($');
    await form.getByRole('radio', { name: 'Pricing tiers' }).check();
    await form.getByLabel('Tier 1 input price', { exact: true }).fill('0.000001');
    await form.getByLabel('Tier 1 output price', { exact: true }).fill('0.000002');
    await form.getByRole('button', { name: 'Add tier' }).click();
    await form.getByLabel('Tier 2 name', { exact: true }).fill('Large');
    await form.getByLabel('Tier 2 condition 1 usage pattern', { exact: true }).fill('input');
    await form.getByLabel('Tier 2 condition 1 operator', { exact: true }).selectOption('gt');
    await form.getByLabel('Tier 2 condition 1 threshold', { exact: true }).fill('1000');
    await form.getByLabel('Tier 2 input price', { exact: true }).fill('0.00001');
    await form.getByLabel('Tier 2 output price', { exact: true }).fill('0.00002');
    await form.getByRole('button', { name: 'Create model' }).click();
    await expect.poll(() => form.getByRole('alert').first().textContent()).toMatch(/\S/);
    await expect.poll(() => form.textContent()).toMatch(/regular expression|pattern/i);

    await form.getByLabel('Match pattern', { exact: true }).fill('(?i)^e2e-tiered$');
    await form.getByRole('button', { name: 'Create model' }).click();
    await page.getByText('Created model e2e-tiered.').waitFor();
    await page.getByLabel('Search models').fill('e2e-tiered');
    await page.getByRole('table', { name: 'Models', exact: true }).getByRole('rowheader', { name: 'e2e-tiered' }).waitFor();
    await shoot(page, SHOTS, 'models');

    // a generation with 2,000 input tokens: over the "Large" tier's threshold of 1,000
    const now = new Date().toISOString();
    const ingest = await api(tally, 'POST', '/api/public/ingestion', {
      batch: [
        { id: 'e2e-ev-trace', timestamp: now, type: 'trace-create', body: { id: 'e2e-trace', name: 'e2e-call', userId: 'user-e2e' } },
        {
          id: 'e2e-ev-gen',
          timestamp: now,
          type: 'generation-create',
          body: {
            id: 'e2e-gen',
            traceId: 'e2e-trace',
            name: 'e2e-call',
            model: 'e2e-tiered',
            startTime: now,
            usageDetails: { input: 2000, output: 100 },
          },
        },
      ],
    });
    expect(ingest.status).toBe(207);
    expect(ingest.body.errors).toEqual([]);
    const stored = await api(tally, 'GET', '/api/public/observations/e2e-gen');
    expect(stored.body.costDetails).toEqual({ input: 0.02, output: 0.002, total: 0.022 }); // 2000 × 0.00001 + 100 × 0.00002

    await page.getByRole('link', { name: 'Dashboard' }).click();
    const summary = page.getByRole('region', { name: 'Summary', exact: true });
    await expect.poll(() => summary.textContent(), { timeout: 15_000 }).toContain('$0.022');
    const costCard = page.getByRole('region', { name: 'Cost per day by model', exact: true });
    await costCard.getByText('Numbers').click();
    const numbers = costCard.getByRole('table', { name: 'Cost per day by model: numbers', exact: true });
    const today = now.slice(0, 10);
    await expect.poll(() => numbers.getByRole('row', { name: new RegExp(today) }).textContent()).toContain('$0.022');
    expect(await numbers.getByRole('columnheader', { name: 'e2e-tiered' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('table', { name: 'Top users by cost', exact: true }).textContent()).toContain('user-e2e');
    await expect.poll(() => page.getByRole('table', { name: 'Top names by cost', exact: true }).textContent()).toContain('e2e-call');
    await shoot(page, SHOTS, 'dashboard');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('reprices after a price is corrected: the preview shows the change per day and model, Apply writes it', async () => {
    // a wrong price, and a generation it priced: 1,000 input tokens at 0.000001 = $0.001
    const wrong = await api(tally, 'POST', '/api/public/models', {
      modelName: 'e2e-reprice',
      matchPattern: '(?i)^e2e-reprice$',
      unit: 'TOKENS',
      inputPrice: 0.000001,
    });
    expect(wrong.status).toBe(200);
    const now = new Date().toISOString();
    const ingest = await api(tally, 'POST', '/api/public/ingestion', {
      batch: [
        {
          id: 'e2e-ev-reprice',
          timestamp: now,
          type: 'generation-create',
          body: { id: 'e2e-reprice-gen', name: 'e2e-reprice', model: 'e2e-reprice', startTime: now, usageDetails: { input: 1000 } },
        },
      ],
    });
    expect(ingest.body.errors).toEqual([]);
    expect((await api(tally, 'GET', '/api/public/observations/e2e-reprice-gen')).body.calculatedTotalCost).toBe(0.001);

    const { page, problems } = await signedIn(browser, tally);
    await page.getByRole('link', { name: 'Models' }).click();
    await page.getByLabel('Search models').fill('e2e-reprice');
    const table = page.getByRole('table', { name: 'Models', exact: true });
    // the wrong definition deleted (a second press confirms), the right one created in the form
    await table.getByRole('button', { name: 'Delete e2e-reprice', exact: true }).click();
    await table.getByRole('button', { name: 'Confirm delete e2e-reprice', exact: true }).click();
    await expect.poll(() => table.getByRole('rowheader', { name: 'e2e-reprice', exact: true }).count()).toBe(0);
    const form = page.getByRole('form', { name: 'Create a model', exact: true });
    await form.getByLabel('Model name', { exact: true }).fill('e2e-reprice');
    await form.getByLabel('Match pattern', { exact: true }).fill('(?i)^e2e-reprice$');
    await form.getByLabel('Input price', { exact: true }).fill('0.000003');
    await form.getByRole('button', { name: 'Create model' }).click();
    await page.getByText('Created model e2e-reprice.').waitFor();

    await page.getByRole('button', { name: 'Reprice past generations…' }).click();
    const panel = page.getByRole('region', { name: 'Reprice past generations', exact: true });
    await panel.getByRole('radio', { name: 'Last 7 days' }).check();
    await panel.getByRole('button', { name: 'Preview', exact: true }).click();
    const preview = panel.getByRole('table', { name: 'Changes the preview found', exact: true });
    const row = preview.getByRole('row', { name: /e2e-reprice/ });
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain('$0.003');
    expect(await row.textContent()).toContain('$0.001');
    expect(await row.textContent()).toContain(now.slice(0, 10));
    // a preview writes nothing
    expect((await api(tally, 'GET', '/api/public/observations/e2e-reprice-gen')).body.calculatedTotalCost).toBe(0.001);
    await shoot(page, SHOTS, 'reprice-preview');

    await panel.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect.poll(() => panel.getByRole('status').textContent(), { timeout: 15_000 }).toMatch(/^Reprice done: .*\b1 changed/);
    await panel
      .getByRole('table', { name: 'Changes applied', exact: true })
      .getByRole('row', { name: /e2e-reprice/ })
      .waitFor();
    expect((await api(tally, 'GET', '/api/public/observations/e2e-reprice-gen')).body.calculatedTotalCost).toBe(0.003);
    // the job is in the audit list
    await expect
      .poll(() => panel.getByRole('table', { name: 'Recent reprice jobs', exact: true }).getByRole('row').count())
      .toBeGreaterThan(1);
    await shoot(page, SHOTS, 'reprice-applied');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('creates a connection to a fake provider, tests it, and streams a playground answer with its cost', async () => {
    // a price for the fake provider's model, so the answer has a cost: 12 × 0.000001 + 5 × 0.000002
    expect(
      (
        await api(tally, 'POST', '/api/public/models', {
          modelName: 'fake-model',
          matchPattern: '(?i)^fake-model$',
          unit: 'TOKENS',
          inputPrice: 0.000001,
          outputPrice: 0.000002,
        })
      ).status,
    ).toBe(200);
    const pieces = ['Hello', ' from', ' the', ' fake provider.'];
    const chunk = (extra: Record<string, unknown>) => ({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'fake-model',
      ...extra,
    });
    // streamed slowly, so the browser shows the answer growing before it is complete
    fake.answer = (r, res: http.ServerResponse) => {
      if (!r.body?.stream) {
        json(res, 200, {
          id: 'p',
          object: 'chat.completion',
          created: 1,
          model: 'fake-model',
          usage: { prompt_tokens: 80, completion_tokens: 10, total_tokens: 90 },
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [{ id: 't', type: 'function', function: { name: 'extract', arguments: '{"score":"5","reasoning":"fine"}' } }],
              },
            },
          ],
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const next = () => {
        if (res.destroyed) return;
        if (i < pieces.length) {
          // as OpenAI does, the first delta names the role
          res.write(
            `data: ${JSON.stringify(chunk({ choices: [{ index: 0, delta: { ...(i === 0 ? { role: 'assistant' } : {}), content: pieces[i++] }, finish_reason: null }] }))}\n\n`,
          );
          setTimeout(next, 400);
          return;
        }
        res.write(`data: ${JSON.stringify(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }))}\n\n`);
        res.write(
          `data: ${JSON.stringify(chunk({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } }))}\n\n`,
        );
        res.end('data: [DONE]\n\n');
      };
      next();
    };

    const { page, problems } = await signedIn(browser, tally);
    await page.getByRole('link', { name: 'LLM connections' }).click();
    const form = page.getByRole('form', { name: 'New connection', exact: true });
    await form.getByLabel('Provider name', { exact: true }).fill('fake-openai');
    await form.getByLabel('Adapter', { exact: true }).selectOption('openai');
    await form.getByLabel('API key', { exact: true }).fill(API_KEY);
    await form.getByLabel('Base URL', { exact: true }).fill(`${fake.url}/v1`);
    await form.getByLabel('Custom model', { exact: true }).fill('fake-model');
    await form.getByRole('button', { name: 'Add model' }).click();
    await form.getByRole('button', { name: 'Create connection' }).click();
    await page.getByText('Created connection fake-openai.').waitFor();
    const masked = await page.getByLabel('Masked key of fake-openai').textContent();
    expect(masked).not.toContain(API_KEY);
    expect(masked).toContain(API_KEY.slice(-4));
    expect(await page.content()).not.toContain(API_KEY); // the key never comes back to the page

    await page.getByRole('button', { name: 'Test fake-openai' }).click();
    const result = page.getByRole('status', { name: 'Test result of fake-openai', exact: true });
    await expect.poll(() => result.textContent(), { timeout: 15_000 }).toMatch(/ok/i);
    await shoot(page, SHOTS, 'connections');

    // an edit that leaves the key blank keeps the stored key
    await page.getByRole('button', { name: 'Edit fake-openai' }).click();
    const edit = page.getByRole('form', { name: 'Edit connection fake-openai', exact: true });
    await edit.getByLabel("Offer the adapter's default models", { exact: true }).uncheck();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved connection fake-openai.').waitFor();
    const probes = fake.received.length;
    await page.getByRole('button', { name: 'Test fake-openai' }).click();
    await expect.poll(() => result.textContent(), { timeout: 15_000 }).toMatch(/ok/i);
    expect(fake.received[probes]?.headers.authorization).toBe(`Bearer ${API_KEY}`);

    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('Connection', { exact: true }).selectOption('fake-openai');
    await page.getByLabel('Model', { exact: true }).selectOption('fake-model');
    await page.getByLabel('Content of message 1', { exact: true }).fill('Say hello');
    await page.getByRole('button', { name: 'Run' }).click();
    const answer = page.getByRole('region', { name: 'Answer', exact: true });
    // part of the answer is on screen while the rest is still on its way
    await expect.poll(() => answer.textContent(), { timeout: 15_000 }).toContain('Hello');
    expect(await answer.textContent()).not.toContain('fake provider.');
    await expect.poll(() => answer.textContent(), { timeout: 15_000 }).toContain('Hello from the fake provider.');
    await page.getByText('Cost status: inferred').waitFor();
    await expect.poll(() => page.getByRole('table', { name: 'Cost', exact: true }).textContent()).toContain('$0.000022');
    const usage = await page.getByRole('table', { name: 'Usage', exact: true }).textContent();
    expect(usage).toContain('12');
    expect(usage).toContain('5');
    await shoot(page, SHOTS, 'playground');

    const streamed = fake.received.find((r) => r.body?.stream);
    expect(streamed?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(streamed?.body.model).toBe('fake-model');
    expect(streamed?.body.messages).toEqual([{ role: 'user', content: 'Say hello' }]);
    expect(tally.output()).not.toContain(API_KEY); // nor does it reach the server's log
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows a rule that judged a generation: its execution, the score it wrote, and disabling it', async () => {
    fake.answer = (_r, res) =>
      json(res, 200, {
        id: 'j',
        object: 'chat.completion',
        created: 1,
        model: 'fake-model',
        usage: { prompt_tokens: 40, completion_tokens: 8, total_tokens: 48 },
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 't',
                  type: 'function',
                  function: { name: 'extract', arguments: '{"score":"0.9","reasoning":"Concise and correct."}' },
                },
              ],
            },
          },
        ],
      });
    expect(
      (
        await api(tally, 'PUT', '/api/public/llm-connections', {
          provider: 'fake-judge',
          adapter: 'openai',
          secretKey: API_KEY,
          baseURL: `${fake.url}/v1`,
          customModels: ['fake-model'],
        })
      ).status,
    ).toBe(201);
    const evaluator = await api(tally, 'POST', '/api/public/unstable/evaluators', {
      name: 'e2e-helpfulness',
      prompt: 'Rate how helpful the answer is.',
      outputDefinition: {
        dataType: 'NUMERIC',
        reasoning: { description: 'Why.' },
        score: { description: 'Helpfulness 0 to 1.', minValue: 0, maxValue: 1 },
      },
      modelConfig: { provider: 'fake-judge', model: 'fake-model' },
    });
    expect(evaluator.status, JSON.stringify(evaluator.body)).toBe(200);
    const rule = await api(tally, 'POST', '/api/public/unstable/evaluation-rules', {
      name: 'e2e-judge-rule',
      enabled: true,
      sampling: 1,
      target: 'observation',
      filter: [{ column: 'name', type: 'stringOptions', operator: 'any of', value: ['judged-call'] }],
      evaluators: [{ evaluator: { name: 'e2e-helpfulness' } }],
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    const now = new Date().toISOString();
    expect(
      (
        await api(tally, 'POST', '/api/public/ingestion', {
          batch: [
            {
              id: 'e2e-ev-judged',
              timestamp: now,
              type: 'generation-create',
              body: {
                id: 'e2e-judged',
                traceId: 'e2e-judged-trace',
                name: 'judged-call',
                model: 'fake-model',
                input: 'What is 2+2?',
                output: '4',
                usageDetails: { input: 5, output: 1 },
              },
            },
          ],
        })
      ).body.errors,
    ).toEqual([]);
    await expect
      .poll(
        async () => (await api(tally, 'GET', `/api/public/unstable/evaluation-rules/${rule.body.id}/executions`)).body.data?.[0]?.status,
        {
          timeout: 30_000,
          interval: 250,
        },
      )
      .toBe('COMPLETED');

    const { page, problems } = await signedIn(browser, tally);
    await page.getByRole('link', { name: 'Evaluators' }).click();
    await page.getByRole('table', { name: 'Evaluators', exact: true }).getByText('e2e-helpfulness').waitFor();
    await page.getByRole('list', { name: 'Evaluation rules', exact: true }).getByText('e2e-judge-rule').first().waitFor();
    const runs = page.getByRole('table', { name: 'Executions of e2e-judge-rule', exact: true });
    await expect.poll(() => runs.textContent(), { timeout: 15_000 }).toMatch(/COMPLETED|completed/);
    expect(await runs.textContent()).toContain('0.9');
    const scores = page.getByRole('table', { name: 'Scores written by evaluators', exact: true });
    await expect.poll(() => scores.textContent()).toContain('e2e-helpfulness');
    expect(await scores.textContent()).toContain('Concise and correct.');
    await shoot(page, SHOTS, 'evaluators');

    await page.getByRole('button', { name: 'Disable e2e-judge-rule' }).click();
    await page.getByRole('button', { name: 'Enable e2e-judge-rule' }).waitFor();
    expect((await api(tally, 'GET', `/api/public/unstable/evaluation-rules/${rule.body.id}`)).body.enabled).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('writes an evaluator in the console, previewing its prompt from a real generation, then a rule that runs it', async () => {
    const now = new Date().toISOString();
    expect(
      (
        await api(tally, 'POST', '/api/public/ingestion', {
          batch: [
            {
              id: 'e2e-ev-preview',
              timestamp: now,
              type: 'generation-create',
              body: {
                id: 'e2e-preview-gen',
                traceId: 'e2e-preview-trace',
                name: 'support-answer',
                model: 'fake-model',
                input: [{ role: 'user', content: 'Where is my parcel?' }],
                output: { role: 'assistant', content: 'It ships tomorrow.' },
              },
            },
          ],
        })
      ).body.errors,
    ).toEqual([]);
    const { page, problems } = await signedIn(browser, tally);
    await page.getByRole('link', { name: 'Evaluators' }).click();
    await page.getByRole('button', { name: 'New evaluator' }).click();
    const form = page.getByRole('form', { name: 'New evaluator' });
    await form.getByLabel('Evaluator name').fill('e2e-on-topic');
    await form.getByLabel('Judge prompt').fill('Question: {{question}}\nAnswer: {{answer}}\nIs the answer on topic?');
    await form.getByLabel('{{question}} from').selectOption('input');
    await form.getByLabel('{{question}} JSONPath').fill('$[0].content');
    await form.getByLabel('{{answer}} from').selectOption('output');
    await form.getByLabel('{{answer}} JSONPath').fill('$.content');
    await form.getByLabel('Score type').selectOption('BOOLEAN');
    await form.getByLabel('What the score means').fill('On topic or not.');
    await form.getByLabel('Connection').fill('fake-judge');
    await form.getByLabel('Model', { exact: true }).fill('fake-model');
    await form.getByLabel('Generation to fill the prompt from').fill('e2e-preview-gen');
    await form.getByRole('button', { name: 'Preview prompt' }).click();
    const preview = form.getByRole('region', { name: 'What the judge would read' });
    await expect.poll(() => preview.textContent()).toContain('Question: Where is my parcel?');
    expect(await preview.textContent()).toContain('Answer: It ships tomorrow.');
    await shoot(page, SHOTS, 'evaluator-form');
    await form.getByRole('button', { name: 'Create evaluator' }).click();
    await page.getByText('Saved e2e-on-topic, version 1.').waitFor();

    await page.getByRole('button', { name: 'New rule' }).click();
    const ruleForm = page.getByRole('form', { name: 'New rule' });
    await ruleForm.getByLabel('Rule name').fill('e2e-on-topic-rule');
    await ruleForm.getByLabel('Observation names').fill('support-answer');
    await ruleForm.getByRole('checkbox', { name: 'e2e-on-topic' }).check();
    await ruleForm.getByRole('button', { name: 'Create rule' }).click();
    await page.getByText('Created rule e2e-on-topic-rule.').waitFor();
    const rules = (await api(tally, 'GET', '/api/public/unstable/evaluation-rules')).body.data as Array<Record<string, any>>;
    const made = rules.find((r) => r.name === 'e2e-on-topic-rule')!;
    expect(made).toMatchObject({
      enabled: true,
      sampling: 1,
      filter: expect.arrayContaining([{ column: 'name', type: 'stringOptions', operator: 'any of', value: ['support-answer'] }]),
    });
    expect(made.evaluators.map((a: { evaluator: { name: string } }) => a.evaluator.name)).toEqual(['e2e-on-topic']);
    expect(problems).toEqual([]);
    await page.close();
  });
});
