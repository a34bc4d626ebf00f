// Small helpers shared by the benchmarks: child servers, timing, percentiles.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
    } catch {
      /* not listening yet */
    }
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

export interface Child {
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** the words of one of server/'s start-up files (comments dropped), or of `override` when it is set */
const startupWords = (file: string, override: string | undefined) =>
  (
    override ??
    readFileSync(`${ROOT}server/${file}`, 'utf8')
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join(' ')
  )
    .split(/\s+/)
    .filter(Boolean);

/** the V8 flags `make run` starts the server with (server/node-flags); BENCH_SERVER_NODE_FLAGS replaces them (an A/B run) */
export const SERVER_NODE_FLAGS = startupWords('node-flags', process.env.BENCH_SERVER_NODE_FLAGS);

/**
 * The variables `make run` starts the server with (server/node-env), each unless the environment
 * sets it; BENCH_SERVER_ENV replaces the file (`''` for none: an A/B run)
 */
export function serverEnv(): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const kv of startupWords('node-env', process.env.BENCH_SERVER_ENV)) {
    const at = kv.indexOf('=');
    const key = kv.slice(0, at);
    if (process.env[key] === undefined) vars[key] = kv.slice(at + 1);
  }
  return vars;
}

export function startChild(script: string, env: Record<string, string>): Child {
  const server = script === 'server/src/main.ts';
  const proc = spawn(process.execPath, [...(server ? SERVER_NODE_FLAGS : []), script], {
    cwd: ROOT,
    env: { ...(server ? serverEnv() : {}), ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (process.env.BENCH_CHILD_STDOUT) proc.stdout!.pipe(process.stderr);
  else proc.stdout!.resume();
  return {
    proc,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
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

/** one statement through psql, its unaligned output trimmed (stops on the first error) */
export function psql(url: string, sql: string): string {
  return execFileSync('psql', [url, '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 2 ** 28,
  }).trim();
}

/** a process's resident memory now and at its peak, in MB (from /proc) */
export function memory(pid: number): { hwm: number; rss: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? NaN);
  return { hwm: kb('VmHWM') / 1024, rss: kb('VmRSS') / 1024 };
}

/** user+system CPU seconds of these processes (all their threads), from /proc */
/** the server's connections to the database of `url` (pool connections live as long as the server) */
export function pgBackendPids(url: string): number[] {
  const out = psql(
    url,
    `select coalesce(string_agg(pid::text, ','), '') from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
  );
  return out ? out.split(',').map(Number) : [];
}

export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15 of the line)
    } catch {
      /* gone */
    }
  }
  return ticks / 100;
}
