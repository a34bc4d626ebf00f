// POST /api/public/otel/v1/traces: OTLP/HTTP trace exports (protobuf or JSON, gzip or not).
// Spans become ingestion events (ingestion/otel/map.ts) that are validated and applied exactly
// as the batch endpoint's; the answer is an OTLP ExportTraceServiceResponse, in the request's
// encoding, with the spans that could not be taken in `partialSuccess`.
import type { NextFunction, Request, Response } from 'express';
import { BatchContentionError } from '../../ingestion/pipeline.ts';
import { ingest, type IngestUnit } from '../../ingestion/ingest.ts';
import { contentionAnswer } from '../contention.ts';
import {
  decodeJsonText,
  decodeProtobuf,
  encodeResponse,
  OtlpDecodeError,
  type OtlpExport,
  type PartialSuccess,
} from '../../ingestion/otel/decode.ts';
import { mapExport } from '../../ingestion/otel/map.ts';
import { keepOneGenerationPerCall, RecentGenerations } from '../../ingestion/otel/nested-generations.ts';
import { ApiError, type ExpressError } from '../errors.ts';
import { PRUNE_MIN_BYTES, rawBody } from '../body.ts';
import { decodeUtf8, pruneDeepJson } from '../json-bytes.ts';
import { projectOf, type OperationHandler } from '../handler.ts';

export const OTEL_TRACES_PATH = '/api/public/otel/v1/traces';
/** after decompression; OTLP batches of large prompts are big, and Langfuse sets no cap */
export const OTEL_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/** what the handler receives as its body: the raw bytes and how they are encoded */
export interface OtelRawBody {
  contentType: string;
  payload: Buffer;
  ingestionVersion?: string;
}

const send = (res: Response, status: number, body: unknown) => res.status(status).json(body);

/**
 * Express middleware for the OTLP path, mounted before the JSON parser: reads the body as bytes
 * (inflating gzip, deflate or br), whatever its type, and hands it on with its content type.
 */
export const otelBodyParser = [
  rawBody({ limit: OTEL_BODY_LIMIT_BYTES }), // as express.raw, under the budget for buffered bodies
  (req: Request, _res: Response, next: NextFunction) => {
    const payload = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const version = req.headers['x-langfuse-ingestion-version'];
    req.body = {
      contentType: String(req.headers['content-type'] ?? ''),
      payload,
      ...(typeof version === 'string' ? { ingestionVersion: version } : {}),
    } satisfies OtelRawBody;
    next();
  },
  (err: ExpressError, _req: Request, res: Response, next: NextFunction) => {
    if (err?.type === 'body.busy')
      return res
        .status(503)
        .setHeader('retry-after', String(err.retryAfterSeconds))
        .json({ message: err.message, error: 'ServiceUnavailable' });
    if (err?.type === 'entity.too.large')
      return send(res, 413, {
        message: `Request body exceeds the ${OTEL_BODY_LIMIT_BYTES / 1024 / 1024} MB limit`,
        error: 'PayloadTooLargeError',
      });
    // as Langfuse: an unknown Content-Encoding is a 400 too (body-parser says 415)
    if (err?.status === 400 || err?.status === 415)
      return send(res, 400, {
        message: `The request body could not be decompressed: ${err.type === 'encoding.unsupported' ? 'unsupported Content-Encoding' : 'invalid compressed data'}`,
        error: 'Failed to decompress request body',
      });
    next(err);
  },
];

/** generations this process mapped lately, so a second record of the same call is kept as a span */
const recentGenerations = new RecentGenerations();

/**
 * Nesting past this many levels is emptied before parsing (json-bytes.ts): the deepest prefix of
 * an attribute value is 10 levels and each AnyValue level takes at most 4, so whatever lies
 * deeper would map to a value nested more than MAX_JSON_DEPTH levels, whose span is refused.
 */
const OTLP_KEEP_DEPTH = 1000;

/** an OTLP/JSON body's text: bytes that are not UTF-8 marked (the span holding them is refused), deep nesting pruned unparsed */
function jsonText(payload: Buffer): string {
  let raw = payload;
  if (raw.length > PRUNE_MIN_BYTES) {
    const pruned = pruneDeepJson(raw, OTLP_KEEP_DEPTH);
    if (!Buffer.isBuffer(pruned))
      throw new OtlpDecodeError(
        'Failed to parse OTel JSON Trace',
        `Invalid JSON in request body at position ${raw.toString('utf8', 0, pruned.invalidAt).length}`,
      );
    raw = pruned;
  }
  return decodeUtf8(raw).text;
}

function decode(body: OtelRawBody): { exp: OtlpExport; protobuf: boolean } {
  const type = body.contentType.toLowerCase();
  // substring match, as Langfuse does: `; charset=utf-8` and the like are fine
  if (type.includes('application/x-protobuf') || type.includes('application/protobuf'))
    return { exp: decodeProtobuf(body.payload), protobuf: true };
  if (type.includes('application/json')) return { exp: decodeJsonText(jsonText(body.payload)), protobuf: false };
  throw new ApiError(400, 'Content-Type must be application/x-protobuf or application/json', 'Invalid content type');
}

export const opentelemetryExportTraces: OperationHandler<'opentelemetry_exportTraces'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const version = (ctx.body as OtelRawBody).ingestionVersion;
  // the SDKs send 4; a newer or unreadable version is refused, as Langfuse does
  if (version !== undefined && !(/^\s*\d+\s*$/.test(version) && Number(version) <= 4)) {
    throw new ApiError(
      400,
      `Unsupported x-langfuse-ingestion-version ${JSON.stringify(version.slice(0, 20))}: this server takes versions up to 4`,
      'Invalid ingestion version',
    );
  }
  let decoded: { exp: OtlpExport; protobuf: boolean };
  try {
    decoded = decode(ctx.body as OtelRawBody);
  } catch (e) {
    if (e instanceof OtlpDecodeError) throw new ApiError(400, e.message, e.error);
    throw e;
  }
  const rejected: string[] = [];
  const units: IngestUnit[] = [];
  for (const span of keepOneGenerationPerCall(mapExport(decoded.exp), recentGenerations, projectId)) {
    if ('rejected' in span) rejected.push(span.rejected);
    else units.push({ id: span.spanId, events: span.events });
  }
  try {
    const outcome = await ingest(ctx.em, ctx.services, projectId, units, { source: 'otel', checkText: true });
    for (const r of outcome.rejected) rejected.push(`span ${r.id}: ${r.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  } catch (e) {
    // nothing was stored: a 5xx makes OTLP exporters retry, and the event ids make that safe
    if (e instanceof BatchContentionError) return contentionAnswer(e, 'export');
    ctx.log.error({ err: e, spans: units.length }, 'OTLP export failed');
    throw new ApiError(500, 'The export could not be stored; nothing of it was applied. Send it again.', 'InternalServerError');
  }
  const partial: PartialSuccess | undefined = rejected.length
    ? {
        rejectedSpans: rejected.length,
        errorMessage: rejected.slice(0, 10).join('\n') + (rejected.length > 10 ? `\n… and ${rejected.length - 10} more` : ''),
      }
    : undefined;
  if (decoded.protobuf)
    return { status: 200, headers: { 'content-type': 'application/x-protobuf' }, body: Buffer.from(encodeResponse(partial)) };
  return { status: 200, body: partial ? { partialSuccess: partial } : {} };
};
