// Issue 20, item 3, as a test: a real server process (server/src/main.ts on a fresh embedded
// database) refusing 50 MB bodies, compression bombs and deeply nested JSON, 12 at a time, peaks
// (VmHWM, /proc) within 100 MB of what normal ingestion load peaks at in the same kind of process.
// The requests and the measuring are make bench's (bench/hostile-memory.ts), with smaller bombs
// (256 MB inflated; the limits they pass are 4.5 and 32 MB) and half the normal load. Each load
// runs in a fresh process, as in make bench. Run once, on the PGlite pass; make bench measures
// PostgreSQL's server process too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitHealthy } from '../../../bench/lib.ts';
import { hostileKinds, hostilePeak, normalPeak, server } from '../../../bench/hostile-memory.ts';

const dir = mkdtempSync(join(tmpdir(), 'tally-hostile-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!!process.env.DATABASE_URL)('memory while refusing hostile bodies', () => {
  it('peaks within 100 MB of the normal-load peak, and every hostile request is refused', async () => {
    const env = { DATABASE_URL: '', TALLY_DATA_DIR: dir };
    const port = await freePort();
    const first = server({ PORT: String(port), ...env }); // creates the database: not measured
    try {
      await waitHealthy(`http://127.0.0.1:${port}/api/public/health`);
    } finally {
      await first.stop();
    }
    const kinds = (await hostileKinds(256)).filter((k) => !k.apart);
    const normal = await normalPeak(port, env, 10_000);
    const hostile = await hostilePeak(port, env, kinds);
    const report = [
      `normal peak ${normal.hwm.toFixed(0)} MB, hostile peak ${hostile.hwm.toFixed(0)} MB`,
      ...hostile.lines,
      hostile.largeExport,
    ].join('\n');
    expect(hostile.ok, report).toBe(true);
    expect(hostile.hwm - normal.hwm, report).toBeLessThanOrEqual(100);
  }, 300_000);
});
