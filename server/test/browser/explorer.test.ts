// The traces and generations explorer as a person uses it, against `make run` on a fresh embedded
// database with a few seeded traces: dashboard → a user's traces → a trace → a generation, at 1280
// and 390 px wide. Screenshots in scratch/browser/explorer/ (git-ignored). Run by `make browser-test`.
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.ts';
import { shoot, signedIn } from './support/console-page.ts';
import { makeRun, type RunningTally } from './support/make-run.ts';
import { api } from './support/tally-api.ts';

const SHOTS = new URL('../../../scratch/browser/explorer/', import.meta.url).pathname;

let tally: RunningTally;
let browser: Browser;

const at = (base: number, s: number) => new Date(base + s * 1000).toISOString();

/** a support agent's day: two of alice's chats (one with an unpriced polish step) and one of bob's summaries */
async function seed(): Promise<void> {
  const model = await api(tally, 'POST', '/api/public/models', {
    modelName: 'e2e-gpt',
    matchPattern: '(?i)^e2e-gpt$',
    unit: 'TOKENS',
    inputPrice: 0.000002,
    outputPrice: 0.000008,
  });
  expect(model.status).toBe(200);
  const base = Date.now() - 30 * 60_000;
  const events: unknown[] = [];
  const ev = (type: string, body: Record<string, unknown>) =>
    events.push({ id: `ev-${events.length}`, timestamp: at(base, 0), type, body });
  const chat = (id: string, offset: number, question: string) => {
    const t = base + offset * 1000;
    ev('trace-create', {
      id,
      name: 'support-chat',
      userId: 'alice@example.com',
      sessionId: 'session-42',
      tags: ['support', 'beta'],
      timestamp: at(t, 0),
      input: { question },
    });
    ev('span-create', { id: `${id}-handle`, traceId: id, name: 'handle-request', startTime: at(t, 0), endTime: at(t, 3.2) });
    ev('span-create', {
      id: `${id}-search`,
      traceId: id,
      parentObservationId: `${id}-handle`,
      name: 'search-kb',
      startTime: at(t, 0.1),
      endTime: at(t, 0.7),
      input: { query: question },
      output: { hits: 3 },
    });
    ev('generation-create', {
      id: `${id}-draft`,
      traceId: id,
      parentObservationId: `${id}-handle`,
      name: 'draft-answer',
      model: 'e2e-gpt',
      startTime: at(t, 0.8),
      completionStartTime: at(t, 1.1),
      endTime: at(t, 2.4),
      input: [
        { role: 'system', content: 'You answer support questions from the knowledge base.' },
        { role: 'user', content: question },
      ],
      output: { role: 'assistant', content: 'Open Settings → Billing and choose "Download invoice".' },
      usageDetails: { input: 1200, output: 300 },
    });
    ev('generation-create', {
      id: `${id}-polish`,
      traceId: id,
      parentObservationId: `${id}-handle`,
      name: 'polish-tone',
      model: 'mystery-model',
      startTime: at(t, 2.5),
      endTime: at(t, 3.1),
      usageDetails: { input: 320, output: 60 },
    });
  };
  chat('e2e-chat-1', 0, 'How do I download an invoice?');
  chat('e2e-chat-2', 120, 'Can I change my billing email?');
  ev('trace-create', { id: 'e2e-summary', name: 'summarize', userId: 'bob@example.com', timestamp: at(base, 300) });
  ev('generation-create', {
    id: 'e2e-summary-gen',
    traceId: 'e2e-summary',
    name: 'summarize-ticket',
    model: 'e2e-gpt',
    startTime: at(base, 300),
    endTime: at(base, 301.5),
    usageDetails: { input: 800, output: 120 },
  });
  const ingest = await api(tally, 'POST', '/api/public/ingestion', { batch: events });
  expect(ingest.status).toBe(207);
  expect(ingest.body.errors).toEqual([]);
  for (const s of [
    {
      name: 'helpfulness',
      value: 0.9,
      dataType: 'NUMERIC',
      traceId: 'e2e-chat-1',
      observationId: 'e2e-chat-1-draft',
      comment: 'Direct and correct.',
    },
    { name: 'resolved', value: 1, dataType: 'BOOLEAN', traceId: 'e2e-chat-1' },
  ])
    expect((await api(tally, 'POST', '/api/public/scores', s)).status).toBe(200);
}

/** nothing wider than the phone: wide tables scroll inside their own box */
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
  tally = await makeRun();
  await seed();
});
afterAll(async () => {
  await browser?.close();
  await tally?.stop();
});

describe('the explorer in a browser, against make run', () => {
  it("goes from the dashboard's top user to their traces, a trace, and a generation in it", async () => {
    const { page, problems } = await signedIn(browser, tally);
    const users = page.getByRole('table', { name: 'Top users by cost', exact: true });
    await users.getByRole('link', { name: 'alice@example.com' }).click();
    await page.waitForURL(/#\/traces\?/);
    expect(new URL(page.url()).hash).toContain('user=alice%40example.com');

    const traces = page.getByRole('table', { name: 'Traces', exact: true });
    await expect.poll(() => traces.getByRole('row').count(), { timeout: 15_000 }).toBe(3); // header + alice's two
    expect(await traces.textContent()).not.toContain('bob@example.com');
    expect(await page.getByRole('list', { name: 'Active filters' }).textContent()).toContain('user: alice@example.com');
    const first = traces.getByRole('row').nth(1);
    expect(await first.textContent()).toContain('session-42');
    expect(await first.textContent()).toContain('$0.0048'); // 1200 × 0.000002 + 300 × 0.000008; polish-tone has no price
    await shoot(page, SHOTS, 'traces');
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });

    // the older of the two, by sorting on time ascending
    await traces.getByRole('button', { name: /^Time/ }).click();
    await page.waitForURL(/sort=timestamp\.asc/);
    await expect.poll(() => traces.getByRole('row').nth(1).getByRole('link').first().getAttribute('href')).toBe('#/traces/e2e-chat-1');
    await traces.getByRole('row').nth(1).getByRole('link', { name: 'support-chat' }).click();
    await page.waitForURL(/#\/traces\/e2e-chat-1$/);

    const tree = page.getByRole('list', { name: 'Observations', exact: true });
    await tree.getByRole('link', { name: 'handle-request' }).waitFor();
    expect(await tree.getByRole('link').allTextContents()).toEqual(['handle-request', 'search-kb', 'draft-answer', 'polish-tone']);
    // the first generation is open without asking
    const panel = page.getByRole('region', { name: 'GENERATION draft-answer', exact: true });
    await panel.waitFor();
    const lines = panel.getByRole('table', { name: 'Cost lines', exact: true });
    expect(await lines.getByRole('row', { name: /^input/ }).textContent()).toMatch(/1,200.*0\.000002.*0\.0024/);
    expect(await lines.getByRole('row', { name: /^output/ }).textContent()).toMatch(/300.*0\.000008.*0\.0024/);
    expect(await page.getByRole('region', { name: 'support-chat', exact: true }).textContent()).toContain(
      '$0.0048 · 1 observation without a price',
    );
    const scores = page.getByRole('table', { name: 'Scores of this trace', exact: true });
    await expect.poll(() => scores.textContent()).toContain('Direct and correct.');
    expect(await scores.textContent()).toContain('resolved');
    await shoot(page, SHOTS, 'trace');

    // the generation without a price: the panel says which usage has none
    await tree.getByRole('link', { name: 'polish-tone' }).click();
    await page.waitForURL(/observation=e2e-chat-1-polish/);
    const polish = page.getByRole('region', { name: 'GENERATION polish-tone', exact: true });
    await expect.poll(() => polish.textContent()).toContain('Cost status: unpriced');
    expect(await polish.textContent()).toContain('No price for: input, output');
    await page.goBack();
    await page.getByRole('region', { name: 'GENERATION draft-answer', exact: true }).waitFor();
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lists the generations without a price, and opens one in its trace', async () => {
    const { page, problems } = await signedIn(browser, tally);
    await page.getByRole('link', { name: 'Generations', exact: true }).click();
    const table = page.getByRole('table', { name: 'Generations', exact: true });
    await expect.poll(() => table.getByRole('row').count(), { timeout: 15_000 }).toBe(6); // header + 5
    await page.getByRole('checkbox', { name: 'unpriced' }).check();
    await page.waitForURL(/costStatus=unpriced/);
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    // each trace's user and session beside the generation
    await expect.poll(() => table.getByRole('row').nth(1).textContent()).toContain('alice@example.com');
    expect(await table.getByRole('row').nth(1).textContent()).toContain('session-42');
    await shoot(page, SHOTS, 'generations');

    await page.getByLabel('Model', { exact: true }).fill('e2e-gpt');
    await page.getByRole('checkbox', { name: 'unpriced' }).uncheck();
    await page.waitForURL((u) => u.hash.includes('model=e2e-gpt') && !u.hash.includes('costStatus'));
    await expect.poll(() => table.getByRole('row').count()).toBe(4);
    await table.getByRole('link', { name: 'summarize-ticket' }).click();
    await page.waitForURL(/#\/traces\/e2e-summary\?observation=e2e-summary-gen/);
    const panel = page.getByRole('region', { name: 'GENERATION summarize-ticket', exact: true });
    await expect.poll(() => panel.textContent()).toContain('Cost status: inferred');
    expect(await page.getByRole('region', { name: 'summarize', exact: true }).textContent()).toContain('bob@example.com');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('says there is no such trace', async () => {
    const { page, problems } = await signedIn(browser, tally);
    await page.goto(`${tally.url}/#/traces/not-a-trace`);
    await page.getByText('No such trace').waitFor();
    expect(problems).toEqual([]); // a 404 is an answer, not a failure
    await page.close();
  });
});
