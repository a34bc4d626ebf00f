// The HTTP shell: Express for parsing and transport, openapi-backend for routing and
// validation against the spec, and one wrapper that every operation goes through.
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Context, OpenAPIBackend } from 'openapi-backend';
import type { Database } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../app-context.ts';
import { AuthzError, authenticate, publicKeyOf } from './auth.ts';
import { type ExpressError, ApiError, invalidData, isUnstablePath, toUnstableBody, unstableError } from './errors.ts';
import type { AnyHandler, HandlerContext, HandlerRegistry } from './handler.ts';
import { createBackend, ingestionStylePaths, lenientQueryNames } from './openapi.ts';
import { consoleRouter } from './console.ts';
import { publicApiCors } from './cors.ts';
import { docsRouter } from './docs.ts';
import { findTooDeep, MAX_JSON_DEPTH } from './json-depth.ts';
import { jsonBody } from './body.ts';
import { OTEL_TRACES_PATH, otelBodyParser } from './handlers/otel.ts';
import { pathProblem } from './request-path.ts';
import { findUnstorableText, holdsNonFiniteNumber } from '../domain/unstorable-text.ts';
import { issuesFromAjv } from './validation-issues.ts';
import { BODY_REQUIRED, ingestionErrorText } from '../spec/issues.ts';

// set on a request whose raw JSON body has an escape PostgreSQL may not store, or bytes that are not UTF-8
const UNSTORABLE = Symbol('mayHoldUnstorableText');
/** what this app hangs on a request: its logger (with the request id) and the body's text mark */
type TallyRequest = Request & { log?: Logger; [UNSTORABLE]?: boolean };
const tallyReq = (req: Request) => req as TallyRequest;
/** an operation's `x-tally-*` extensions in the spec */
const extension = (c: Context, name: string): unknown => (c.operation as unknown as Record<string, unknown>)[`x-tally-${name}`];

export const BODY_LIMIT_BYTES = 4.5 * 1024 * 1024;

export interface AppOptions {
  db: Database;
  log: Logger;
  services: Services;
  handlers: HandlerRegistry;
  /** check every response against the spec; a mismatch becomes a 500 (tests turn this on) */
  validateResponses?: boolean;
}

function send(res: Response, status: number, body: unknown, headers: Record<string, string> = {}) {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  if (Buffer.isBuffer(body))
    res.status(status).send(body); // e.g. an OTLP protobuf answer, its content-type in `headers`
  else res.status(status).json(body);
}

async function sendEvents(
  res: Response,
  headers: Record<string, string> = {},
  stream: (send: (event: string, data: unknown) => void) => Promise<void>,
  log: Logger,
) {
  res.status(200);
  for (const [k, v] of Object.entries({
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    ...headers,
  }))
    res.setHeader(k, v);
  res.flushHeaders();
  try {
    await stream((event, data) => {
      if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    });
  } catch (e) {
    log.error({ err: e }, 'event stream failed');
    if (!res.writableEnded)
      res.write(`event: error\ndata: ${JSON.stringify({ message: 'Internal Server Error', error: 'An unknown error occurred' })}\n\n`);
  }
  res.end();
}

/**
 * Ajv with allErrors reports every failing branch of every item: a body of thousands of wrong
 * items in a union (a 40 KB `filter: [0, 0, …]`) yields an error list whose spreading overflows
 * the stack. Such a request is refused as too big rather than answered with a 500.
 */
function validateOrRefuse<T>(validate: () => T): T {
  try {
    return validate();
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return {
      valid: false,
      errors: [
        {
          instancePath: '/requestBody',
          schemaPath: '#',
          keyword: 'maxItems',
          params: {},
          message: 'has too many invalid values to report; send fewer items',
        },
      ],
    } as T;
  }
}

/** the request with its batch emptied, for operations whose items the handler validates one by one */
function withoutItems(request: Context['request']): Context['request'] {
  const body = request.requestBody as { batch?: unknown } | undefined;
  if (!body || typeof body !== 'object' || !Array.isArray(body.batch)) return request;
  const envelope = { ...body, batch: [] };
  return { ...request, body: envelope, requestBody: envelope }; // the validator re-parses `body`
}

export async function createApp(opts: AppOptions): Promise<{ app: express.Express; api: OpenAPIBackend }> {
  const { db, log, services } = opts;
  const api = await createBackend();
  const lenient = lenientQueryNames();
  const ingestionPaths = ingestionStylePaths();

  const wrap = (operationId: string, fn: AnyHandler) => async (c: Context, req: Request, res: Response) => {
    const rlog = tallyReq(req).log!;
    let status = 500;
    let body: unknown;
    let headers: Record<string, string> | undefined;
    let stream: ((send: (event: string, data: unknown) => void) => Promise<void>) | undefined;
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const ingestionStyle = extension(c, 'error-style') === 'ingestion';
    const unstableStyle = extension(c, 'error-style') === 'unstable';
    const envelopeOnly = extension(c, 'validate') === 'envelope';
    // the handler decodes and checks the body itself (the OTLP endpoint's raw bytes)
    const rawBody = extension(c, 'validate') === 'none';
    try {
      const em = db.em();
      const secured = (c.operation.security ?? []).some((s) => Object.keys(s).length > 0);
      const projectId = secured
        ? await authenticate(req.headers.authorization, em, rlog, {
            bearerPublicKey: extension(c, 'bearer-public-key') === true,
          })
        : null;
      // before schema validation: nothing below walks a value of unbounded depth
      const tooDeep = envelopeOnly || rawBody ? null : findTooDeep(c.request.requestBody);
      if (tooDeep) throw invalidData([tooDeep]);
      const declared = lenient.get(operationId);
      if (declared) for (const k of Object.keys(c.request.query)) if (!declared.has(k)) delete c.request.query[k];
      const v = rawBody
        ? { valid: true, errors: [] }
        : validateOrRefuse(() => api.validator.validateRequest(envelopeOnly ? withoutItems(c.request) : c.request, c.operation));
      if (!v.valid) {
        const issues = issuesFromAjv(v.errors ?? []).map((i) =>
          // the body as a whole is missing: say why (the JSON parser reads only a JSON content type)
          i.code === 'invalid_type' && i.path.join('.') === 'requestBody' ? { ...i, path: [], message: missingBodyMessage(req) } : i,
        );
        // the ingestion endpoint reports envelope problems as `errors: [strings]`, as Langfuse does
        if (ingestionStyle)
          throw new ApiError(400, 'Invalid request data', undefined, {
            errors: issues.map(ingestionErrorText),
          });
        // the unstable endpoints tell query (path parameters included) from body problems
        if (unstableStyle) {
          const inBody = (v.errors ?? []).every((e) => e.instancePath.startsWith('/requestBody'));
          throw unstableError(
            400,
            inBody ? 'invalid_body' : 'invalid_query',
            inBody ? 'Invalid request body' : 'Invalid query parameters',
            { issues },
          );
        }
        throw invalidData(issues);
      }
      // query values always (a few strings); the body only when its raw text has a suspect escape
      // or it parsed to a number beyond a double
      const mayHoldUnstorable = tallyReq(req)[UNSTORABLE] === true || (!rawBody && holdsNonFiniteNumber(c.request.requestBody));
      const textIssue =
        findUnstorableText(c.request.query) ?? (mayHoldUnstorable && !envelopeOnly ? findUnstorableText(c.request.requestBody) : null);
      if (textIssue) throw invalidData([textIssue]);
      ({ status, body, headers, stream } = await fn({
        projectId,
        publicKey: projectId ? publicKeyOf(req.headers.authorization) : null,
        em,
        body: c.request.requestBody,
        // the router matched the operation's path, so each of its path parameters is there
        params: c.request.params as HandlerContext['params'],
        query: c.request.query,
        log: rlog,
        services,
        mayHoldUnstorableText: mayHoldUnstorable,
        signal: gone.signal,
      }));
    } catch (e) {
      if (e instanceof ApiError) ({ status, body } = e);
      else if (e instanceof AuthzError)
        ({ status, body } = { status: 403, body: { message: 'Access denied - insufficient permissions for this endpoint' } });
      else {
        rlog.error({ err: e, operationId }, 'unhandled error');
        ({ status, body } = { status: 500, body: { message: 'Internal Server Error', error: 'An unknown error occurred' } });
      }
      if (ingestionStyle && status === 401) body = { error: 'UnauthorizedError', message: (body as { message: string }).message };
      if (unstableStyle) body = toUnstableBody(status, body as { message: string });
    }
    if (stream) return sendEvents(res, headers, stream, rlog);
    if (opts.validateResponses && !Buffer.isBuffer(body)) {
      const check = api.validateResponse(body, c.operation, status);
      if (!check.valid) {
        rlog.error({ operationId, status, errors: check.errors }, 'response does not match the spec');
        return send(res, 500, {
          message: `Response of ${operationId} (${status}) does not match the spec`,
          error: issuesFromAjv(check.errors ?? []),
        });
      }
    }
    send(res, status, body, headers);
  };

  // each handler is typed by its operation; the wrapper hands it what the spec validated for that operation
  for (const [operationId, fn] of Object.entries(opts.handlers)) api.register(operationId, wrap(operationId, fn as AnyHandler));
  api.registerSecurityHandler('BasicAuth', () => true); // the wrapper authenticates, before validation
  api.register('notFound', (c: Context, _req: Request, res: Response) =>
    send(res, 404, { message: `No route for ${String(c.request.method).toUpperCase()} ${c.request.path}`, error: 'NotFoundError' }),
  );
  api.register('methodNotAllowed', (c: Context, _req: Request, res: Response) =>
    send(
      res,
      405,
      isUnstablePath(String(c.request.path))
        ? { message: 'Method not allowed', code: 'method_not_allowed' }
        : { message: 'Method not allowed', error: 'MethodNotAllowedError' },
    ),
  );

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.use((req, res, next) => {
    const id = (req.headers['x-request-id'] as string | undefined)?.slice(0, 128) || randomUUID();
    res.setHeader('x-request-id', id);
    const started = process.hrtime.bigint();
    tallyReq(req).log = log.child({ requestId: id });
    res.on('finish', () => {
      tallyReq(req).log!.info(
        { method: req.method, path: req.path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 },
        'request',
      );
    });
    next();
  });
  // before everything else of the API: a preflight is answered here, before method dispatch
  app.use(publicApiCors());
  app.use(docsRouter()); // GET /api/public/openapi.json and /docs: outside the spec, before its router
  app.use(consoleRouter()); // GET / and /assets/*: the web console's static files
  app.use(OTEL_TRACES_PATH, ...otelBodyParser); // raw bytes, before the JSON parser
  // as express.json, under the process-wide budget for buffered bodies (body.ts); a large body's
  // containers past the levels any depth check allows are emptied before parsing (json-bytes.ts)
  app.use(
    jsonBody({
      limit: BODY_LIMIT_BYTES,
      type: ['application/json', 'application/*+json'],
      keepDepth: MAX_JSON_DEPTH + 3,
      mayHoldUnstorable: (req) => {
        tallyReq(req)[UNSTORABLE] = true;
      },
    }),
  );
  // errors answered before an operation is known still take the envelope of the path's family
  const shaped = (path: string, status: number, body: { message: string; error?: string }) =>
    isUnstablePath(path) ? toUnstableBody(status, body) : body;
  app.use((req, res, next) => {
    const problem = pathProblem(req.path);
    if (problem) return send(res, 400, shaped(req.path, 400, { message: problem, error: 'InvalidRequestError' }));
    next();
  });
  app.use(async (req, res, next) => {
    try {
      await api.handleRequest(
        {
          method: req.method,
          path: req.path,
          headers: req.headers as Record<string, string>,
          query: req.query as Record<string, string>,
          body: req.body,
        },
        req,
        res,
      );
    } catch (e) {
      next(e);
    }
  });
  // body-parser failures and anything else that escaped: always a JSON body
  app.use((err: ExpressError, req: Request, res: Response, _next: NextFunction) => {
    if (err?.type === 'body.busy') {
      const body = ingestionPaths.has(req.path)
        ? { message: err.message, errors: [err.message] }
        : shaped(req.path, 503, { message: err.message, error: 'ServiceUnavailable' });
      return send(res, 503, body, { 'retry-after': String(err.retryAfterSeconds) });
    }
    if (err?.type === 'entity.too.large')
      return send(
        res,
        413,
        shaped(req.path, 413, {
          message: `Request body exceeds the ${BODY_LIMIT_BYTES / 1024 / 1024} MB limit`,
          error: 'PayloadTooLargeError',
        }),
      );
    if (err?.status !== undefined && err.status >= 400 && err.status < 500) {
      // not V8's message: it quotes the text around the error, which may be a secret
      const position = err.type === 'entity.parse.failed' ? /position (\d+)/.exec(String(err.message))?.[1] : undefined;
      const message =
        err.type === 'entity.parse.failed' ? `Invalid JSON in request body${position ? ` at position ${position}` : ''}` : err.message;
      // the ingestion endpoint's 400 carries `errors`, as Langfuse's does
      if (err.status === 400 && ingestionPaths.has(req.path)) return send(res, 400, { message: 'Invalid request data', errors: [message] });
      return send(res, err.status, shaped(req.path, err.status, { message, error: 'InvalidRequestError' }));
    }
    (tallyReq(req).log ?? log).error({ err }, 'unhandled error');
    send(res, 500, shaped(req.path, 500, { message: 'Internal Server Error', error: 'An unknown error occurred' }));
  });
  return { app, api };
}

/** why an operation that needs a body got none: no body at all, or one not sent as JSON */
function missingBodyMessage(req: Request): string {
  const type = req.headers['content-type'];
  const sent = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!sent) return BODY_REQUIRED;
  return type
    ? `The request body was not read: its Content-Type is ${JSON.stringify(type.slice(0, 100))}; send it as application/json.`
    : 'The request body was not read: it has no Content-Type header; send it with Content-Type: application/json.';
}
