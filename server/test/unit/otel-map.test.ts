import { describe, expect, it } from 'vitest';
import {
  decodeJson,
  decodeJsonText,
  decodeProtobuf,
  decodeResponse,
  encodeResponse,
  OtlpDecodeError,
} from '../../src/ingestion/otel/decode.ts';
import { mapExport, mapSpan, nanosToIso, observationType, spanName } from '../../src/ingestion/otel/map.ts';
import { extractCost, extractModel, extractUsage } from '../../src/ingestion/otel/usage.ts';
import { createEventValidator } from '../../src/ingestion/events.ts';
import { ProtobufTraceSerializer, JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';
const PARENT = '00f067aa0ba902b7';
type Attr = { key: string; value: Record<string, unknown> };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const i = (key: string, v: number | string): Attr => ({ key, value: { intValue: v } });
const d = (key: string, v: number): Attr => ({ key, value: { doubleValue: v } });

function exportOf(spans: Record<string, unknown>[], scope = 'test-scope', resource: Attr[] = []) {
  return { resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: scope }, spans }] }] };
}
const span = (attributes: Attr[], extra: Record<string, unknown> = {}) => ({
  traceId: TRACE,
  spanId: SPAN,
  name: 'op',
  startTimeUnixNano: '1795341600000000000',
  endTimeUnixNano: '1795341601500000000',
  attributes,
  ...extra,
});
function mapOne(attributes: Attr[], extra: Record<string, unknown> = {}, scope?: string, resource?: Attr[]) {
  const [m] = mapExport(decodeJson(exportOf([span(attributes, extra)], scope, resource)));
  if (!m || 'rejected' in m) throw new Error(`rejected: ${m && 'rejected' in m ? m.rejected : 'none'}`);
  return { trace: m.events[0]!, obs: m.events[1]! };
}

describe('OTel usage extraction', () => {
  const attrs = (o: Record<string, unknown>) => o;
  it('generic rule: cache read and creation are subtracted from input, reasoning and audio from output', () => {
    expect(
      extractUsage(
        attrs({
          'gen_ai.usage.input_tokens': 120,
          'gen_ai.usage.output_tokens': 40,
          'gen_ai.usage.cache_read.input_tokens': 30,
          'gen_ai.usage.cache_creation.input_tokens': 10,
        }),
        'x',
      ),
    ).toEqual({ input: 80, output: 40, input_cached_tokens: 30, input_cache_creation: 10 });
    expect(
      extractUsage(
        attrs({
          'gen_ai.usage.prompt_tokens': '100',
          'gen_ai.usage.completion_tokens': 50,
          'gen_ai.usage.reasoning.output_tokens': 20,
          'gen_ai.usage.completion_details.audio': 5,
          'gen_ai.usage.total_tokens': 150,
        }),
        'x',
      ),
    ).toEqual({ input: 100, output: 25, output_reasoning_tokens: 20, output_audio_tokens: 5, total: 150 });
    expect(
      extractUsage(
        attrs({
          'llm.token_count.prompt': 10,
          'llm.token_count.completion': 4,
          'gen_ai.usage.details.input_audio_tokens': 3,
          'gen_ai.usage.cost': 1,
        }),
        'x',
      ),
    ).toEqual({ input: 10, output: 4, input_audio_tokens: 3 });
    expect(extractUsage(attrs({ 'gen_ai.usage.input_tokens': 5, 'gen_ai.usage.cache_read_input_tokens': 9 }), 'x')).toEqual({
      input: 0,
      input_cached_tokens: 9,
    });
  });
  it('langfuse.observation.usage_details wins and is passed on as sent', () => {
    expect(
      extractUsage(attrs({ 'langfuse.observation.usage_details': '{"input":3,"output":4}', 'gen_ai.usage.input_tokens': 100 }), 'x'),
    ).toEqual({ input: 3, output: 4 });
    expect(
      extractUsage(attrs({ 'langfuse.observation.usage_details': 'not json', 'gen_ai.usage.input_tokens': 100 }), 'x'),
    ).toBeUndefined();
  });
  it('Vercel AI SDK scope: ai.usage.tokens is the total, cached and reasoning subtracted', () => {
    expect(
      extractUsage(
        attrs({
          'gen_ai.usage.input_tokens': 100,
          'gen_ai.usage.output_tokens': 50,
          'gen_ai.usage.total_tokens': 999,
          'ai.usage.tokens': 150,
          'ai.usage.cachedInputTokens': 40,
          'ai.usage.reasoningTokens': 10,
        }),
        'ai',
      ),
    ).toEqual({ input: 60, output: 40, total: 150, input_cached_tokens: 40, output_reasoning_tokens: 10 });
    expect(
      extractUsage(
        attrs({
          'gen_ai.usage.prompt_tokens': 100,
          'ai.response.providerMetadata': JSON.stringify({
            anthropic: { usage: { cache_creation_input_tokens: 30, cache_read_input_tokens: 20 } },
          }),
        }),
        'ai',
      ),
    ).toEqual({ input: 50, input_cache_creation: 30, input_cached_tokens: 20 });
  });
  it('agent spans get no usage, cost or model', () => {
    const a = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.usage.input_tokens': 5,
      'gen_ai.usage.cost': 1,
      'gen_ai.request.model': 'm',
    };
    expect([extractUsage(a, 'x'), extractCost(a), extractModel(a)]).toEqual([undefined, undefined, undefined]);
  });
  it('cost and model priority', () => {
    expect(extractCost({ 'langfuse.observation.cost_details': '{"input":0.1,"output":0.2}', 'gen_ai.usage.cost': 9 })).toEqual({
      input: 0.1,
      output: 0.2,
    });
    expect(extractCost({ 'gen_ai.usage.cost': 0.5, 'llm.cost.total': 9 })).toEqual({ total: 0.5 });
    expect(extractCost({ 'llm.cost.total': '0.25' })).toEqual({ total: 0.25 });
    expect(extractModel({ 'gen_ai.request.model': 'req', 'gen_ai.response.model': 'resp' })).toBe('resp');
    expect(extractModel({ 'gen_ai.request.model': 'req', 'langfuse.observation.model.name': 'lf' })).toBe('lf');
    expect(extractModel({ 'llm.model_name': 'oi' })).toBe('oi');
  });
  it('observation type: langfuse attribute, OpenInference, gen_ai.operation.name, model presence', () => {
    expect(observationType({ 'langfuse.observation.type': 'tool' })).toBe('tool');
    expect(observationType({ 'openinference.span.kind': 'LLM' })).toBe('generation');
    expect(observationType({ 'gen_ai.operation.name': 'embeddings' })).toBe('embedding');
    expect(observationType({ 'gen_ai.request.model': 'x' })).toBe('generation');
    expect(observationType({ 'langfuse.observation.usage_details': '{}' })).toBe('generation');
    expect(observationType({ foo: 1 })).toBe('span');
  });
  it('AI SDK: only the model calls are generations; the wrappers that repeat their usage are spans', () => {
    const model = { 'ai.model.id': 'gpt-4o-mini', 'ai.model.provider': 'openai.chat' };
    for (const op of ['ai.generateText.doGenerate', 'ai.streamText.doStream', 'ai.generateObject.doGenerate', 'ai.streamObject.doStream']) {
      expect(observationType({ ...model, 'ai.operationId': op }), op).toBe('generation');
    }
    expect(observationType({ ...model, 'ai.operationId': 'ai.embed.doEmbed' })).toBe('embedding');
    for (const op of ['ai.generateText', 'ai.streamText', 'ai.generateObject', 'ai.embed'])
      expect(observationType({ ...model, 'ai.operationId': op, 'gen_ai.request.model': 'x' }), op).toBe('span');
    expect(observationType({ 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'weather' })).toBe('tool');
    // operation.name carries the function id after a space
    expect(observationType({ ...model, 'operation.name': 'ai.generateText.doGenerate fn-x' })).toBe('generation');
  });
  it('names: the AI SDK function id before the operation, tools by their name', () => {
    expect(spanName('ai.generateText', { 'ai.operationId': 'ai.generateText', 'ai.telemetry.functionId': 'fn-x' })).toBe(
      'fn-x:ai.generateText',
    );
    expect(spanName('ai.generateText', { 'ai.operationId': 'ai.generateText' })).toBe('ai.generateText');
    expect(spanName('ai.toolCall', { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'weather' })).toBe('weather');
    expect(spanName('execute_tool', { 'gen_ai.tool.name': 'search' })).toBe('search');
    expect(spanName('chat gpt-4o', {})).toBe('chat gpt-4o');
  });
});

describe('OTel span mapping', () => {
  it('maps a Langfuse SDK generation span to a trace-create and a generation-create that the batch validator accepts', () => {
    const { trace, obs } = mapOne(
      [
        s('langfuse.observation.type', 'generation'),
        s('langfuse.observation.model.name', 'gpt-4o'),
        s('langfuse.observation.usage_details', '{"input":10,"output":5}'),
        s('langfuse.observation.cost_details', '{"total":0.01}'),
        s('langfuse.observation.input', '[{"role":"user","content":"hi"}]'),
        s('langfuse.observation.output', 'plain text'),
        s('langfuse.observation.metadata.k', '"v"'),
        s('langfuse.observation.level', 'WARNING'),
        s('langfuse.observation.status_message', 'careful'),
        s('langfuse.observation.model.parameters', '{"temperature":0.2}'),
        s('langfuse.observation.completion_start_time', '"2026-11-22T10:00:00.400Z"'),
        s('langfuse.observation.prompt.name', 'p'),
        i('langfuse.observation.prompt.version', 3),
        s('langfuse.trace.name', 'tr'),
        s('user.id', 'u1'),
        s('session.id', 's1'),
        { key: 'langfuse.trace.tags', value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } } },
        { key: 'langfuse.trace.public', value: { boolValue: true } },
        s('langfuse.release', 'r1'),
        s('langfuse.version', 'v1'),
        s('langfuse.environment', 'prod'),
      ],
      {},
      'langfuse-sdk',
    );
    expect(trace.type).toBe('trace-create');
    // a root span's input and output are the trace's when the sender set no trace input/output (as Langfuse does)
    expect(trace.body).toEqual({
      id: TRACE,
      name: 'tr',
      userId: 'u1',
      sessionId: 's1',
      tags: ['a', 'b'],
      public: true,
      timestamp: '2026-11-22T10:00:00.000Z',
      environment: 'prod',
      release: 'r1',
      version: 'v1',
      input: [{ role: 'user', content: 'hi' }],
      output: 'plain text',
    });
    expect(obs.type).toBe('generation-create');
    expect(obs.timestamp).toBe('2026-11-22T10:00:00.000Z');
    expect(obs.body).toMatchObject({
      id: SPAN,
      traceId: TRACE,
      parentObservationId: null,
      name: 'op',
      startTime: '2026-11-22T10:00:00.000Z',
      endTime: '2026-11-22T10:00:01.500Z',
      environment: 'prod',
      version: 'v1',
      input: [{ role: 'user', content: 'hi' }],
      output: 'plain text',
      level: 'WARNING',
      statusMessage: 'careful',
      model: 'gpt-4o',
      modelParameters: { temperature: 0.2 },
      usageDetails: { input: 10, output: 5 },
      costDetails: { total: 0.01 },
      completionStartTime: '2026-11-22T10:00:00.400Z',
      promptName: 'p',
      promptVersion: 3,
      metadata: { k: 'v', attributes: { 'user.id': 'u1', 'session.id': 's1' }, scope: { name: 'langfuse-sdk' } },
    });
    const validate = createEventValidator();
    for (const e of [trace, obs]) expect(validate(e, true).ok).toBe(true);
  });

  it('a child span: parent id, trace attributes only, no trace name or timestamp; error status → level ERROR', () => {
    const { trace, obs } = mapOne([d('gen_ai.usage.cost', 0.3)], { parentSpanId: PARENT, status: { code: 2, message: 'boom' } });
    expect(trace.body).toEqual({ id: TRACE });
    expect(obs.type).toBe('span-create');
    expect(obs.body).toMatchObject({ parentObservationId: PARENT, level: 'ERROR', statusMessage: 'boom' });
    expect(obs.body.costDetails).toBeUndefined(); // a plain span carries no cost
  });

  it('GenAI conventions: model, usage with subtraction, cost, request parameters', () => {
    const { obs } = mapOne([
      s('gen_ai.operation.name', 'chat'),
      s('gen_ai.request.model', 'gpt-4o'),
      s('gen_ai.response.model', 'gpt-4o-2024-08-06'),
      i('gen_ai.usage.input_tokens', '120'),
      i('gen_ai.usage.output_tokens', 40),
      i('gen_ai.usage.cache_read.input_tokens', 30),
      d('gen_ai.usage.cost', 0.0012),
      d('gen_ai.request.temperature', 0.5),
    ]);
    expect(obs.type).toBe('generation-create');
    expect(obs.body).toMatchObject({
      model: 'gpt-4o-2024-08-06',
      usageDetails: { input: 90, output: 40, input_cached_tokens: 30 },
      costDetails: { total: 0.0012 },
      modelParameters: { temperature: 0.5 },
    });
  });

  it("OpenLLMetry's indexed gen_ai.prompt.N / gen_ai.completion.N messages become input and output", () => {
    const { obs } = mapOne([
      s('gen_ai.request.model', 'm'),
      s('gen_ai.prompt.1.role', 'user'),
      s('gen_ai.prompt.1.content', 'hi'),
      s('gen_ai.prompt.0.role', 'system'),
      s('gen_ai.prompt.0.content', 'be brief'),
      s('gen_ai.completion.0.role', 'assistant'),
      s('gen_ai.completion.0.content', 'hello'),
    ]);
    expect(obs.body.input).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ]);
    expect(obs.body.output).toEqual([{ role: 'assistant', content: 'hello' }]);
    expect('input' in mapOne([s('gen_ai.request.model', 'm')]).obs.body).toBe(false);
  });

  it('environment from the resource; deterministic event ids that change with the content', () => {
    const a = mapOne([s('gen_ai.request.model', 'm')], {}, 'x', [s('deployment.environment.name', 'staging')]);
    const b = mapOne([s('gen_ai.request.model', 'm')], {}, 'x', [s('deployment.environment.name', 'staging')]);
    const c = mapOne([s('gen_ai.request.model', 'other')], {}, 'x', [s('deployment.environment.name', 'staging')]);
    expect(a.obs.body.environment).toBe('staging');
    expect(a.obs.id).toBe(b.obs.id);
    expect(a.trace.id).toBe(b.trace.id);
    expect(c.obs.id).not.toBe(a.obs.id);
    expect(a.obs.id.startsWith(`otel-generation-${TRACE}-${SPAN}-`)).toBe(true);
  });

  it('rejects spans with bad ids or no start time, one by one', () => {
    const spans = [
      span([], { spanId: 'abc' }),
      span([], { traceId: '00000000000000000000000000000000' }),
      span([], { startTimeUnixNano: '0' }),
      span([], { parentSpanId: 'zz' }),
      span([]),
    ];
    const mapped = mapExport(decodeJson(exportOf(spans)));
    expect(mapped.map((m) => ('rejected' in m ? 'rejected' : 'ok'))).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'ok']);
    expect((mapped[0] as { rejected: string }).rejected).toBe(
      `span in trace ${TRACE}: spanId must be 8 bytes (16 hex characters), not all zero`,
    );
  });

  it('nanoseconds to RFC 3339 with milliseconds', () => {
    expect(nanosToIso('1795341600123456789')).toBe('2026-11-22T10:00:00.123Z');
    expect(nanosToIso(undefined)).toBeUndefined();
    expect(nanosToIso('0')).toBeUndefined();
    expect(nanosToIso('garbage')).toBeUndefined();
  });
});

describe('OTLP decoding (protobufjs with the OTLP protos)', () => {
  async function sdkSpans() {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'unit' }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('unit-scope', '1.0.0');
    const root = tracer.startSpan('root', {
      attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 12, big: 2 ** 40 },
    });
    root.end();
    await provider.forceFlush();
    return exporter.getFinishedSpans();
  }

  it('decodes what the OpenTelemetry protobuf and JSON serializers produce, to the same spans', async () => {
    const spans = await sdkSpans();
    const fromProto = decodeProtobuf(ProtobufTraceSerializer.serializeRequest(spans)!);
    const fromJson = decodeJsonText(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!));
    const [p] = mapExport(fromProto);
    const [j] = mapExport(fromJson);
    expect(p).toEqual(j);
    if (!p || 'rejected' in p) throw new Error('rejected');
    expect(p.spanId).toBe(spans[0]!.spanContext().spanId);
    expect(p.traceId).toBe(spans[0]!.spanContext().traceId);
    expect(p.events[1]!.body).toMatchObject({
      model: 'gpt-4o',
      usageDetails: { input: 12 },
      metadata: {
        attributes: { big: 2 ** 40 },
        resourceAttributes: { 'service.name': 'unit' },
        scope: { name: 'unit-scope', version: '1.0.0' },
      },
    });
  });

  it('reports undecodable bodies with the error names Langfuse uses', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof OtlpDecodeError ? e.error : 'other';
      }
      return 'none';
    };
    expect(err(() => decodeProtobuf(Buffer.from([0x0a, 0xff, 0xff, 0x01])))).toBe('Failed to parse OTel Protobuf Trace');
    expect(err(() => decodeJsonText('{"resourceSpans": ['))).toBe('Failed to parse OTel JSON Trace');
    expect(err(() => decodeJsonText('[]'))).toBe('Invalid OTLP trace export');
    expect(err(() => decodeJsonText('{"resourceSpans": {}}'))).toBe('Invalid OTLP trace export');
    expect(err(() => decodeJsonText('{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": 5}]}]}]}'))).toBe(
      'Invalid OTLP trace export',
    );
    expect(decodeProtobuf(new Uint8Array()).resourceSpans).toEqual([]);
  });

  it('encodes the ExportTraceServiceResponse with partialSuccess', () => {
    expect(encodeResponse()).toHaveLength(0);
    expect(decodeResponse(encodeResponse({ rejectedSpans: 2, errorMessage: 'why' }))).toEqual({
      partialSuccess: { rejectedSpans: '2', errorMessage: 'why' },
    });
  });

  it('mapSpan accepts bytes ids from protobuf', () => {
    const m = mapSpan(
      { traceId: Buffer.from(TRACE, 'hex'), spanId: Buffer.from(SPAN, 'hex'), startTimeUnixNano: '1795341600000000000' },
      { resource: {}, scope: {} },
    );
    expect('rejected' in m ? m.rejected : m.spanId).toBe(SPAN);
  });
});

describe('JSON text in span attributes nested too deep', () => {
  it('stays text instead of being parsed (memory, and PostgreSQL jsonb depth)', async () => {
    const { nestsDeeperThan } = await import('../../src/ingestion/otel/map.ts');
    expect(nestsDeeperThan('['.repeat(101) + ']'.repeat(101), 100)).toBe(true);
    expect(nestsDeeperThan('['.repeat(100) + ']'.repeat(100), 100)).toBe(false);
    expect(nestsDeeperThan(`{"a":"${'['.repeat(500)}"}`, 100)).toBe(false); // brackets inside a string
    expect(nestsDeeperThan(`{"a":"\\"${'['.repeat(5)}"}`, 2)).toBe(false); // an escaped quote does not end the string
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const { obs } = mapOne([s('langfuse.observation.type', 'span'), s('langfuse.observation.input', deep)]);
    expect(obs.body.input).toBe(deep);
  });
});
