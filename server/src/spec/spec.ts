// The bundled spec in generated/ and validators for its component schemas: the one source of
// every wire shape, read by the HTTP router (http/openapi.ts) and by ingestion's per-event checks.
// OpenAPI 3.1 schemas are JSON Schema 2020-12, so Ajv's 2020 dialect validates them.
import { readFileSync } from 'node:fs';
import type { Document } from 'openapi-backend';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isDate, isTimestamp } from '../domain/time/timestamp.ts';

const addFormatsTo = addFormatsModule as unknown as (ajv: Ajv2020, opts: { mode: 'fast' | 'full' }) => Ajv2020;
// `date-time` and `date` are Tally's own (domain/time/timestamp.ts): a calendar check and the
// storable range, so every timestamp the spec accepts can be stored and read back
export const addFormats = (ajv: Ajv2020) =>
  addFormatsTo(ajv, { mode: 'fast' })
    .addFormat('date-time', { type: 'string', validate: isTimestamp })
    .addFormat('date', { type: 'string', validate: isDate });
export const SPEC_PATH = new URL('../../../generated/openapi.json', import.meta.url);

export function loadSpec(): Document {
  return JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as Document;
}

/**
 * Validators for component schemas of the spec (e.g. per-event ingestion schemas, which
 * must be checked one event at a time so an invalid event never sinks its batch).
 */
export function componentValidators(definition: Document = loadSpec()) {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema({ $id: 'tally:spec', components: definition.components }, 'tally:spec');
  return (name: string) => {
    const validate = ajv.getSchema(`tally:spec#/components/schemas/${name}`);
    if (!validate) throw new Error(`no schema ${name} in the spec`);
    return validate;
  };
}

/** a spec node that stands for another one, elsewhere in the spec */
export interface Reference {
  $ref: string;
}

const isLocalReference = (n: unknown): n is Reference =>
  typeof n === 'object' && n !== null && '$ref' in n && typeof n.$ref === 'string' && n.$ref.startsWith('#/');

/** one step of a JSON pointer: the member `key` of `node` (undefined below a missing node) */
const member = (node: unknown, key: string): unknown => (node as Record<string, unknown> | null | undefined)?.[key];

/**
 * follows local `#/...` references (the bundled spec has no others). What a reference points to
 * is taken to be the node it stands for (`T`, e.g. a path item for a path item's reference): the
 * spec is checked when it is bundled, not here.
 */
export function deref<T>(spec: unknown, node: T | Reference): T {
  let n: unknown = node;
  while (isLocalReference(n)) {
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((o, k) => member(o, k.replace(/~1/g, '/').replace(/~0/g, '~')), spec);
  }
  return n as T;
}
