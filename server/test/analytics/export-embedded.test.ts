// The change feed with TALLY_CLICKHOUSE_URL=chdb:<dir>: ClickHouse's engine in this process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSuite } from './export-cases.ts';

exportSuite('embedded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tally-chdb-'));
  return { url: `chdb:${dir}`, close: async () => rmSync(dir, { recursive: true, force: true }) };
});
