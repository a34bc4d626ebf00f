// moved to domain/json-depth.ts (ingestion checks depth below HTTP)
export { findTooDeep, MAX_JSON_DEPTH } from '../domain/json-depth.ts';
