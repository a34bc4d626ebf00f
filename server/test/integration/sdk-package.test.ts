// The SDK as a user gets it: `make sdk`'s script builds and packs sdk/dist/tally-sdk-<version>.tgz,
// the tarball is npm-installed (offline: it has no dependencies) into an empty project, and a
// plain .mjs script imports @tally/sdk and calls the suite's server, on Node 20 (/usr/bin/node),
// Node 22 (`make node22`: .toolchain/node22, skipped when absent) and the toolchain's Node 24: no
// TypeScript on the user's side. The installed package also bundles for the browser (rolldown,
// the bundler vitest's vite ships) with no Node built-in in it. `@tally/sdk/mocks` with msw 3.0.5
// (npm-installed, from the cache when it can; else the repo's own msw linked in) answers the
// spec's default example with no server, on the Node versions msw's engines allow (>= 22.12).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'rolldown';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listOperations, pickExample } from '../../../sdk/mocks/examples.ts';

const root = new URL('../../../', import.meta.url).pathname;
const NODE20 = '/usr/bin/node';
const NODE22 = join(root, '.toolchain', 'node22', 'bin', 'node');
const majorOf = (node: string) =>
  existsSync(node) ? execFileSync(node, ['-p', 'process.versions.node.split(".")[0]']).toString().trim() : '';
const node20Major = majorOf(NODE20);
const node22Major = majorOf(NODE22);
const NODES = [
  ['Node 20 (/usr/bin/node)', NODE20, node20Major === '20', '20'],
  ['Node 22 (.toolchain/node22)', NODE22, node22Major === '22', '22'],
  ['Node 24 (the toolchain)', process.execPath, true, process.versions.node.split('.')[0]!],
] as const;

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
const { data: health } = await tally.health.check();
const [counted] = await tally.metrics.query({ view: 'observations', metrics: [], fromTimestamp: '2000-01-01T00:00:00Z', toTimestamp: '2100-01-01T00:00:00Z' });
const batcher = tally.ingestion.batcher({ flushIntervalMs: 50 });
batcher.add({ id: 'sdk-pkg-' + process.versions.node + '-' + Date.now(), timestamp: new Date().toISOString(), type: 'trace-create', body: { name: 'sdk-package' } });
await batcher.shutdown();
console.log(JSON.stringify({ node: process.versions.node, firstPage: first.data.length, totalItems: first.meta.totalItems, iterated: ids.length, unique: new Set(ids).size, notFound, health: health.status, count: counted.count, batched: batcher.stats }));
`;

// the mocks as a frontend test uses them: msw intercepts fetch, the SDK calls a host that does not exist
const mocksScript = `
import { setupServer } from 'msw/node';
import { createHandlers, handlers, mockedOperations } from '@tally/sdk/mocks';
import { Tally } from '@tally/sdk';
const server = setupServer(...createHandlers({ baseUrl: 'http://tally.mock.invalid' }));
server.listen({ onUnhandledFrame: 'error' });
const tally = new Tally({ baseUrl: 'http://tally.mock.invalid', publicKey: 'pk-lf-mock', secretKey: 'sk-lf-mock', maxRetries: 0 });
const { data: models } = await tally.models.list();
server.close();
console.log(JSON.stringify({ node: process.versions.node, models, handlers: handlers.length, operations: mockedOperations().map((o) => o.operationId) }));
`;

let project: string;
let mswFrom: 'npm' | 'link' = 'npm';

beforeAll(() => {
  const tarball = execFileSync(process.execPath, [join(root, 'sdk', 'build.ts')], { cwd: root, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()!;
  expect(tarball).toMatch(/sdk\/dist\/tally-sdk-\d+\.\d+\.\d+\.tgz$/);
  project = mkdtempSync(join(tmpdir(), 'tally-sdk-user-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
  writeFileSync(join(project, 'main.mjs'), script);
  writeFileSync(join(project, 'mocks.mjs'), mocksScript);
  const npm = join(dirname(process.execPath), 'npm');
  const npmInstall = (...args: string[]) =>
    execFileSync(existsSync(npm) ? npm : 'npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...args], {
      cwd: project,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 90_000,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  npmInstall('--offline', tarball);
  // msw (the optional peer of @tally/sdk/mocks): from npm's cache when it can, else the repo's own
  try {
    npmInstall('--prefer-offline', '--fetch-retries=0', '--fetch-timeout=20000', 'msw@3.0.5');
  } catch {
    mswFrom = 'link';
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    symlinkSync(join(root, 'node_modules', 'msw'), join(project, 'node_modules', 'msw'), 'dir');
  }
}, 240_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

function runWith(node: string) {
  const { publicKey, secretKey } = inject('projectA');
  const out = execFileSync(node, ['main.mjs', inject('baseUrl'), publicKey, secretKey], {
    cwd: project,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out.trim().split('\n').pop()!) as {
    node: string;
    firstPage: number;
    totalItems: number;
    iterated: number;
    unique: number;
    notFound: { api: boolean; status: number; requestId: boolean } | null;
    health: string;
    count: number;
    batched: { acknowledged: number; dropped: number; pending: number };
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

  it('ships @tally/sdk/mocks with the bundled spec, msw an optional peer the main entry never imports', () => {
    const dir = join(project, 'node_modules', '@tally', 'sdk');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.exports['./mocks']).toMatchObject({ types: './dist/sdk/mocks/index.d.ts', import: './dist/sdk/mocks/index.js' });
    // ajv and ajv-formats: the mocks check request bodies as the server does when they are there
    expect(pkg.peerDependencies).toEqual({ msw: expect.any(String), ajv: expect.any(String), 'ajv-formats': expect.any(String) });
    expect(pkg.peerDependenciesMeta).toEqual({ msw: { optional: true }, ajv: { optional: true }, 'ajv-formats': { optional: true } });
    expect(existsSync(join(dir, 'dist', 'sdk', 'mocks', 'index.d.ts'))).toBe(true);
    const shipped = readFileSync(join(dir, 'dist', 'generated', 'openapi.json'), 'utf8');
    expect(JSON.parse(shipped)).toEqual(JSON.parse(readFileSync(join(root, 'generated', 'openapi.json'), 'utf8')));
    expect(readFileSync(join(dir, 'dist', 'sdk', 'mocks', 'index.js'), 'utf8')).toMatch(
      /from '\.\.\/\.\.\/generated\/openapi\.json' with \{ type: 'json' \}/,
    );
  });

  it('bundles for a browser without any Node built-in', async () => {
    const entry = join(project, 'entry.mjs');
    writeFileSync(entry, "export { Tally, TallyApiError, TallyNetworkError, paginate } from '@tally/sdk';\n");
    const out = await build({ input: entry, cwd: project, platform: 'browser', write: false, logLevel: 'warn', output: { format: 'esm' } });
    const code = out.output.map((chunk) => ('code' in chunk ? chunk.code : '')).join('\n');
    expect(code).toMatch(/TallyApiError/);
    expect(code).not.toMatch(/from\s*["']node:|require\(|\bBuffer\b|process\.env/);
    expect(code).not.toMatch(/["']msw["']/);
    expect(out.output.flatMap((chunk) => ('exports' in chunk ? chunk.exports : []))).toEqual(
      expect.arrayContaining(['Tally', 'TallyApiError', 'TallyNetworkError', 'paginate']),
    );
  });

  for (const [label, node, available, major] of NODES) {
    it.skipIf(!available)(`lists models, iterates every page, gets typed errors, queries metrics and batches events on ${label}`, () => {
      const result = runWith(node);
      expect(result.node.split('.')[0]).toBe(major);
      expect(result.health).toBe('OK');
      expect(result.totalItems).toBeGreaterThan(0);
      expect(result.firstPage).toBe(Math.min(5, result.totalItems));
      expect(result.iterated).toBeGreaterThanOrEqual(result.firstPage);
      expect(result.unique).toBe(result.iterated);
      expect(result.notFound).toEqual({ api: true, status: 404, requestId: true });
      // the readable layer: metrics.query(q) answers rows, ingestion.batcher() sends through the client
      expect(typeof result.count).toBe('number');
      expect(result.batched).toEqual({ acknowledged: 1, dropped: 0, pending: 0 });
    });
  }

  it.skipIf(node20Major !== '20')('@tally/sdk/mocks says at import that Node 20 is too old for msw 3', () => {
    let stderr = '';
    try {
      execFileSync(NODE20, ['mocks.mjs'], { cwd: project, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      stderr = String((e as { stderr?: string }).stderr);
    }
    expect(stderr).toMatch(/@tally\/sdk\/mocks needs msw 3, which needs Node >= 22\.12 .* Node 20\.\d+\.\d+ is too old/);
  });

  // msw 3's engines: node >= 22.12 (on Node 20 it fails: no Promise.withResolvers)
  for (const [label, node, available, major] of NODES) {
    it.skipIf(!available || Number(major) < 22)(`@tally/sdk/mocks answers the spec's default example through msw on ${label}`, () => {
      const out = execFileSync(node, ['mocks.mjs'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
      const result = JSON.parse(out.trim().split('\n').pop()!) as { node: string; models: unknown; handlers: number; operations: string[] };
      expect(result.node.split('.')[0]).toBe(major);
      const msw = JSON.parse(readFileSync(join(project, 'node_modules', 'msw', 'package.json'), 'utf8'));
      expect(msw.version, `msw (${mswFrom === 'npm' ? 'npm-installed' : "linked from the repo's node_modules"})`).toBe('3.0.5');
      const spec = JSON.parse(readFileSync(join(root, 'generated', 'openapi.json'), 'utf8'));
      const operations = listOperations(spec);
      const modelsList = operations.find((o) => o.operationId === 'models_list')!;
      expect(result.models).toEqual(pickExample(modelsList.operation).body);
      expect(result.handlers).toBe(operations.length);
      expect(result.operations.sort()).toEqual(operations.map((o) => o.operationId).sort());
    });
  }
});
