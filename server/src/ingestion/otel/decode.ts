// OTLP/HTTP trace exports, protobuf or JSON, decoded with protobufjs from the OTLP .proto
// definitions (proto/, vendored unchanged) into one plain shape the mapping reads. Both forms go
// through the same protobufjs message type, so they are coerced alike (int64 as decimal strings,
// enums as numbers, AnyValue as its oneof); OTLP/JSON's ids are hex, not base64, and are turned
// into bytes before protobufjs sees them.
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const PROTO_DIR = fileURLToPath(new URL('./proto/', import.meta.url));

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => PROTO_DIR + target;
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false });
  // the vendored protos predate ExportTracePartialSuccess (opentelemetry-proto 0.20): the same
  // field numbers and types, added here rather than by editing the vendored files
  const ns = root.lookup('opentelemetry.proto.collector.trace.v1') as protobuf.Namespace;
  const partial = new protobuf.Type('ExportTracePartialSuccess')
    .add(new protobuf.Field('rejectedSpans', 1, 'int64'))
    .add(new protobuf.Field('errorMessage', 2, 'string'));
  ns.add(partial);
  root
    .lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse')
    .add(new protobuf.Field('partialSuccess', 1, 'ExportTracePartialSuccess'));
  root.resolveAll();
  return root;
}

const root = loadRoot();
const RequestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const ResponseType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');

/** an attribute value as OTLP's AnyValue, after protobufjs toObject */
export interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  bytesValue?: Uint8Array;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
}
export interface KeyValue {
  key?: string;
  value?: AnyValue;
}
export interface OtlpSpan {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  parentSpanId?: Uint8Array;
  traceState?: string;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: KeyValue[];
  events?: { timeUnixNano?: string; name?: string; attributes?: KeyValue[] }[];
  status?: { code?: number; message?: string };
}
export interface OtlpScopeSpans {
  scope?: { name?: string; version?: string; attributes?: KeyValue[] };
  spans?: OtlpSpan[];
}
export interface OtlpResourceSpans {
  resource?: { attributes?: KeyValue[] };
  scopeSpans?: OtlpScopeSpans[];
}
export interface OtlpExport {
  resourceSpans: OtlpResourceSpans[];
}

/** a body that is not an OTLP export: the caller answers 400 with `error` and `message` */
export class OtlpDecodeError extends Error {
  readonly error: string;
  constructor(error: string, message: string) {
    super(message);
    this.error = error;
  }
}

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: Number, arrays: true, defaults: false };

/** an ExportTraceServiceRequest after toObject: OtlpExport's shape, with scopeSpans' deprecated predecessor */
interface DecodedExport {
  resourceSpans?: (OtlpResourceSpans & {
    instrumentationLibrarySpans?: { instrumentationLibrary?: OtlpScopeSpans['scope']; spans?: OtlpSpan[] }[];
  })[];
}

function normalise(msg: protobuf.Message): OtlpExport {
  const obj = RequestType.toObject(msg, TO_OBJECT) as DecodedExport;
  const resourceSpans = (obj.resourceSpans ?? []).map((rs) => ({
    resource: rs.resource,
    // deprecated (OTLP < 0.19): read when scopeSpans is absent, as receivers should
    scopeSpans: rs.scopeSpans?.length
      ? rs.scopeSpans
      : (rs.instrumentationLibrarySpans ?? []).map((ils) => ({ scope: ils.instrumentationLibrary, spans: ils.spans })),
  }));
  return { resourceSpans };
}

export function decodeProtobuf(body: Uint8Array): OtlpExport {
  let msg: protobuf.Message;
  try {
    msg = RequestType.decode(body);
  } catch (e) {
    throw new OtlpDecodeError(
      'Failed to parse OTel Protobuf Trace',
      `The body is not an OTLP ExportTraceServiceRequest in protobuf: ${(e as Error).message}`,
    );
  }
  return normalise(msg);
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
/** OTLP/JSON ids are hex strings; anything else becomes bytes of a length no id has, so its span is rejected, not the export */
function hexId(v: unknown): unknown {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') return v; // protobufjs reports the type
  return HEX.test(v) ? Buffer.from(v, 'hex') : Buffer.alloc(1);
}

/** typeof 'object' and not null: an array passes too (only the root check refuses one) */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function withByteIds(json: unknown): Record<string, unknown> {
  if (!isObject(json) || Array.isArray(json)) throw new TypeError('the body must be a JSON object');
  const list = (v: unknown, what: string): unknown[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new TypeError(`${what} must be an array`);
    return v;
  };
  return {
    ...json,
    resourceSpans: list(json.resourceSpans, 'resourceSpans').map((rs, i) => {
      if (!isObject(rs)) throw new TypeError(`resourceSpans[${i}] must be an object`);
      const scopes = (key: 'scopeSpans' | 'instrumentationLibrarySpans') =>
        list(rs[key], `resourceSpans[${i}].${key}`).map((ss, j) => {
          if (!isObject(ss)) throw new TypeError(`resourceSpans[${i}].${key}[${j}] must be an object`);
          return {
            ...ss,
            spans: list(ss.spans, `resourceSpans[${i}].${key}[${j}].spans`).map((s, k) => {
              if (!isObject(s)) throw new TypeError(`resourceSpans[${i}].${key}[${j}].spans[${k}] must be an object`);
              const links = Array.isArray(s.links)
                ? s.links.map((l: unknown) => (isObject(l) ? { ...l, traceId: hexId(l.traceId), spanId: hexId(l.spanId) } : l))
                : s.links;
              return { ...s, traceId: hexId(s.traceId), spanId: hexId(s.spanId), parentSpanId: hexId(s.parentSpanId), links };
            }),
          };
        });
      return { ...rs, scopeSpans: scopes('scopeSpans'), instrumentationLibrarySpans: scopes('instrumentationLibrarySpans') };
    }),
  };
}

/** an OTLP/JSON export, already parsed from its text */
export function decodeJson(json: unknown): OtlpExport {
  let msg: protobuf.Message;
  try {
    msg = RequestType.fromObject(withByteIds(json));
  } catch (e) {
    throw new OtlpDecodeError(
      'Invalid OTLP trace export',
      `The body is not an OTLP/JSON ExportTraceServiceRequest: ${(e as Error).message.replace(/^opentelemetry\.proto\.[\w.]+\./, '')}`,
    );
  }
  return normalise(msg);
}

/** JSON text of an OTLP/JSON export */
export function decodeJsonText(text: string): OtlpExport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const position = /position (\d+)/.exec(String((e as Error).message))?.[1];
    throw new OtlpDecodeError(
      'Failed to parse OTel JSON Trace',
      `Invalid JSON in request body${position ? ` at position ${position}` : ''}`,
    );
  }
  return decodeJson(json);
}

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

/** ExportTraceServiceResponse in protobuf */
export function encodeResponse(partial?: PartialSuccess): Uint8Array {
  return ResponseType.encode(ResponseType.fromObject(partial ? { partialSuccess: partial } : {})).finish();
}

/** ExportTraceServiceResponse in protobuf, decoded (for tests and clients) */
export function decodeResponse(body: Uint8Array): { partialSuccess?: { rejectedSpans?: string; errorMessage?: string } } {
  return ResponseType.toObject(ResponseType.decode(body), TO_OBJECT) as {
    partialSuccess?: { rejectedSpans?: string; errorMessage?: string };
  };
}
