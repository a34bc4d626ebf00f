// The router and validators, built from the bundled spec in generated/ (never from a
// second copy of any wire shape). OpenAPI 3.1 schemas are JSON Schema 2020-12, so Ajv's
// 2020 dialect validates them; openapi-backend's own 3.0 document check is skipped.
import { readFileSync } from 'node:fs';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isDate, isTimestamp } from '../domain/time/timestamp.ts';
import { precomputeRouting } from './route-match.ts';

const addFormatsTo = addFormatsModule as unknown as (ajv: Ajv2020, opts: { mode: 'fast' | 'full' }) => Ajv2020;
// `date-time` and `date` are Tally's own (domain/time/timestamp.ts): a calendar check and the
// storable range, so every timestamp the spec accepts can be stored and read back
const addFormats = (ajv: Ajv2020) => addFormatsTo(ajv, { mode: 'fast' })
  .addFormat('date-time', { type: 'string', validate: isTimestamp })
  .addFormat('date', { type: 'string', validate: isDate });
export const SPEC_PATH = new URL('../../../generated/openapi.json', import.meta.url);

export function loadSpec(): Document {
  return JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as Document;
}

export async function createBackend(definition: Document = loadSpec()): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition,
    quick: true,
    // validation runs inside our operation wrapper, after authentication (401 before 400)
    validate: () => false,
    coerceTypes: true,
    ajvOpts: { allErrors: true, strict: false },
    customizeAjv: (_original, opts) => addFormats(new Ajv2020({ ...opts, strict: false, allErrors: true })) as never,
  });
  await api.init();
  precomputeRouting(api);
  return api;
}

/**
 * Validators for component schemas of the spec (e.g. per-event ingestion schemas, which
 * must be checked one event at a time so an invalid event never sinks its batch).
 */
export function componentValidators(definition: Document = loadSpec()) {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema({ $id: 'tally:spec', components: (definition as any).components }, 'tally:spec');
  return (name: string) => {
    const validate = ajv.getSchema(`tally:spec#/components/schemas/${name}`);
    if (!validate) throw new Error(`no schema ${name} in the spec`);
    return validate;
  };
}

/** follows local `#/...` references (the bundled spec has no others) */
export function deref(spec: any, node: any): any {
  let n = node;
  while (n && typeof n === 'object' && typeof n.$ref === 'string' && n.$ref.startsWith('#/')) {
    n = n.$ref.slice(2).split('/').reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  return n;
}

/**
 * Query parameter names each operation declares. Langfuse ignores undeclared query
 * parameters on most routes (SDKs send extras such as `useEventsTable`), so they are
 * dropped before validation unless the operation says `x-tally-strict-query: true`.
 */
export function lenientQueryNames(definition: Document = loadSpec()): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const rawItem of Object.values<any>((definition as any).paths ?? {})) {
    const item = deref(definition, rawItem);
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item?.[method];
      if (!op?.operationId || op['x-tally-strict-query']) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => deref(definition, p));
      out.set(op.operationId, new Set(params.filter((p: any) => p.in === 'query').map((p: any) => p.name)));
    }
  }
  return out;
}

/** paths of operations that answer errors in the ingestion endpoint's shape (`x-tally-error-style`) */
export function ingestionStylePaths(definition: Document = loadSpec()): Set<string> {
  const out = new Set<string>();
  for (const [path, rawItem] of Object.entries<any>((definition as any).paths ?? {})) {
    const item = deref(definition, rawItem);
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) if (item?.[method]?.['x-tally-error-style'] === 'ingestion') out.add(path);
  }
  return out;
}
