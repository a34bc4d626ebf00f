// The heavy SDKs an instance may never use stay unloaded until it does: the six providers' SDKs,
// undici (the egress fetch) and @clickhouse/client together cost an idle server ~40 MB of RSS
// (issue 28). Loading the server's module graph must not pull them in; calling through an adapter
// must (so the lazy path is the real one).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const HEAVY = [
  'openai',
  '@anthropic-ai/sdk',
  '@anthropic-ai/vertex-sdk',
  '@google/genai',
  'google-auth-library',
  '@aws-sdk/client-bedrock-runtime',
  'undici',
  '@clickhouse/client',
];

/**
 * the packages among HEAVY loaded once `then` has run after importing the server. Every module
 * resolved is recorded by a resolve hook, imported or required alike: some of these packages load
 * as ES modules (@google/genai, @anthropic-ai/sdk), which the require cache never lists.
 */
function loadedAfter(then: string): string[] {
  const serverUrl = new URL('../../src/server.ts', import.meta.url).href;
  const adaptersUrl = new URL('../../src/adapters/index.ts', import.meta.url).href;
  const script = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r; } });
    await import(${JSON.stringify(serverUrl)});
    const { loadAdapter } = await import(${JSON.stringify(adaptersUrl)});
    ${then}
    const heavy = ${JSON.stringify(HEAVY)};
    console.log(JSON.stringify(heavy.filter((p) => [...seen].some((u) => u.includes('/node_modules/' + p + '/')))));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, timeout: 30_000, encoding: 'utf8' }),
  );
}

describe('modules loaded when first needed', () => {
  it('the server loads no provider SDK, no undici and no ClickHouse client until it uses them', () => {
    expect(loadedAfter('')).toEqual([]);
  }, 40_000);

  it('a connection calling its adapter loads that provider SDK', () => {
    // the openai adapter's own module loads the SDK; undici waits for the first request
    expect(loadedAfter(`if (typeof (await loadAdapter('openai')) !== 'function') throw new Error('no adapter');`)).toEqual(['openai']);
    expect(loadedAfter(`if (typeof (await loadAdapter('anthropic')) !== 'function') throw new Error('no adapter');`)).toEqual([
      '@anthropic-ai/sdk',
    ]);
    expect(loadedAfter(`if ((await loadAdapter('nope')) !== undefined) throw new Error('an adapter for nope');`)).toEqual([]);
  }, 60_000);
});
