// The SDK as a user gets it: `make sdk`'s script builds and packs sdk/dist/tally-sdk-<version>.tgz,
// the tarball is npm-installed (offline: it has no dependencies) into an empty project, and a
// plain .mjs script imports @tally/sdk and calls the suite's server, on Node 20 (/usr/bin/node)
// and on the toolchain's Node 24: no TypeScript on the user's side. The installed package also
// bundles for the browser (rolldown, the bundler vitest's vite ships) with no Node built-in in it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'rolldown';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const root = new URL('../../../', import.meta.url).pathname;
const NODE20 = '/usr/bin/node';
const node20Major = existsSync(NODE20) ? execFileSync(NODE20, ['-p', 'process.versions.node.split(".")[0]']).toString().trim() : '';

const script = `
import { Tally, TallyApiError } from '@tally/sdk';
const [baseUrl, publicKey, secretKey] = process.argv.slice(2);
const tally = new Tally({ baseUrl, publicKey, secretKey });
const { data: first } = await tally.models.list({ query: { limit: 5 } });
const ids = [];
for await (const model of tally.models.iterate({ query: { limit: 7 } })) ids.push(model.id);
let notFound = null;
try {
  await tally.models.get({ path: { id: 'no-such-model-' + Date.now() } });
} catch (error) {
  notFound = { api: error instanceof TallyApiError, status: error.status, requestId: typeof error.requestId === 'string' && error.requestId.length > 0 };
}
const { data: health } = await tally.health.health();
console.log(JSON.stringify({ node: process.versions.node, firstPage: first.data.length, totalItems: first.meta.totalItems, iterated: ids.length, unique: new Set(ids).size, notFound, health: health.status }));
`;

let project: string;

beforeAll(() => {
  const tarball = execFileSync(process.execPath, [join(root, 'sdk', 'build.ts')], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop()!;
  expect(tarball).toMatch(/sdk\/dist\/tally-sdk-\d+\.\d+\.\d+\.tgz$/);
  project = mkdtempSync(join(tmpdir(), 'tally-sdk-user-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
  writeFileSync(join(project, 'main.mjs'), script);
  const npm = join(dirname(process.execPath), 'npm');
  execFileSync(existsSync(npm) ? npm : 'npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], {
    cwd: project,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}, 120_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

function runWith(node: string) {
  const { publicKey, secretKey } = inject('projectA');
  const out = execFileSync(node, ['main.mjs', inject('baseUrl'), publicKey, secretKey], { cwd: project, encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(out.trim().split('\n').pop()!) as {
    node: string;
    firstPage: number;
    totalItems: number;
    iterated: number;
    unique: number;
    notFound: { api: boolean; status: number; requestId: boolean } | null;
    health: string;
  };
}

describe('the packed SDK in an empty project', () => {
  it('ships compiled JavaScript and types only, with no dependencies, for Node >= 20', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules', '@tally', 'sdk', 'package.json'), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.engines.node).toBe('>=20');
    expect(existsSync(join(project, 'node_modules', '@tally', 'sdk', 'dist', 'sdk', 'index.js'))).toBe(true);
    expect(existsSync(join(project, 'node_modules', '@tally', 'sdk', 'dist', 'sdk', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(project, 'node_modules', '@tally', 'sdk', 'index.ts'))).toBe(false);
  });

  it('bundles for a browser without any Node built-in', async () => {
    const entry = join(project, 'entry.mjs');
    writeFileSync(entry, "export { Tally, TallyApiError, TallyNetworkError, paginate } from '@tally/sdk';\n");
    const out = await build({ input: entry, cwd: project, platform: 'browser', write: false, logLevel: 'warn', output: { format: 'esm' } });
    const code = out.output.map((chunk) => ('code' in chunk ? chunk.code : '')).join('\n');
    expect(code).toMatch(/TallyApiError/);
    expect(code).not.toMatch(/from\s*["']node:|require\(|\bBuffer\b|process\.env/);
    expect(out.output.map((chunk) => ('exports' in chunk ? chunk.exports : [])).flat()).toEqual(
      expect.arrayContaining(['Tally', 'TallyApiError', 'TallyNetworkError', 'paginate']),
    );
  });

  for (const [label, node, available] of [
    ['Node 20 (/usr/bin/node)', NODE20, node20Major === '20'],
    ['Node 24 (the toolchain)', process.execPath, true],
  ] as const) {
    it.skipIf(!available)(`lists models, iterates every page and gets typed errors on ${label}`, () => {
      const result = runWith(node);
      expect(result.node.split('.')[0]).toBe(node === NODE20 ? '20' : process.versions.node.split('.')[0]);
      expect(result.health).toBe('OK');
      expect(result.totalItems).toBeGreaterThan(0);
      expect(result.firstPage).toBe(Math.min(5, result.totalItems));
      expect(result.iterated).toBeGreaterThanOrEqual(result.firstPage);
      expect(result.unique).toBe(result.iterated);
      expect(result.notFound).toEqual({ api: true, status: 404, requestId: true });
    });
  }
});
