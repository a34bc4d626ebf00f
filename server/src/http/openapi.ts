// The router and validators, built from the bundled spec in generated/ (never from a
// second copy of any wire shape). OpenAPI 3.1 schemas are JSON Schema 2020-12, so Ajv's
// 2020 dialect validates them; openapi-backend's own 3.0 document check is skipped.
import { readFileSync } from 'node:fs';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormatsTo = addFormatsModule as unknown as (ajv: Ajv2020, opts: { mode: 'fast' | 'full' }) => Ajv2020;
// fast mode checks date-time shape by regex: full calendar checks cost 5% of ingestion CPU,
// and a date that parses to an invalid Date still fails when the value is used
const addFormats = (ajv: Ajv2020) => addFormatsTo(ajv, { mode: 'fast' });
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
