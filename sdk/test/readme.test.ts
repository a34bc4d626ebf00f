// The SDK README's examples: each ```ts block of sdk/README.md is found, line for line, in
// readme-examples.ts (which the repo's typecheck compiles), and each example there runs against the
// msw mocks (@tally/sdk/mocks) and returns what the spec's default examples say.
import { readFileSync } from 'node:fs';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Tally } from '../index.ts';
import { createHandlers } from '../mocks/index.ts';
import { examples } from './readme-examples.ts';

const baseUrl = 'http://readme.mock.invalid';
const server = setupServer(...createHandlers({ baseUrl }));
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const source = lines(readFileSync(new URL('./readme-examples.ts', import.meta.url), 'utf8')).join('\n');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('the SDK README', () => {
  it('has a worked example for each group, every block compiled from readme-examples.ts', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(Object.keys(examples).length);
    // the mocks' setup block is what this test itself does
    for (const block of blocks.filter((b) => !b.includes('setupServer'))) {
      // the setup line of the first block is the test's own
      const body = lines(block).filter((l) => !l.startsWith('import ') && !l.startsWith('const tally = new Tally('));
      expect(source, `README block:\n${block}`).toContain(body.join('\n'));
    }
  });

  const tally = new Tally({ baseUrl, publicKey: 'pk-lf-readme', secretKey: 'sk-lf-readme', maxRetries: 0 });
  vi.spyOn(console, 'log').mockImplementation(() => {});
  for (const [group, run] of Object.entries(examples)) {
    it(`runs the ${group} example against the mocks`, async () => {
      const result = await run(tally);
      expect(result).toBeDefined();
    });
  }

  it('the metrics example answers the typed rows of the spec example', async () => {
    const rows = (await examples.metrics!(tally)) as Record<string, unknown>[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toHaveProperty('sum_totalCost');
  });

  it('the ingestion example acknowledges both events', async () => {
    expect(await examples.ingestion!(tally)).toEqual({ acknowledged: 2, dropped: 0, pending: 0 });
  });
});
