// Produces generated/ from openapi/: the bundled spec (one JSON document the server,
// mock and conformance suite load), the hey-api typed fetch client and types (generated/client),
// and the class-based client the SDK package wraps (generated/sdk-client).
// `--check` generates into a temporary folder and fails when generated/ differs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, readdirSync, readFileSync, statSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createClient } from '@hey-api/openapi-ts';

const root = new URL('..', import.meta.url).pathname;
const check = process.argv.includes('--check');
const out = check ? mkdtempSync(join(tmpdir(), 'tally-gen-')) : join(root, 'generated');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

function run(cmd: string, args: string[]) {
  execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
}

if (!check) rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
run(bin('redocly'), ['bundle', 'openapi/openapi.yaml', '--output', join(out, 'openapi.json'), '--ext', 'json']);
await createClient({
  input: join(out, 'openapi.json'),
  // .ts extensions so Node 24 runs the client directly (type stripping, no build step)
  output: { path: join(out, 'client'), importFileExtension: '.ts' },
  plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
  logs: { level: 'silent' },
});
// The SDK package's client (sdk/): the same operations grouped into one instantiable class,
// `new TallySdk({ client }).models.list()`, from the operationIds (`models_list` → models.list);
// the metrics query gets the name users know instead of the version in its id (metrics_v2).
const sdkMethodNames: Record<string, string> = { v2: 'query', v2Schema: 'querySchema' };
await createClient({
  input: join(out, 'openapi.json'),
  output: { path: join(out, 'sdk-client'), importFileExtension: '.ts' },
  plugins: [
    // provider-SDK style: a non-2xx throws (TallyApiError, sdk/src/errors.ts); `throwOnError: false`
    // on a call returns { data, error } instead, and the types follow either way
    { name: '@hey-api/client-fetch', throwOnError: true },
    '@hey-api/typescript',
    {
      name: '@hey-api/sdk',
      operations: {
        strategy: 'single',
        containerName: 'TallySdk',
        methods: 'instance',
        nesting: 'operationId',
        nestingDelimiters: /[._]/,
        methodName: (name: string) => sdkMethodNames[name] ?? name,
      },
    },
  ],
  logs: { level: 'silent' },
});

if (check) {
  const files = (dir: string): string[] =>
    existsSync(dir)
      ? readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]))
      : [];
  const fresh = files(out).map((f) => relative(out, f)).sort();
  const committed = files(join(root, 'generated')).map((f) => relative(join(root, 'generated'), f)).sort();
  const stale = [...new Set([...fresh, ...committed])].filter((f) => {
    const a = join(out, f);
    const b = join(root, 'generated', f);
    return !existsSync(a) || !existsSync(b) || !readFileSync(a).equals(readFileSync(b));
  });
  rmSync(out, { recursive: true, force: true });
  if (stale.length) {
    console.error(`generated/ is stale (run \`make generate\` and commit): ${stale.join(', ')}`);
    process.exit(1);
  }
  console.log('generated/ is up to date with openapi/');
}
