// Request bodies checked as the server checks them: the operation's body schema from the spec
// (Ajv's 2020 dialect with formats, as the server), the issues in the server's words
// (shared/validation/issues.ts) and the 400 in the operation's error style. `make mock` and the
// msw handlers both answer a bad body with it. Ajv is an optional peer of @tally/sdk/mocks (the
// SDK itself has no dependencies): without it bodies are not checked, and the mocks say so once.
import { BODY_REQUIRED, type ErrorObject, ingestionErrorText, issuesFromAjv } from '../../shared/validation/issues.ts';
import type { ValidationIssue } from '../../generated/client/types.gen.ts';
import type { MockAnswer, SpecOperationEntry } from './examples.ts';

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
interface Compiler {
  compile(schema: object): Validate;
}

const compilers = new WeakMap<object, Promise<Compiler | null>>();
let warned = false;

async function compilerFor(spec: object): Promise<Compiler | null> {
  let c = compilers.get(spec);
  if (!c) {
    c = (async () => {
      try {
        const [{ Ajv2020 }, formats] = await Promise.all([import('ajv/dist/2020.js'), import('ajv-formats')]);
        const ajv = new Ajv2020({ strict: false, allErrors: true });
        const addFormats = ((formats as { default?: unknown }).default ?? formats) as (a: unknown) => unknown;
        addFormats(ajv);
        ajv.addSchema({ ...spec, $id: 'tally-spec' });
        return ajv as unknown as Compiler;
      } catch {
        if (!warned) {
          warned = true;
          console.warn(
            '@tally/sdk/mocks: request bodies are not checked against the spec: install ajv and ajv-formats to have them checked as the server does',
          );
        }
        return null;
      }
    })();
    compilers.set(spec, c);
  }
  return c;
}

const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const validators = new WeakMap<object, Map<string, Validate>>();

/** the 400 the server answers for these issues, in the operation's error style */
export function invalidBodyAnswer(entry: SpecOperationEntry, issues: ValidationIssue[]): MockAnswer {
  const style = entry.operation['x-tally-error-style'];
  const body =
    style === 'unstable'
      ? { message: 'Invalid request body', code: 'invalid_body', details: { issues } }
      : style === 'ingestion'
        ? { message: 'Invalid request data', errors: issues.map(ingestionErrorText) }
        : { message: 'Invalid request data', error: issues };
  return { status: 400, body, contentType: 'application/json' };
}

/**
 * null when the body is fine (or cannot be checked here); else the server's 400. `body` is the
 * parsed JSON, undefined when the request had none.
 */
export async function checkBody(spec: object, entry: SpecOperationEntry, sent: unknown): Promise<MockAnswer | null> {
  let body = sent;
  const requestBody = entry.operation.requestBody as { required?: boolean; content?: Record<string, unknown> } | undefined;
  const depth = entry.operation['x-tally-validate'];
  // the OTLP endpoint decodes its own bytes; ingestion checks its envelope here and each event in its 207
  if (!requestBody?.content?.['application/json'] || depth === 'none') return null;
  if (depth === 'envelope' && body && typeof body === 'object' && Array.isArray((body as { batch?: unknown }).batch))
    body = { ...(body as object), batch: [] };
  if (body === undefined)
    return requestBody.required ? invalidBodyAnswer(entry, [{ code: 'invalid_type', path: [], message: BODY_REQUIRED }]) : null;
  const compiler = await compilerFor(spec);
  if (!compiler) return null;
  const byOperation = validators.get(spec) ?? new Map<string, Validate>();
  validators.set(spec, byOperation);
  let validate = byOperation.get(entry.operationId);
  if (!validate) {
    validate = compiler.compile({
      $ref: `tally-spec#/paths/${pointer(entry.path)}/${entry.method}/requestBody/content/application~1json/schema`,
    });
    byOperation.set(entry.operationId, validate);
  }
  if (validate(body)) return null;
  // the server validates `{requestBody: …}`: its paths start there
  const errors = (validate.errors ?? []).map((e) => ({ ...e, instancePath: `/requestBody${e.instancePath}` }));
  return invalidBodyAnswer(entry, issuesFromAjv(errors));
}
