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

/** the packages among HEAVY loaded (CommonJS, as all of them are) once `then` has run after importing the server */
function loadedAfter(then: string): string[] {
  const serverUrl = new URL('../../src/server.ts', import.meta.url).href;
  const adaptersUrl = new URL('../../src/adapters/index.ts', import.meta.url).href;
  const script = `
    import { createRequire } from 'node:module';
    await import(${JSON.stringify(serverUrl)});
    const { loadAdapter } = await import(${JSON.stringify(adaptersUrl)});
    ${then}
    const heavy = ${JSON.stringify(HEAVY)};
    const files = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify(heavy.filter((p) => files.some((f) => f.includes('/node_modules/' + p + '/')))));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, timeout: 30_000, encoding: 'utf8' }),
  );
}

describe('modules loaded when first needed', () => {
  it('the server loads no provider SDK, no undici and no ClickHouse client until it uses them', () => {
    expect(loadedAfter('')).toEqual([]);
  }, 40_000);

  it('a connection calling its adapter loads that provider SDK', () => {
    expect(loadedAfter(`if (typeof (await loadAdapter('openai')) !== 'function') throw new Error('no adapter');`)).toEqual(['openai']);
    expect(loadedAfter(`if ((await loadAdapter('nope')) !== undefined) throw new Error('an adapter for nope');`)).toEqual([]);
  }, 60_000);
});
