// `make sdk`: compiles sdk/ (and generated/client, which it wraps) with tsc into sdk/dist/,
// then `npm pack`s the package into sdk/dist/tally-sdk-<version>.tgz. Prints the tarball's path.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const sdk = new URL('.', import.meta.url).pathname;
const root = join(sdk, '..');
const dist = join(sdk, 'dist');
const pkg = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as { name: string; version: string };

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(sdk, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});
const npm = join(process.execPath, '..', process.platform === 'win32' ? 'npm.cmd' : 'npm');
execFileSync(existsSync(npm) ? npm : 'npm', ['pack', '--silent', '--pack-destination', dist], {
  cwd: sdk,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, npm_config_update_notifier: 'false' },
});
const tarball = join(dist, `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`);
if (!existsSync(tarball)) throw new Error(`npm pack did not write ${tarball}`);
console.log(tarball);
