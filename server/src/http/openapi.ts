// The router, built from the bundled spec in generated/ (spec/spec.ts; never from a second copy
// of any wire shape). openapi-backend's own 3.0 document check is skipped: the spec is 3.1.
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { addFormats, deref, loadSpec } from '../spec/spec.ts';
import { precomputeRouting } from './route-match.ts';

export { componentValidators, deref, loadSpec, SPEC_PATH } from '../spec/spec.ts';

/** the few fields of the spec these walks read */
interface Parameter {
  in: string;
  name: string;
}
interface SpecOperation {
  operationId?: string;
  parameters?: unknown[];
  [extension: `x-tally-${string}`]: unknown;
}
type PathItem = { parameters?: unknown[] } & Partial<Record<string, SpecOperation>>;
const pathsOf = (definition: Document) => (definition.paths ?? {}) as Record<string, unknown>;

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
 * Query parameter names each operation declares. Langfuse ignores undeclared query
 * parameters on most routes (SDKs send extras such as `useEventsTable`), so they are
 * dropped before validation unless the operation says `x-tally-strict-query: true`.
 */
export function lenientQueryNames(definition: Document = loadSpec()): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const rawItem of Object.values(pathsOf(definition))) {
    const item = deref(definition, rawItem) as PathItem | undefined;
    if (!item) continue;
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item?.[method];
      if (!op?.operationId || op['x-tally-strict-query']) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(definition, p) as Parameter);
      out.set(op.operationId, new Set(params.filter((p) => p.in === 'query').map((p) => p.name)));
    }
  }
  return out;
}

/** paths of operations that answer errors in the ingestion endpoint's shape (`x-tally-error-style`) */
export function ingestionStylePaths(definition: Document = loadSpec()): Set<string> {
  const out = new Set<string>();
  for (const [path, rawItem] of Object.entries(pathsOf(definition))) {
    const item = deref(definition, rawItem) as PathItem | undefined;
    for (const method of ['get', 'put', 'post', 'delete', 'patch'])
      if (item?.[method]?.['x-tally-error-style'] === 'ingestion') out.add(path);
  }
  return out;
}
