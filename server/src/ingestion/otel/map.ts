// OTel spans → Tally ingestion events (the mapping openapi/paths/otel.yaml describes): pure, no HTTP and no database. The events
// go through the batch endpoint's validator and pipeline unchanged, so normalisation, tokenizer
// inference, pricing and costStatus are the batch endpoint's.
//
// Event ids are derived from the trace id, the span id and a hash of the event, and the event
// timestamp from the span's start: a re-sent export is a replay (applyBatch skips known event
// ids) and spans of one trace may arrive in any order and in several exports.
import { createHash } from 'node:crypto';
import type { AnyValue, KeyValue, OtlpExport, OtlpSpan } from './decode.ts';
import { extractCost, extractModel, extractUsage, isAgentAggregate, jsonObject, MODEL_KEYS, type Attributes } from './usage.ts';
import { ObservationLevelValues, ObservationTypeValues } from '../../../../generated/enums.ts';
import { MAX_JSON_DEPTH } from '../../domain/json-depth.ts';
import { isPricedType } from '../../domain/usage/priced-types.ts';

export interface RawEvent {
  id: string;
  timestamp: string;
  type: string;
  body: Record<string, unknown>;
}
/** the events one span became, or why it was rejected */
export type MappedSpan = { spanId: string; traceId: string; events: RawEvent[] } | { rejected: string };

/** AnyValue → JSON value: ints as numbers when exact (else their decimal string), bytes as base64 */
export function anyValue(v: AnyValue | undefined): unknown {
  if (!v) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) {
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(anyValue);
  if (v.kvlistValue !== undefined) return attributes(v.kvlistValue.values);
  if (v.bytesValue !== undefined) return Buffer.from(v.bytesValue).toString('base64');
  return null;
}

export function attributes(kvs: KeyValue[] | undefined): Attributes {
  const out: Attributes = {};
  for (const kv of kvs ?? []) if (typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
  return out;
}

const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : '');
const allZero = (s: string) => /^0*$/.test(s);

/** OTLP's fixed64 nanoseconds (a decimal string) → RFC 3339 with milliseconds; 0 or absent → undefined */
export function nanosToIso(nanos: string | number | undefined): string | undefined {
  if (nanos === undefined || nanos === null || nanos === '') return undefined;
  let ns: bigint;
  try {
    ns = BigInt(nanos);
  } catch {
    return undefined;
  }
  if (ns <= 0n) return undefined;
  const d = new Date(Number(ns / 1_000_000n));
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Langfuse's SDKs send structured values as JSON text: parsed when it is JSON, else kept */
function parsedJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!(t.startsWith('{') || t.startsWith('[') || t.startsWith('"') || t === 'null' || t === 'true' || t === 'false' || /^-?\d/.test(t)))
    return v;
  // JSON text nested deeper than a stored value may be stays text: parsed, 8 MB of `[[[…` held
  // ~800 MB per span and failed the export with a 500 at PostgreSQL's jsonb depth limit
  if ((t[0] === '[' || t[0] === '{') && nestsDeeperThan(t, MAX_JSON_DEPTH)) return v;
  try {
    return JSON.parse(t);
  } catch {
    return v;
  }
}

/** whether JSON text opens more than `limit` arrays or objects at once (brackets inside strings skipped) */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > limit) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

function isoDate(v: unknown): string | undefined {
  const p = parsedJson(v);
  if (typeof p !== 'string' && typeof p !== 'number') return undefined;
  const d = new Date(p);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

function str(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

function firstOf(a: Attributes, keys: string[]): unknown {
  for (const k of keys) if (a[k] !== undefined && a[k] !== null && a[k] !== '') return a[k];
  return undefined;
}

/** `prefix` as a JSON object attribute, merged with its flattened `prefix.key` attributes */
function prefixed(a: Attributes, prefix: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = { ...jsonObject(a[prefix]) };
  for (const [k, v] of Object.entries(a)) if (k.startsWith(`${prefix}.`)) out[k.slice(prefix.length + 1)] = parsedJson(v);
  return Object.keys(out).length ? out : undefined;
}

const LANGFUSE_TYPES = new Set(ObservationTypeValues.map((t) => t.toLowerCase()));
const OPENINFERENCE: Record<string, string> = {
  LLM: 'generation',
  EMBEDDING: 'embedding',
  CHAIN: 'chain',
  RETRIEVER: 'retriever',
  RERANKER: 'retriever',
  TOOL: 'tool',
  AGENT: 'agent',
  GUARDRAIL: 'guardrail',
  EVALUATOR: 'evaluator',
};
const GEN_AI_OPERATION: Record<string, string> = {
  chat: 'generation',
  completion: 'generation',
  text_completion: 'generation',
  generate_content: 'generation',
  generate: 'generation',
  embeddings: 'embedding',
  invoke_agent: 'agent',
  create_agent: 'agent',
  execute_tool: 'tool',
};
const LANGFUSE_GENERATION_KEYS = [
  'langfuse.observation.model.name',
  'langfuse.observation.usage_details',
  'langfuse.observation.cost_details',
  'langfuse.observation.completion_start_time',
  'langfuse.observation.model.parameters',
  'langfuse.observation.prompt.name',
  'langfuse.observation.prompt.version',
];

// The Vercel AI SDK's model calls; every other `ai.*` operation (ai.generateText, ai.streamText,
// …) wraps them and repeats their usage, so it is a span, as Langfuse types it
const AI_SDK_GENERATIONS = [
  'ai.generateText.doGenerate',
  'ai.streamText.doStream',
  'ai.generateObject.doGenerate',
  'ai.streamObject.doStream',
];
const AI_SDK_EMBEDDINGS = ['ai.embedMany.doEmbed', 'ai.embed.doEmbed'];
const AI_SDK_MODEL_KEYS = ['langfuse.observation.model.name', 'ai.model.id', 'gen_ai.request.model', 'gen_ai.response.model'];

/** `ai.operationId` equals one of `ops`, or `operation.name` (which may carry the function id after a space) starts with one */
function aiSdkOperation(a: Attributes, ops: string[]): boolean {
  const id = a['ai.operationId'];
  if (typeof id === 'string' && ops.includes(id)) return true;
  const name = a['operation.name'];
  return typeof name === 'string' && ops.some((op) => name === op || name.startsWith(`${op} `));
}

function aiSdkType(a: Attributes): string | undefined {
  const id = str(a['ai.operationId']) ?? str(a['operation.name']);
  if (!id?.startsWith('ai.')) return undefined;
  const hasModel = AI_SDK_MODEL_KEYS.some((k) => typeof a[k] === 'string' && a[k] !== '');
  if (hasModel && aiSdkOperation(a, AI_SDK_GENERATIONS)) return 'generation';
  if (hasModel && aiSdkOperation(a, AI_SDK_EMBEDDINGS)) return 'embedding';
  if (aiSdkOperation(a, ['ai.toolCall'])) return 'tool';
  return 'span';
}

/** the observation type, lower case as in Langfuse's `langfuse.observation.type` */
export function observationType(a: Attributes): string {
  const given = str(a['langfuse.observation.type'])?.toLowerCase();
  if (given && LANGFUSE_TYPES.has(given)) return given;
  const oi = OPENINFERENCE[String(a['openinference.span.kind'] ?? '').toUpperCase()];
  if (oi) return oi;
  const op = GEN_AI_OPERATION[String(a['gen_ai.operation.name'] ?? '')];
  if (op) return op;
  const aiSdk = aiSdkType(a);
  if (aiSdk) return aiSdk;
  if (a['gen_ai.tool.name'] || a['gen_ai.tool.call.id']) return 'tool';
  if (MODEL_KEYS.some((k) => typeof a[k] === 'string' && a[k] !== '')) return 'generation';
  if (LANGFUSE_GENERATION_KEYS.some((k) => a[k] !== undefined)) return 'generation';
  return 'span';
}

/** OpenLLMetry's indexed messages (`gen_ai.prompt.0.role`, `gen_ai.prompt.0.content`, …) → [{role, content}, …] */
function indexedMessages(a: Attributes, prefix: string): unknown[] | undefined {
  const out: Record<string, unknown>[] = [];
  const re = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d+)\\.(.+)$`);
  for (const [k, v] of Object.entries(a)) {
    const m = re.exec(k);
    if (!m) continue;
    const i = Number(m[1]);
    if (i > 10_000) continue;
    out[i] ??= {};
    out[i][m[2]!] = parsedJson(v);
  }
  const list = out.filter(Boolean);
  return list.length ? list : undefined;
}

const INPUT_KEYS = [
  'langfuse.observation.input',
  'traceloop.entity.input',
  'gen_ai.input.messages',
  'input.value',
  'gen_ai.prompt',
  'ai.prompt.messages',
  'ai.prompt',
];
const OUTPUT_KEYS = [
  'langfuse.observation.output',
  'traceloop.entity.output',
  'gen_ai.output.messages',
  'output.value',
  'gen_ai.completion',
  'ai.response.text',
  'ai.response.object',
];
const LEVELS = new Set<string>(ObservationLevelValues);
const STATUS_ERROR = 2;

function modelParameters(a: Attributes): Record<string, unknown> | undefined {
  const given = jsonObject(a['langfuse.observation.model.parameters']);
  if (Object.keys(given).length) return given;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) {
    if (!k.startsWith('gen_ai.request.') || k === 'gen_ai.request.model') continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k.slice('gen_ai.request.'.length)] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * Where producers put the trace's user, session and tags: Langfuse's keys, the Langfuse
 * integrations' metadata keys, the AI SDK's telemetry metadata, OpenInference's `tag.tags` and
 * session/user, OpenLLMetry's association properties and AI SDK 7's runtime context
 * (ai.settings.context.*): the last two are Tally additions, Langfuse drops them.
 */
const USER_ID_KEYS = [
  'langfuse.user.id',
  'user.id',
  'langfuse.observation.metadata.langfuse_user_id',
  'langfuse.trace.metadata.langfuse_user_id',
  'ai.telemetry.metadata.userId',
  'ai.settings.context.userId',
  'traceloop.association.properties.userId',
  'traceloop.association.properties.user_id',
];
const SESSION_ID_KEYS = [
  'langfuse.session.id',
  'session.id',
  'gen_ai.conversation.id',
  'langfuse.observation.metadata.langfuse_session_id',
  'langfuse.trace.metadata.langfuse_session_id',
  'ai.telemetry.metadata.sessionId',
  'ai.settings.context.sessionId',
  'traceloop.association.properties.sessionId',
  'traceloop.association.properties.session_id',
];
const TAG_KEYS = [
  'langfuse.trace.tags',
  'langfuse.tags',
  'langfuse.observation.metadata.langfuse_tags',
  'langfuse.trace.metadata.langfuse_tags',
  'ai.telemetry.metadata.tags',
  'ai.settings.context.tags',
  'tag.tags',
];

/** an id attribute as Langfuse reads it: a string as is, anything else as its JSON */
const idValue = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : typeof v === 'string' ? v : JSON.stringify(v));

/** tags as a list, a JSON array in a string (OpenInference's tag.tags), a comma-separated string or one tag */
function tagList(v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const p = typeof v === 'string' && v.trim().startsWith('[') ? parsedJson(v) : v;
  if (Array.isArray(p)) return p.map(String);
  if (typeof p === 'string')
    return p.includes(',')
      ? p
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
      : [p];
  return undefined;
}

/** the name Langfuse gives an observation: a tool's name, or the AI SDK's `<functionId>:<operationId>` */
export function spanName(spanName: string | undefined, a: Attributes): string | null {
  const tool = a['gen_ai.tool.name'];
  if (tool) return typeof tool === 'string' ? tool : JSON.stringify(tool);
  if (a['logfire.msg']) return typeof a['logfire.msg'] === 'string' ? a['logfire.msg'] : JSON.stringify(a['logfire.msg']);
  if (typeof a['ai.toolCall.name'] === 'string') return a['ai.toolCall.name'];
  const op = a['ai.operationId'];
  if (op !== undefined && op !== null) {
    const fn = a['ai.telemetry.functionId'];
    return `${fn ? `${String(fn)}:` : ''}${String(op)}`;
  }
  return spanName ?? null;
}

function traceAttributes(a: Attributes): Record<string, unknown> {
  const b: Record<string, unknown> = {};
  const name = str(a['langfuse.trace.name']);
  if (name !== undefined) b.name = name;
  const userId = idValue(firstOf(a, USER_ID_KEYS));
  if (userId !== undefined) b.userId = userId;
  const sessionId = idValue(firstOf(a, SESSION_ID_KEYS));
  if (sessionId !== undefined) b.sessionId = sessionId;
  const tags = tagList(firstOf(a, TAG_KEYS));
  if (tags) b.tags = tags;
  const pub = a['langfuse.trace.public'];
  if (pub === true || pub === 'true') b.public = true;
  else if (pub === false || pub === 'false') b.public = false;
  const metadata = prefixed(a, 'langfuse.trace.metadata');
  if (metadata) b.metadata = metadata;
  if (a['langfuse.trace.input'] !== undefined) b.input = parsedJson(a['langfuse.trace.input']);
  if (a['langfuse.trace.output'] !== undefined) b.output = parsedJson(a['langfuse.trace.output']);
  return b;
}

function eventId(kind: string, traceId: string, spanId: string, content: unknown): string {
  const h = createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 24);
  return `otel-${kind}-${traceId}-${spanId}-${h}`;
}

export interface SpanContext {
  resource: Attributes;
  scope: { name?: string; version?: string };
}

/** one span → its trace-create and observation create event, or the reason it is rejected */
export function mapSpan(span: OtlpSpan, ctx: SpanContext): MappedSpan {
  const traceId = hex(span.traceId).toLowerCase();
  const spanId = hex(span.spanId).toLowerCase();
  const parent = hex(span.parentSpanId).toLowerCase();
  if (traceId.length !== 32 || allZero(traceId))
    return { rejected: `span ${spanId || '(no id)'}: traceId must be 16 bytes (32 hex characters), not all zero` };
  if (spanId.length !== 16 || allZero(spanId))
    return { rejected: `span in trace ${traceId}: spanId must be 8 bytes (16 hex characters), not all zero` };
  if (parent.length !== 0 && parent.length !== 16)
    return { rejected: `span ${spanId}: parentSpanId must be empty or 8 bytes (16 hex characters)` };
  const startTime = nanosToIso(span.startTimeUnixNano);
  if (!startTime) return { rejected: `span ${spanId}: startTimeUnixNano is missing or not a valid time` };
  const endTime = nanosToIso(span.endTimeUnixNano);

  const a = attributes(span.attributes);
  const r = ctx.resource;
  const environment =
    str(firstOf(a, ['langfuse.environment'])) ??
    str(firstOf(r, ['langfuse.environment', 'deployment.environment.name', 'deployment.environment']));
  const release = str(firstOf(a, ['langfuse.release'])) ?? str(firstOf(r, ['langfuse.release']));
  const version = str(firstOf(a, ['langfuse.version'])) ?? str(firstOf(r, ['langfuse.version']));
  // @langfuse/otel 5 marks the application's root span is_app_root (its parent may be another service's)
  const isRoot =
    parent === '' || [a['langfuse.internal.as_root'], a['langfuse.internal.is_app_root']].some((v) => v === true || v === 'true');

  // the trace: a root span names and times it; any span may carry trace-level attributes
  const trace: Record<string, unknown> = { id: traceId, ...traceAttributes(a) };
  const name = spanName(span.name, a);
  if (isRoot) {
    trace.timestamp = startTime;
    trace.name ??= name;
  }
  if (environment !== undefined) trace.environment = environment;
  if (release !== undefined) trace.release = release;
  if (version !== undefined && isRoot) trace.version = version;

  const type = observationType(a);
  const obs: Record<string, unknown> = { id: spanId, traceId, parentObservationId: parent || null, name, startTime };
  if (type !== 'event' && endTime) obs.endTime = endTime;
  if (environment !== undefined) obs.environment = environment;
  if (version !== undefined) obs.version = version;
  const input = firstOf(a, INPUT_KEYS);
  if (input !== undefined) obs.input = parsedJson(input);
  else {
    const messages = indexedMessages(a, 'gen_ai.prompt');
    if (messages !== undefined) obs.input = messages;
  }
  const output = firstOf(a, OUTPUT_KEYS);
  if (output !== undefined) obs.output = parsedJson(output);
  else {
    const messages = indexedMessages(a, 'gen_ai.completion');
    if (messages !== undefined) obs.output = messages;
  }
  // the root span's input and output are the trace's, unless the sender set the trace's own
  if (isRoot) {
    if (trace.input === undefined && obs.input !== undefined) trace.input = obs.input;
    if (trace.output === undefined && obs.output !== undefined) trace.output = obs.output;
  }
  const level = str(a['langfuse.observation.level'])?.toUpperCase();
  if (level && LEVELS.has(level)) obs.level = level;
  else if (span.status?.code === STATUS_ERROR) obs.level = 'ERROR';
  const statusMessage = str(a['langfuse.observation.status_message']) ?? (span.status?.message || undefined);
  if (statusMessage !== undefined) obs.statusMessage = statusMessage;
  const own = prefixed(a, 'langfuse.observation.metadata') ?? {};
  const otherAttributes = Object.fromEntries(Object.entries(a).filter(([k]) => !k.startsWith('langfuse.')));
  obs.metadata = {
    ...own,
    ...(Object.keys(otherAttributes).length ? { attributes: otherAttributes } : {}),
    ...(Object.keys(r).length ? { resourceAttributes: r } : {}),
    ...(ctx.scope.name ? { scope: { name: ctx.scope.name, ...(ctx.scope.version ? { version: ctx.scope.version } : {}) } } : {}),
  };

  if (isPricedType(type)) {
    const model = extractModel(a);
    if (model !== undefined) obs.model = model;
    if (!isAgentAggregate(a)) {
      const params = modelParameters(a);
      if (params) obs.modelParameters = params;
    }
    const usageDetails = extractUsage(a, ctx.scope.name);
    if (usageDetails) obs.usageDetails = usageDetails;
    const costDetails = extractCost(a);
    if (costDetails) obs.costDetails = costDetails;
    const completionStartTime = isoDate(a['langfuse.observation.completion_start_time']);
    if (completionStartTime) obs.completionStartTime = completionStartTime;
    const promptName = str(a['langfuse.observation.prompt.name']);
    const promptVersion = Number(a['langfuse.observation.prompt.version']);
    if (promptName !== undefined && a['langfuse.observation.prompt.version'] !== undefined && Number.isInteger(promptVersion)) {
      obs.promptName = promptName;
      obs.promptVersion = promptVersion;
    }
  }

  const obsType = `${type}-create`;
  return {
    traceId,
    spanId,
    events: [
      { id: eventId('trace', traceId, spanId, trace), timestamp: startTime, type: 'trace-create', body: trace },
      { id: eventId(type, traceId, spanId, obs), timestamp: startTime, type: obsType, body: obs },
    ],
  };
}

/** every span of an export, in order */
export function mapExport(exp: OtlpExport): MappedSpan[] {
  const out: MappedSpan[] = [];
  for (const rs of exp.resourceSpans) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      const scope = { name: ss.scope?.name, version: ss.scope?.version };
      for (const span of ss.spans ?? []) out.push(mapSpan(span, { resource, scope }));
    }
  }
  return out;
}
