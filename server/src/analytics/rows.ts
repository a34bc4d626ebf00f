// A PostgreSQL row, as store/analytics-changes.ts reads it (numbers, maps' values and JSON
// columns as text, so costs keep every digit), made into a ClickHouse JSONEachRow row of the
// same table.
import type { ChColumn } from '../domain/analytics/tables.ts';
import { toDate } from '../store/sql.ts';

export function toClickHouseRow(columns: readonly ChColumn[], row: Record<string, unknown>, version: string): Record<string, unknown> {
  const out: Record<string, unknown> = { _version: version, _deleted: 0 };
  for (const c of columns) {
    const v = row[c.name];
    if (v === null || v === undefined) out[c.name] = c.from === 'array' ? [] : c.from === 'usageMap' || c.from === 'costMap' ? {} : null;
    else if (c.from === 'time') out[c.name] = toDate(v).toISOString();
    else out[c.name] = v;
  }
  return out;
}

/** a deleted row: its key, the change's version and the mark; every other column takes its default */
export const tombstone = (projectId: string, id: string, version: string) => ({
  project_id: projectId,
  id,
  _version: version,
  _deleted: 1,
});
