// A query parameter that carries URL-encoded JSON (`filter` of the observations list, `query` of
// the metrics API): parsed, bounded (depth, unstorable text), then checked against a schema of
// the spec with issue paths that start at the parameter's name.
import type { ValidateFunction } from 'ajv';
import { invalidData, invalidRequest } from './errors.ts';
import { findTooDeep } from '../domain/json-depth.ts';
import { findUnstorableText } from '../domain/unstorable-text.ts';
import { issuesFromAjv } from '../spec/issues.ts';

export function readJsonParam(raw: unknown, name: string, validate: ValidateFunction): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(raw));
  } catch {
    throw invalidRequest(`Invalid JSON in ${name} parameter`);
  }
  const unreadable = findTooDeep(parsed, [name]) ?? findUnstorableText(parsed, [name]);
  if (unreadable) throw invalidData([unreadable]);
  // issuesFromAjv drops the first segment of an instance path (the request part it is in)
  if (!validate(parsed))
    throw invalidData(issuesFromAjv((validate.errors ?? []).map((e) => ({ ...e, instancePath: `/query/${name}${e.instancePath}` }))));
  return parsed;
}
