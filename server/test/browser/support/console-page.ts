// A console tab as the browser tests drive it: signed in through the form by keyboard (no cookie
// set: the keys live in the tab's sessionStorage only), failing the test on a script error, a 5xx
// or a request leaving the host; and full-page screenshots at 1280 and 390 px once every control
// on the page has a name.
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { RunningTally } from './make-run.ts';

export async function signedIn(browser: Browser, tally: RunningTally): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e}`));
  page.on('response', (r) => {
    if (r.status() >= 500) problems.push(`${r.status()} ${r.url()}`);
  });
  page.on('request', (r) => {
    if (!r.url().startsWith(tally.url) && /^https?:/.test(r.url())) problems.push(`left the host: ${r.url()}`);
  });
  await page.goto(`${tally.url}/`);
  await page.getByLabel('Public key').focus();
  await page.keyboard.type(tally.publicKey);
  await page.keyboard.press('Tab');
  await page.keyboard.type(tally.secretKey);
  await page.keyboard.press('Enter');
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
  expect(await page.context().cookies()).toEqual([]); // the keys live in this tab's sessionStorage only
  return { page, problems };
}

/** Form controls a screen reader would announce without a name (no label, aria-label or aria-labelledby). */
export async function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea, button')]
      .filter((el) => {
        const c = el as HTMLInputElement;
        if (c.type === 'hidden') return false;
        const named =
          (c.labels?.length ?? 0) > 0 ||
          c.getAttribute('aria-label') ||
          c.getAttribute('aria-labelledby') ||
          (el.tagName === 'BUTTON' && el.textContent?.trim());
        return !named;
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
}

/** `<dir><name>-1280.png` and `-390.png`: the whole page down to the end of its content (no empty viewport below) */
export async function shoot(page: Page, dir: string, name: string): Promise<void> {
  expect(await unlabelled(page), `unlabelled controls on ${name}`).toEqual([]);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(250); // layout settles after a resize
    const height = await page.evaluate(() => Math.ceil(document.querySelector('main')!.getBoundingClientRect().bottom + window.scrollY));
    await page.screenshot({ path: `${dir}${name}-${width}.png`, fullPage: true, clip: { x: 0, y: 0, width, height } });
    expect(existsSync(`${dir}${name}-${width}.png`)).toBe(true);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
