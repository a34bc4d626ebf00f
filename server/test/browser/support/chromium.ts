// The browser the browser tests drive: Debian's Chromium (CHROMIUM_PATH, else /usr/bin/chromium)
// through playwright-core, headless. No sandbox: the tests may run as root, where Chromium will not
// start with one; no background networking, so the requests a page makes are the page's own.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export async function launchChromium(): Promise<Browser> {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path))
    throw new Error(`No chromium at ${path}: run \`make browser-test\` (it installs Debian's chromium) or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath: path, args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'] });
}
