// The Models page as a person uses it, against `make run` on a fresh embedded database: the
// managed list and one project model a page of 25 at a time, in the server's order, and the search
// box finding a definition by a model name as one sends it (its match pattern matches the name, as
// the server matches it) rather than by text. Screenshots at 1280 and 390 px wide in
// scratch/browser/models/ (git-ignored). Run by `make browser-test`.
import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.ts';
import { shoot, signedIn } from './support/console-page.ts';
import { makeRun, type RunningTally } from './support/make-run.ts';
import { api } from './support/tally-api.ts';

const SHOTS = new URL('../../../scratch/browser/models/', import.meta.url).pathname;
const PAGE_SIZE = 25; // the console's page (console/src/pages/models/ModelTable.tsx)

let tally: RunningTally;
let browser: Browser;

/** the project's fine-tune, as the spec's models_list example has it */
const FINE_TUNE = {
  modelName: 'acme-ft-gpt-4o-mini',
  matchPattern: '(?i)^(ft:gpt-4o-mini-2024-07-18:acme(:.*)?)$',
  unit: 'TOKENS',
  inputPrice: 0.0000003,
  outputPrice: 0.0000012,
};

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
  tally = await makeRun();
  const created = await api(tally, 'POST', '/api/public/models', FINE_TUNE);
  expect(created.status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await tally?.stop();
});

/** the row headers of the models table, as shown (a pattern match carries " matches") */
const rowNames = async (table: Locator) => (await table.getByRole('rowheader').allTextContents()).map((t) => t.trim());
/** the model names of one page of GET /api/public/models */
const apiPage = async (page: number, limit: number) =>
  ((await api(tally, 'GET', `/api/public/models?page=${page}&limit=${limit}`)).body.data as { modelName: string }[]).map(
    (m) => m.modelName,
  );
/** the definition the server prices `model` with */
async function pricedWith(model: string): Promise<string | undefined> {
  const explained = await api(tally, 'POST', '/api/public/models/explain', { model, usageDetails: { input: 1000, output: 100 } });
  return explained.body.model?.modelName;
}

async function search(page: Page, text: string) {
  await page.getByLabel('Search models').fill(text);
}

describe('the Models page in a browser, against make run', () => {
  it("pages through every definition in the server's order, 25 at a time", async () => {
    const { page, problems } = await signedIn(browser, tally);
    const listed = await api(tally, 'GET', '/api/public/models?page=1&limit=1');
    const total: number = listed.body.meta.totalItems;
    const pages = Math.ceil(total / PAGE_SIZE);
    expect(pages).toBeGreaterThan(2); // the managed list alone is well over two pages

    await page.getByRole('link', { name: 'Models' }).click();
    const table = page.getByRole('table', { name: 'Models', exact: true });
    await expect.poll(() => table.getByRole('rowheader').count(), { timeout: 15_000 }).toBe(PAGE_SIZE);
    expect(await page.getByText(`${total} models (${total - 1} managed, 1 project)`).count()).toBe(1);
    // one pager above the table and one below, both at the same page
    const pager = page.getByRole('navigation', { name: 'Model pages' }).first();
    expect(await page.getByRole('navigation', { name: 'Model pages' }).count()).toBe(2);
    expect(await pager.getByRole('status').textContent()).toBe(`Page 1 of ${pages}`);
    expect(await pager.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
    expect(await rowNames(table)).toEqual(await apiPage(1, PAGE_SIZE));

    await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => pager.getByRole('status').textContent()).toBe(`Page 2 of ${pages}`);
    expect(await rowNames(table)).toEqual(await apiPage(2, PAGE_SIZE));
    await shoot(page, SHOTS, 'page-2');

    for (let p = 3; p <= pages; p++) await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => pager.getByRole('status').textContent()).toBe(`Page ${pages} of ${pages}`);
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    const last = await rowNames(table);
    expect(last).toHaveLength(total - (pages - 1) * PAGE_SIZE);
    expect(last).toEqual(await apiPage(pages, PAGE_SIZE));

    await pager.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => pager.getByRole('status').textContent()).toBe(`Page ${pages - 1} of ${pages}`);
    expect(await rowNames(table)).toEqual(await apiPage(pages - 1, PAGE_SIZE));
    expect(problems).toEqual([]);
    await page.close();
  });

  it('finds the definition whose pattern matches a model name as one sends it, the one the server prices it with', async () => {
    const { page, problems } = await signedIn(browser, tally);
    await page.getByRole('link', { name: 'Models' }).click();
    const table = page.getByRole('table', { name: 'Models', exact: true });
    await expect.poll(() => table.getByRole('rowheader').count(), { timeout: 15_000 }).toBe(PAGE_SIZE);
    const total: number = (await api(tally, 'GET', '/api/public/models?page=1&limit=1')).body.meta.totalItems;
    // a search from a later page starts at its first
    const pager = page.getByRole('navigation', { name: 'Model pages' }).first();
    await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => pager.getByRole('status').textContent()).toMatch(/^Page 2 of/);

    // neither a definition's name nor its pattern contains the dated name as text: only a pattern finds it
    const claude = 'claude-3-5-sonnet-20241022';
    expect(await pricedWith(claude)).toBe('claude-3-5-sonnet');
    await search(page, claude);
    await expect.poll(() => rowNames(table)).toEqual(['claude-3-5-sonnet matches']);
    expect(await page.getByRole('navigation', { name: 'Model pages' }).count()).toBe(0);
    expect(await page.getByText(`1 of ${total} models`).count()).toBe(1);
    const row = table.getByRole('row').nth(1);
    expect(await row.textContent()).toContain('Managed');
    expect(await row.textContent()).toContain('(?i)^(anthropic/)?((claude-3-5-sonnet');
    // as the server matches: case-insensitively, with a provider prefix
    await search(page, `ANTHROPIC/${claude.toUpperCase()}`);
    await expect.poll(() => rowNames(table)).toEqual(['claude-3-5-sonnet matches']);
    expect(await pricedWith(`ANTHROPIC/${claude.toUpperCase()}`)).toBe('claude-3-5-sonnet');
    await search(page, claude);
    await shoot(page, SHOTS, 'search-by-pattern');

    // a fine-tune's name: the project model's pattern and the managed ft:gpt-4o-mini both match,
    // marked in list order; the server prices it with one of them
    const fineTune = 'ft:gpt-4o-mini-2024-07-18:acme:support:AbC123';
    await search(page, fineTune);
    await expect.poll(() => rowNames(table)).toEqual(['acme-ft-gpt-4o-mini matches', 'ft:gpt-4o-mini matches']);
    expect(['acme-ft-gpt-4o-mini', 'ft:gpt-4o-mini']).toContain(await pricedWith(fineTune));
    expect(await table.getByRole('row').nth(1).textContent()).toContain('Project');

    // a bare name: its own definition by pattern first, then the names and patterns containing it
    await search(page, 'gpt-4o-mini');
    await expect.poll(async () => (await rowNames(table))[0]).toBe('gpt-4o-mini matches');
    const byText = (await rowNames(table)).slice(1);
    expect(byText).toContain('acme-ft-gpt-4o-mini');
    expect(byText.every((name) => name.includes('gpt-4o-mini') && !name.endsWith(' matches'))).toBe(true);
    expect(await page.getByText(`${byText.length + 1} of ${total} models`).count()).toBe(1);

    // a name nothing prices: said so, and clearing the box brings every page back
    await search(page, 'no-such-model-anywhere');
    expect(await page.getByText('No model matches “no-such-model-anywhere”').count()).toBe(1);
    expect(await pricedWith('no-such-model-anywhere')).toBeUndefined();
    await search(page, '');
    await expect.poll(() => table.getByRole('rowheader').count()).toBe(PAGE_SIZE);
    expect(await pager.getByRole('status').textContent()).toBe(`Page 1 of ${Math.ceil(total / PAGE_SIZE)}`);
    expect(problems).toEqual([]);
    await page.close();
  });
});
