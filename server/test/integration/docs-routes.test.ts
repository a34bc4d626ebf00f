// /api/public/openapi.json and /docs are plain routes in front of the spec's router:
// unauthenticated, read-only, and the reference's assets come from this server.
import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';

const baseUrl = inject('baseUrl');
const bundled = JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8'));

describe('the spec and the reference', () => {
  it('serves the bundled spec at /api/public/openapi.json without credentials', async () => {
    const res = await fetch(`${baseUrl}/api/public/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(bundled);
  });

  it('serves /docs: a page loading the reference bundle from this server, pointed at the spec', async () => {
    const res = await fetch(`${baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(['/docs/assets/standalone.js']);
    expect(html).toContain('"url":"/api/public/openapi.json"');
    expect(html).not.toMatch(/https?:\/\//);
    const asset = await fetch(`${baseUrl}/docs/assets/standalone.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });

  it('answers only reads, and a missing asset is a 404', async () => {
    expect((await fetch(`${baseUrl}/docs/assets/nope.js`)).status).toBe(404);
    expect((await fetch(`${baseUrl}/api/public/openapi.json`, { method: 'POST' })).status).toBeGreaterThanOrEqual(400);
    expect((await fetch(`${baseUrl}/docs`, { method: 'DELETE' })).status).toBe(404);
  });
});
