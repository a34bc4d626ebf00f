// ClickHouse refusing every insert, for the outage tests: both roads an export takes (the
// client's exec, and the embedded engine's own rawInsert) throw until the returned restore runs.
import type { Analytics } from '../../src/analytics/clickhouse.ts';

export function clickHouseDown(a: Analytics): { refused: () => number; restore: () => void } {
  const exec = a.client.exec;
  const rawInsert = a.rawInsert;
  let refused = 0;
  const down = async () => {
    refused++;
    throw new Error('ClickHouse is down (test)');
  };
  a.client.exec = down as typeof a.client.exec;
  if (rawInsert) a.rawInsert = down;
  return {
    refused: () => refused,
    restore: () => {
      a.client.exec = exec;
      a.rawInsert = rawInsert;
    },
  };
}
