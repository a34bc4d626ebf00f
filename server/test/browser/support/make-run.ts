// Starts Tally exactly as a person does, `make run`, on a fresh embedded database in a temporary
// directory, and stops the whole process group afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunningTally {
  url: string;
  publicKey: string;
  secretKey: string;
  output: () => string;
  stop: () => Promise<void>;
}

const REPO = new URL('../../../../', import.meta.url).pathname;

export async function makeRun(env: Record<string, string> = {}): Promise<RunningTally> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-make-run-'));
  const publicKey = 'pk-lf-e2e-console';
  const secretKey = 'sk-lf-e2e-console-secret';
  let out = '';
  const child: ChildProcess = spawn('make', ['--no-print-directory', 'run'], {
    cwd: REPO,
    detached: true, // its own process group: make, and the node it starts, stop together
    env: {
      ...process.env,
      DATABASE_URL: '',
      PORT: '0',
      TALLY_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      TALLY_INIT_PUBLIC_KEY: publicKey,
      TALLY_INIT_SECRET_KEY: secretKey,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`make run did not start within 90 s:\n${out}`)), 90_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*Tally is listening|Tally is listening[^\n]*"url":"(http:\/\/[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] ?? m[2]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`make run exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    publicKey,
    secretKey,
    output: () => out,
    async stop() {
      const running = () => child.exitCode === null && child.signalCode === null;
      const signal = (s: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, s);
        } catch {
          /* already gone */
        }
      };
      if (running()) {
        const exited = new Promise((r) => child.once('exit', r));
        signal('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (running()) signal('SIGKILL');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
