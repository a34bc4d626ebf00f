// moved to spec/issues.ts (ingestion needs it below HTTP)
export { issuesFromAjv } from '../spec/issues.ts';
