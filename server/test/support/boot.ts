// A real process of server/src/main.ts, started as make run starts it (server/node-flags, server/node-env), on the
// embedded database unless `env` says otherwise, with everything it prints kept for the test to read.
import { spawn } from 'node:child_process';
import { freePort, SERVER_NODE_FLAGS, serverEnv, waitHealthy } from '../../../bench/lib.ts';

export const ROOT = new URL('../../../', import.meta.url).pathname;

export async function boot(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'server/src/main.ts'], {
    cwd: ROOT,
    env: { ...serverEnv(), ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', PORT: String(port), TALLY_LLM_EGRESS: 'allowlist', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (out += b));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  // a process that exits while starting fails the boot at once, with what it printed
  await Promise.race([
    waitHealthy(`http://127.0.0.1:${port}/api/public/health`, 60_000),
    exited.then(() => {
      throw new Error(`the server exited while starting (${child.exitCode ?? child.signalCode}): ${out.slice(-2000)}`);
    }),
  ]);
  const stop = () => {
    child.kill('SIGTERM');
    return exited;
  };
  return { url: `http://127.0.0.1:${port}`, output: () => out, stop, exited, kill: (signal: NodeJS.Signals) => child.kill(signal) };
}
