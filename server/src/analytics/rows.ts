// A deleted row as the exporter sends it: its key, the change's version and the mark; every
// other column takes its default (ReplacingMergeTree with FINAL drops the row).
export const tombstone = (projectId: string, id: string, version: string) => ({
  project_id: projectId,
  id,
  _version: Number(version),
  _deleted: 1,
});

/** a time as ClickHouse reads a DateTime64 (a query parameter or an inserted value): it refuses ISO 8601's T and Z */
export const chTime = (t: Date | number) => (typeof t === 'number' ? new Date(t) : t).toISOString().replace('T', ' ').replace('Z', '');
