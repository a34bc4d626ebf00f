// Turns JSON Schema (Ajv) errors of request validation into zod-v4-style issues, the shape
// Langfuse clients already parse: `{code, path, message}` with one entry per failing field. Shared
// by the server and the SDK's mocks (which validate request bodies as the server does), so it
// names no Ajv type: the error objects are read through the small shape below.

/** what this reads of an Ajv error object */
export interface ErrorObject {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** the accepted timestamp range, as messages say it */
export const TIMESTAMP_RANGE_TEXT = 'between 1000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z';
import type { ValidationIssue as Issue } from '../../generated/client/types.gen.ts';

function pathOf(instancePath: string): (string | number)[] {
  // instancePath looks like /requestBody/pricingTiers/0/priority or /query/limit
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const rest = parts.slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  return rest;
}

function describe(e: ErrorObject): Pick<Issue, 'code' | 'message'> {
  const p: Record<string, unknown> = e.params;
  switch (e.keyword) {
    case 'required':
      return { code: 'invalid_type', message: `Invalid input: expected "${p.missingProperty}" to be present` };
    case 'type':
      return { code: 'invalid_type', message: `Invalid input: expected ${String(p.type).replace(',', ' or ')}` };
    case 'enum':
      return {
        code: 'invalid_value',
        message: `Invalid option: expected one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join('|')}`,
      };
    case 'const':
      return { code: 'invalid_value', message: `Invalid input: expected ${JSON.stringify(p.allowedValue)}` };
    case 'minimum':
    case 'exclusiveMinimum':
      return { code: 'too_small', message: `Too small: expected number to be ${p.comparison}${p.limit}` };
    case 'maximum':
    case 'exclusiveMaximum':
      return { code: 'too_big', message: `Too big: expected number to be ${p.comparison}${p.limit}` };
    case 'minLength':
      return { code: 'too_small', message: `Too small: expected string to have >=${p.limit} characters` };
    case 'maxLength':
      return { code: 'too_big', message: `Too big: expected string to have <=${p.limit} characters` };
    case 'minItems':
      return { code: 'too_small', message: `Too small: expected array to have >=${p.limit} items` };
    case 'maxItems':
      return { code: 'too_big', message: `Too big: expected array to have <=${p.limit} items` };
    case 'format':
      if (p.format === 'date-time' || p.format === 'date') {
        return {
          code: 'invalid_format',
          message: `Invalid ${p.format}: expected ${p.format === 'date' ? 'YYYY-MM-DD' : 'RFC 3339 with Z or an offset'}, a calendar date, ${TIMESTAMP_RANGE_TEXT}`,
        };
      }
      return { code: 'invalid_format', message: `Invalid ${p.format}` };
    case 'additionalProperties':
      return { code: 'unrecognized_keys', message: `Unrecognized key: "${p.additionalProperty}"` };
    case 'oneOf':
    case 'anyOf':
      return { code: 'invalid_union', message: 'Invalid input: matches none of the allowed shapes' };
    default:
      return { code: 'custom', message: e.message ?? 'Invalid input' };
  }
}

export function issuesFromAjv(errors: ErrorObject[]): Issue[] {
  // a failed union reports every branch's errors; one issue at the union is clearer
  const unions = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf').map((e) => `${e.schemaPath}/`);
  const kept = errors.filter((e) => !unions.some((u) => e.schemaPath.startsWith(u)));
  const seen = new Set<string>();
  const issues: Issue[] = [];
  for (const e of kept) {
    const { code, message } = describe(e);
    const path = pathOf(e.instancePath);
    if (e.keyword === 'required') path.push(String(e.params.missingProperty));
    if (e.keyword === 'additionalProperties') path.push(String(e.params.additionalProperty));
    const key = JSON.stringify([code, path, message]);
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ code, path, message });
  }
  return issues;
}

/** the ingestion endpoint's envelope errors, as Langfuse writes them: `<path>: <message>` strings */
export const ingestionErrorText = (i: Issue): string => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message);

/** an operation that needs a JSON body got none (the mocks say it as the server does) */
export const BODY_REQUIRED = 'A JSON request body is required (Content-Type: application/json).';

/** the 401 without an Authorization header (the mocks say it as the server does) */
export const NO_AUTHORIZATION_HEADER =
  "No authorization header: send HTTP Basic auth with the project's public key (pk-…) as the user name and its secret key (sk-…) as the password.";
