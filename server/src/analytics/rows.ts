// A deleted row as the exporter sends it: its key, the change's version and the mark; every
// other column takes its default (ReplacingMergeTree with FINAL drops the row).
export const tombstone = (projectId: string, id: string, version: string) => ({
  project_id: projectId,
  id,
  _version: Number(version),
  _deleted: 1,
});
