// Which part of server/src may import which: every relative import of every .ts file under
// server/src, checked against one table. A part is a top-level folder of server/src, or a file at
// its root (named without `.ts`); something outside server/src is named by its top-level folder in
// the repository, prefixed `../` (`../generated`). The README's "Where things live" says what
// each part holds.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const REPO = resolve(SRC, '../..');

/** each part and the parts it may import besides itself, from the bottom up */
const MAY_IMPORT: Record<string, string[]> = {
  // the pure core: nothing of the project but the types generated from the spec and the rules
  // it shares with the SDK (shared/)
  domain: ['../generated', '../shared'],
  logger: [],
  config: ['domain'],
  db: [],
  store: ['domain', 'db', '../generated'],
  // the bundled spec and validators for its schemas (the router and ingestion's event checks);
  // the issues' wording is shared with the SDK's mocks (shared/validation)
  spec: ['domain', '../generated', '../shared'],
  // where Tally may connect, and the fetch that only connects there
  egress: ['domain'],
  // the tokenizer worker threads
  threads: ['domain'],
  // per-process caches over the store
  caches: ['domain', 'store'],
  // the key for connection secrets, and their re-encryption
  secrets: ['domain', 'store', 'config', 'logger'],
  // one module per LLM provider
  adapters: ['domain', 'egress'],
  // the analytics store (ClickHouse): its connection, schema migrations and rows
  analytics: ['domain', 'db', 'store', 'logger'],
  // the `Services` type handed to handlers, ingestion, LLM calls and background work
  'app-context': ['domain', 'store', 'caches', 'threads'],
  ingestion: ['domain', 'store', 'threads', 'app-context', 'spec', '../generated'],
  // calls through stored connections, and the judge (which records its own call through ingestion)
  llm: ['domain', 'store', 'adapters', 'ingestion', 'app-context'],
  // work beside requests: the evaluation worker, event-id pruning, the exporter, reprice jobs (which
  // price through ingestion's pricing, the one home of how a generation is priced), alerts (whose
  // webhooks go out through the egress policy, as LLM calls do)
  background: ['domain', 'db', 'store', 'llm', 'ingestion', 'logger', 'app-context', 'analytics', 'egress'],
  // the top of the server: anything below it
  http: [
    'domain',
    'logger',
    'config',
    'db',
    'store',
    'spec',
    'egress',
    'threads',
    'caches',
    'secrets',
    'adapters',
    'app-context',
    'ingestion',
    'llm',
    'background',
    '../generated',
    '../console',
    '../node_modules',
  ],
  // entry points and the start-up that assembles the parts
  bootstrap: ['domain', 'logger', 'config', 'store'],
  server: [
    'domain',
    'logger',
    'config',
    'db',
    'store',
    'spec',
    'egress',
    'threads',
    'caches',
    'secrets',
    'adapters',
    'app-context',
    'ingestion',
    'llm',
    'background',
    'analytics',
    'http',
    'bootstrap',
    '../package.json',
  ],
  main: ['logger', 'config', 'db', 'server', 'analytics'],
  cli: ['domain', 'logger', 'config', 'db', 'store', 'secrets'],
  mock: ['http', 'spec', '../sdk', '../generated'],
};

interface Edge {
  from: string;
  to: string;
  fromPart: string;
  toPart: string;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const posix = (p: string) => p.split(sep).join('/');

function partOf(abs: string): string {
  const inSrc = posix(relative(SRC, abs));
  if (!inSrc.startsWith('../')) {
    const [first, ...rest] = inSrc.split('/');
    return rest.length ? first! : first!.replace(/\.ts$/, '');
  }
  return `../${posix(relative(REPO, abs)).split('/')[0]}`;
}

// static and type imports, re-exports, side-effect and dynamic imports, and files started by
// path (`new URL('./x.ts', import.meta.url)`, a worker thread's entry)
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\bnew URL\(\s*)(['"])(\.{1,2}\/[^'"\n]*)\1/g;

function importsOf(source: string): string[] {
  // comment lines may quote an import without making one
  const code = source
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\/\*|\*)/.test(l))
    .join('\n');
  return [...code.matchAll(SPECIFIER)].map((m) => m[2]!);
}

function edges(): Edge[] {
  return tsFiles(SRC).flatMap((file) =>
    importsOf(readFileSync(file, 'utf8')).map((spec) => {
      const target = resolve(dirname(file), spec);
      return { from: posix(relative(SRC, file)), to: posix(relative(SRC, target)), fromPart: partOf(file), toPart: partOf(target) };
    }),
  );
}

/** the imports of `all` the table does not allow, as "from → to (part may import: …)" */
function violations(all: Edge[]): string[] {
  return all
    .filter((e) => e.fromPart !== e.toPart && !(MAY_IMPORT[e.fromPart] ?? []).includes(e.toPart))
    .map((e) => `${e.from} → ${e.to} (${e.fromPart} may import: ${(MAY_IMPORT[e.fromPart] ?? []).join(', ') || 'nothing else'})`);
}

describe('layering of server/src', () => {
  const all = edges();

  it('reads the imports it is meant to check', () => {
    expect(all.length).toBeGreaterThan(300);
    // a worker thread started by path counts as an import
    expect(all).toContainEqual(expect.objectContaining({ from: 'threads/tokenizer-pool.ts', to: 'threads/tokenizer-worker.ts' }));
    expect(all).toContainEqual(expect.objectContaining({ from: 'http/app.ts', toPart: 'app-context' }));
  });

  it('places every part of server/src in the table, and only those', () => {
    const parts = new Set(tsFiles(SRC).map(partOf));
    expect(
      [...parts].filter((p) => !(p in MAY_IMPORT)),
      'parts missing from MAY_IMPORT',
    ).toEqual([]);
    expect(
      Object.keys(MAY_IMPORT).filter((p) => !parts.has(p)),
      'MAY_IMPORT names parts that do not exist',
    ).toEqual([]);
  });

  it('has a bottom and a top: no part may import, even indirectly, one that may import it', () => {
    const cycles: string[] = [];
    const done = new Set<string>();
    const visit = (part: string, path: string[]) => {
      if (done.has(part)) return;
      for (const next of MAY_IMPORT[part] ?? []) {
        if (path.includes(next)) cycles.push([...path.slice(path.indexOf(next)), next].join(' → '));
        else visit(next, [...path, next]);
      }
      done.add(part);
    };
    for (const part of Object.keys(MAY_IMPORT)) visit(part, [part]);
    expect(cycles).toEqual([]);
  });

  it('has no import the table does not allow', () => {
    expect(violations(all)).toEqual([]);
  });

  it('refuses an import upwards (domain → http)', () => {
    const upwards: Edge = { from: 'domain/usage/normalise.ts', to: 'http/errors.ts', fromPart: 'domain', toPart: 'http' };
    expect(violations([upwards])).toEqual(['domain/usage/normalise.ts → http/errors.ts (domain may import: ../generated, ../shared)']);
    expect(importsOf("import { x } from '../http/errors.ts';\n// from '../http/y.ts'\nconst w = await import('../z.ts');")).toEqual([
      '../http/errors.ts',
      '../z.ts',
    ]);
  });
});
