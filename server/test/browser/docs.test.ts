// The reference a person reads: /docs in headless Chromium (Debian's, driven by playwright-core)
// renders every operation of the spec from the server's own /api/public/openapi.json, with no
// request leaving the host, and leaves a screenshot in scratch/ (git-ignored).
// Run by `make docs-test`, which installs chromium when it is missing.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startTestServer, type TestServer } from '../support/start.ts';
import { launchChromium } from './support/chromium.ts';

const SCREENSHOT_DIR = new URL('../../../scratch/browser/', import.meta.url);
const spec = JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8'));
const operations: Array<{ operationId: string; summary: string }> = [];
for (const item of Object.values<any>(spec.paths)) {
  for (const op of Object.values<any>(item))
    if (op?.operationId) operations.push({ operationId: op.operationId, summary: op.summary ?? op.operationId });
}
// compared without markdown code marks and with whitespace collapsed
const normalise = (s: string) => s.replace(/`/g, '').replace(/\s+/g, ' ').trim();

let test: TestServer;
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
  test = await startTestServer();
});
afterAll(async () => {
  await browser?.close();
  await test?.server.close();
});

describe('/docs in a browser', () => {
  it('renders every operation from the local spec and assets, nothing fetched from elsewhere', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const origin = new URL(test.server.url).origin;
    const elsewhere: string[] = [];
    const failed: string[] = [];
    page.on('request', (r) => {
      if (/^https?:/.test(r.url()) && new URL(r.url()).origin !== origin) elsewhere.push(r.url());
    });
    page.on('requestfailed', (r) => {
      if (r.url().startsWith(origin)) failed.push(r.url());
    });
    page.on('response', (r) => {
      if (r.url().startsWith(origin) && r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));

    const res = await page.goto(`${test.server.url}/docs`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    await page.getByText(normalise(operations[0]!.summary)).first().waitFor({ timeout: 20_000 });

    // each operation is a section whose heading is its summary; sections render as they
    // scroll into view, so scroll down until every heading is there
    const missing = async () => {
      const headings = new Set((await page.locator('h1, h2, h3, h4, [role="heading"]').allInnerTexts()).map(normalise));
      return operations.filter((o) => !headings.has(normalise(o.summary)));
    };
    let left = await missing();
    for (let i = 0; i < 120 && left.length > 0; i++) {
      await page.mouse.wheel(0, 3000);
      await page.waitForTimeout(50);
      left = await missing();
    }
    expect(left.map((o) => o.operationId)).toEqual([]);
    expect(failed).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);

    await page.evaluate(() => window.scrollTo(0, 0));
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const path = new URL('docs.png', SCREENSHOT_DIR).pathname;
    await page.screenshot({ path });
    expect(existsSync(path)).toBe(true);
  });

  it('"try it" calls the origin that served /docs: the spec names a relative server', async () => {
    const page = await browser.newPage();
    await page.goto(`${test.server.url}/docs`, { waitUntil: 'load' });
    const answer = await page.evaluate(async () => {
      const spec = await (await fetch('/api/public/openapi.json')).json();
      const server = new URL(spec.servers[0].url, location.href);
      const health = await fetch(new URL('api/public/health', server));
      return { origin: server.origin, here: location.origin, status: health.status };
    });
    expect(answer.origin).toBe(answer.here);
    expect(answer.status).toBe(200);
    await page.close();
  });

  it('a page on another origin calls the API with its own keys: Chromium sends the preflight and accepts the answer', async () => {
    // another origin: a page served from another port
    const other: Server = createServer((_req, res) => res.end('<!doctype html><title>another app</title>'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    const page = await browser.newPage();
    try {
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      const result = await page.evaluate(
        async ({ api, authorization }) => {
          const ok = await fetch(`${api}/api/public/models?limit=1`, { headers: { authorization } });
          const denied = await fetch(`${api}/api/public/models?limit=1`, { headers: { authorization: 'Basic eDp5' } });
          return {
            status: ok.status,
            items: ((await ok.json()) as { data: unknown[] }).data.length,
            requestId: ok.headers.get('x-request-id'),
            deniedStatus: denied.status,
            deniedMessage: ((await denied.json()) as { message: string }).message,
          };
        },
        { api: test.server.url, authorization: basic(test.projectA) },
      );
      expect(result.status).toBe(200);
      expect(result.items).toBe(1);
      expect(result.requestId).toBeTruthy(); // exposed to the page
      expect(result.deniedStatus).toBe(401);
      expect(result.deniedMessage).toMatch(/^Invalid credentials/);
    } finally {
      await page.close();
      other.close();
    }
  });
});
