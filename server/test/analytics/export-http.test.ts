// The change feed with TALLY_CLICKHOUSE_URL=http://…: @clickhouse/client over HTTP, against a real
// server when CLICKHOUSE_TEST_URL answers, else against ClickHouse's HTTP interface served from
// the embedded engine by the test harness (support/clickhouse-http.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveClickHouseHttp } from '../support/clickhouse-http.ts';
import { exportSuite } from './export-cases.ts';

exportSuite('http', async () => {
  const real = process.env.CLICKHOUSE_TEST_URL;
  if (real) return { url: real, close: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'tally-chdb-http-'));
  const http = await serveClickHouseHttp(dir);
  return {
    url: http.url(`tally_${process.pid}`),
    close: async () => {
      await http.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
