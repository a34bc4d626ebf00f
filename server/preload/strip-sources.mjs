// Writes the type-stripped text of the server's TypeScript modules to the cache that
// stripped-sources.mjs loads them from (run by it, in a child process, when a module misses).
// Each file is stored under the SHA-256 of its TypeScript text; entries no current file has are
// removed, so the cache holds one checkout's sources. Writes go through a temporary name and a
// rename, so two servers starting at once never read half a file.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** where to write: the first argument (stripped-sources.mjs passes its own CACHE_DIR), ending in / */
const CACHE_DIR = process.argv[2];
if (!CACHE_DIR?.endsWith('/')) throw new Error('usage: node strip-sources.mjs <cache directory>/');
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** the trees the server imports from (tests excluded); a module elsewhere is stripped by Node */
const ROOTS = ['server/src', 'generated', 'shared', 'sdk'];

mkdirSync(CACHE_DIR, { recursive: true });
const keep = new Set();
const existing = new Set(readdirSync(CACHE_DIR));
const walk = (dir) => {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'test' && entry.name !== 'node_modules') walk(path);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const source = readFileSync(join(ROOT, path), 'utf8');
      const name = `${createHash('sha256').update(source).digest('hex')}.js`;
      keep.add(name);
      if (existing.has(name)) continue;
      const tmp = `${CACHE_DIR}${name}.${process.pid}.tmp`;
      writeFileSync(tmp, stripTypeScriptTypes(source));
      renameSync(tmp, CACHE_DIR + name);
    }
  }
};
for (const dir of ROOTS) walk(dir);
for (const name of existing) if (!keep.has(name)) rmSync(CACHE_DIR + name, { force: true });
