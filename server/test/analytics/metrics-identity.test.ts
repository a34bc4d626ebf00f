// Metrics on PostgreSQL and on ClickHouse's engine embedded in the process (TALLY_CLICKHOUSE_URL=chdb:<dir>):
// the same rows for every query of the metrics suites (metrics-identity-cases.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identitySuite } from './metrics-identity-cases.ts';

identitySuite('embedded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tally-chdb-identity-'));
  return { url: `chdb:${dir}`, close: async () => rmSync(dir, { recursive: true, force: true }) };
});
