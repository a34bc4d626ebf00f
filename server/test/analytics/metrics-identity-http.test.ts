// Metrics on PostgreSQL and on ClickHouse over HTTP (@clickhouse/client, its query parameters sent
// as param_<name>): against CLICKHOUSE_TEST_URL when set, else ClickHouse's HTTP interface served
// from the embedded engine by the test harness (support/clickhouse-http.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveClickHouseHttp } from '../support/clickhouse-http.ts';
import { identitySuite } from './metrics-identity-cases.ts';

identitySuite('http', async () => {
  const real = process.env.CLICKHOUSE_TEST_URL;
  if (real) return { url: real, close: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'tally-chdb-identity-http-'));
  const http = await serveClickHouseHttp(dir);
  return {
    url: http.url(`tally_identity_${process.pid}`),
    close: async () => {
      await http.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
