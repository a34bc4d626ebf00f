// Small helpers shared by the benchmarks: child servers, timing, percentiles.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const ROOT = new URL('..', import.meta.url).pathname;

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function waitHealthy(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no healthy answer from ${url} within ${timeoutMs} ms`);
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

export interface Child { proc: ChildProcess; stop(): Promise<void> }

export function startChild(script: string, env: Record<string, string>): Child {
  const proc = spawn(process.execPath, [script], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  proc.stdout!.resume();
  return {
    proc,
    stop: () => new Promise<void>((resolve) => { if (proc.exitCode !== null) return resolve(); proc.once('exit', () => resolve()); proc.kill('SIGTERM'); }),
  };
}

export async function timeRequests(n: number, fn: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

export const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
