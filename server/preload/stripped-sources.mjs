// Preloaded with --import (server/node-flags): the server's TypeScript modules are loaded from a
// cache of their type-stripped text, so Node's own stripper is never loaded in the process or in a
// tokenizer thread. That stripper is swc compiled to WebAssembly, loaded once per thread that
// imports a .ts file: +17 MB RSS in the main thread and +17-19 MB in each worker (measured
// 2026-11-29 on Node 24.21: a one-line .ts import takes a bare process from 41 to 58 MB).
//
// The cache is keyed by the SHA-256 of a file's text, so an edited file can never run stale: its
// new text misses, and a miss falls back to Node's stripping (the same strip-only transform, which
// keeps every line and column, so stack traces point at the source). On the first miss in a
// process the cache is refreshed by strip-sources.mjs in a child process, once.
// Plain JavaScript on purpose: a .ts file here would load the stripper it exists to avoid.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

export const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/tally-stripped-sources/', import.meta.url));
const WRITER = fileURLToPath(new URL('./strip-sources.mjs', import.meta.url));

/** what this thread loaded from the cache and what it left to Node; read by a test */
export const counts = { served: 0, missed: 0 };
let refreshed = false;

/** the cached stripped text of `source`, or undefined */
export function cachedStrip(source, dir = CACHE_DIR) {
  try {
    return readFileSync(`${dir}${createHash('sha256').update(source).digest('hex')}.js`, 'utf8');
  } catch {
    return undefined;
  }
}

function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) return nextLoad(url, context);
  const source = readFileSync(fileURLToPath(url), 'utf8');
  let js = cachedStrip(source);
  if (js === undefined && !refreshed) {
    refreshed = true;
    try {
      execFileSync(process.execPath, [WRITER, CACHE_DIR], { stdio: 'ignore', timeout: 60_000 });
    } catch {
      // a read-only install or no room: every module is stripped by Node instead, correct but heavier
    }
    js = cachedStrip(source);
  }
  if (js === undefined) {
    counts.missed++;
    return nextLoad(url, context);
  }
  counts.served++;
  return { format: 'module', source: js, shortCircuit: true };
}

registerHooks({ load });
