// The console's static routes: index at `/` with a CSP that lets it call only its own origin,
// hashed assets cached for good, and a page that says how to build it when it is not built.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRouter } from '../../src/http/console.ts';

const built = `${mkdtempSync(join(tmpdir(), 'tally-console-'))}/`;
mkdirSync(`${built}assets`);
writeFileSync(
  `${built}index.html`,
  '<!doctype html><title>Tally console</title><script type="module" src="/assets/index-abc.js"></script>',
);
writeFileSync(`${built}assets/index-abc.js`, 'console.log(1)');
const unbuilt = `${mkdtempSync(join(tmpdir(), 'tally-console-empty-'))}/`;

const servers: Server[] = [];
async function serve(dist: string): Promise<string> {
  const app = express();
  app.use(consoleRouter(dist));
  app.use((_req, res) => res.status(404).json({ message: 'fell through' }));
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
let base: string;
let baseUnbuilt: string;
beforeAll(async () => {
  base = await serve(built);
  baseUnbuilt = await serve(unbuilt);
});
afterAll(() => {
  for (const s of servers) s.close();
});

describe('the console routes', () => {
  it('serves the built index at / with a same-origin CSP, no framing and no caching', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('Tally console');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('serves hashed assets as immutable, and a missing asset falls through to the API 404', async () => {
    const res = await fetch(`${base}/assets/index-abc.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toContain('immutable');
    const missing = await fetch(`${base}/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: 'fell through' });
  });

  it('says how to build the console when console/dist is missing', async () => {
    const res = await fetch(`${baseUnbuilt}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('make console');
  });

  it('does not answer other methods or paths', async () => {
    expect((await fetch(`${base}/`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${base}/`, { method: 'OPTIONS' })).status).toBe(404);
    expect((await fetch(`${base}/`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${base}/index.html.bak`)).status).toBe(404);
  });
});
