// A real process of server/src/main.ts, on the embedded database unless `env` says otherwise,
// with everything it prints kept for the test to read.
import { spawn } from 'node:child_process';
import { freePort, waitHealthy } from '../../../bench/lib.ts';

export const ROOT = new URL('../../../', import.meta.url).pathname;

export async function boot(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, ['server/src/main.ts'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', PORT: String(port), TALLY_LLM_EGRESS: 'allowlist', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (out += b));
  await waitHealthy(`http://127.0.0.1:${port}/api/public/health`, 60_000);
  const stop = () => new Promise<void>((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); });
  return { url: `http://127.0.0.1:${port}`, output: () => out, stop };
}
