// POST /api/public/otel/v1/traces end to end: spans sent by the real Langfuse JS SDK
// (@langfuse/tracing + @langfuse/otel) and by the plain OTLP exporters (protobuf and JSON, gzip on
// and off), compared with the same generation sent through the batch endpoint.
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { LangfuseOtelSpanAttributes as LF, setLangfuseTracerProvider, startObservation } from '@langfuse/tracing';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ExportResultCode } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { raw, unique } from '../support/client.ts';
import { basic } from '../support/start.ts';
import { decodeResponse } from '../../src/ingestion/otel/decode.ts';

const PATH = '/api/public/otel/v1/traces';
const url = () => inject('baseUrl') + PATH;
const auth = () => basic(inject('projectA'));
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const nanos = (iso: string) => String(BigInt(Date.parse(iso)) * 1_000_000n);

const observation = async (id: string) => raw(`/api/public/observations/${encodeURIComponent(id)}`);
async function createModel(name: string) {
  const res = await raw('/api/public/models', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      modelName: name,
      matchPattern: `(?i)^(${name})$`,
      unit: 'TOKENS',
      pricingTiers: [
        {
          name: 'Standard',
          isDefault: true,
          priority: 0,
          conditions: [],
          prices: { input: 0.000002, output: 0.000008, input_cached_tokens: 0.0000005, output_reasoning_tokens: 0.000008 },
        },
      ],
    }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}
async function batchGeneration(body: Record<string, unknown>) {
  const res = await raw('/api/public/ingestion', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ batch: [{ id: unique('evt'), timestamp: new Date().toISOString(), type: 'generation-create', body }] }),
  });
  expect(res.status).toBe(207);
  expect(res.body.errors).toEqual([]);
}
/** the fields that usage, pricing and cost decide */
const COST_FIELDS = [
  'model',
  'usageDetails',
  'costDetails',
  'costStatus',
  'calculatedTotalCost',
  'calculatedInputCost',
  'calculatedOutputCost',
  'totalCost',
  'modelId',
  'internalModelId',
  'inputPrice',
  'outputPrice',
  'totalPrice',
  'usage',
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'unit',
  'usagePricingTierName',
];
const costView = (o: Record<string, unknown>) => Object.fromEntries(COST_FIELDS.filter((k) => k in o).map((k) => [k, o[k]]));

async function postJson(body: unknown, headers: Record<string, string> = {}) {
  return raw(PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
const exportOf = (spans: unknown[], scope = 'itest') => ({
  resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: scope }, spans }] }],
});
const s = (key: string, v: string) => ({ key, value: { stringValue: v } });
const n = (key: string, v: number) => ({ key, value: { intValue: String(v) } });

/** spans recorded by a plain OTel tracer */
async function recordSpans(record: (tracer: ReturnType<BasicTracerProvider['getTracer']>) => void): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'otel-itest' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  record(provider.getTracer('otel-itest-scope', '1.0.0'));
  await provider.forceFlush();
  return memory.getFinishedSpans();
}
async function exportWith(exporter: SpanExporter, spans: ReadableSpan[]) {
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
  await exporter.shutdown();
  expect(result.error?.message).toBeUndefined();
  expect(result.code).toBe(ExportResultCode.SUCCESS);
}

describe('OTel ingestion: the Langfuse JS SDK', () => {
  it('stores a generation from startObservation(asType generation) with the usage and cost of the same generation sent to the batch endpoint', async () => {
    const model = unique('otel-model');
    await createModel(model);
    const { publicKey, secretKey } = inject('projectA');
    const processor = new LangfuseSpanProcessor({
      publicKey,
      secretKey,
      baseUrl: inject('baseUrl'),
      exportMode: 'immediate',
      mediaUploadEnabled: false,
      environment: 'otel-itest',
    });
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    setLangfuseTracerProvider(provider);
    const usageDetails = { input: 1200, output: 300, input_cached_tokens: 200 };
    let genId = '',
      traceId = '',
      spanId = '';
    try {
      const root = startObservation('otel-sdk-root', { input: { question: 'hi?' } });
      // what propagateAttributes() sets on each span it covers (it needs a context manager, which a bare provider lacks)
      root.otelSpan.setAttributes({
        [LF.TRACE_NAME]: 'otel-sdk-trace',
        [LF.TRACE_USER_ID]: 'otel-user',
        [LF.TRACE_SESSION_ID]: 'otel-session',
        [LF.TRACE_TAGS]: ['otel'],
      });
      root.setTraceIO({ input: { question: 'hi?' }, output: 'done' });
      const gen = root.startObservation(
        'otel-sdk-generation',
        {
          model,
          usageDetails,
          input: [{ role: 'user', content: 'Say hi' }],
          output: { role: 'assistant', content: 'Hi!' },
          modelParameters: { temperature: 0.2 },
        },
        { asType: 'generation' },
      );
      gen.end();
      root.end();
      ({ id: genId, traceId } = gen);
      spanId = root.id;
      await provider.forceFlush();
    } finally {
      setLangfuseTracerProvider(null);
      await provider.shutdown();
    }
    expect(genId).toMatch(/^[0-9a-f]{16}$/);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const otel = await observation(genId);
    expect(otel.status, JSON.stringify(otel.body)).toBe(200);
    expect(otel.body).toMatchObject({
      id: genId,
      traceId,
      parentObservationId: spanId,
      type: 'GENERATION',
      name: 'otel-sdk-generation',
      environment: 'otel-itest',
      model,
      input: [{ role: 'user', content: 'Say hi' }],
      output: { role: 'assistant', content: 'Hi!' },
      costStatus: 'inferred',
    });
    const trace = await raw(`/api/public/traces/${traceId}`);
    expect(trace.status).toBe(200);
    expect(trace.body).toMatchObject({
      id: traceId,
      name: 'otel-sdk-trace',
      userId: 'otel-user',
      sessionId: 'otel-session',
      tags: ['otel'],
      input: { question: 'hi?' },
      output: 'done',
      environment: 'otel-itest',
    });

    const batchId = unique('batch-gen');
    await batchGeneration({
      id: batchId,
      traceId: unique('batch-trace'),
      model,
      usageDetails,
      startTime: otel.body.startTime,
      endTime: otel.body.endTime,
    });
    const batch = await observation(batchId);
    expect(costView(otel.body)).toEqual(costView(batch.body));
    expect(otel.body.usageDetails).toMatchObject({ input: 1200, output: 300, input_cached_tokens: 200 });
    expect(otel.body.calculatedTotalCost).toBeGreaterThan(0);
  });
});

describe('OTel ingestion: plain OTLP exporters with gen_ai.* attributes', () => {
  const genAiSpan = (model: string) =>
    recordSpans((tracer) => {
      tracer
        .startSpan('chat', {
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'not-this-one',
            'gen_ai.response.model': model,
            'gen_ai.usage.input_tokens': 1400,
            'gen_ai.usage.output_tokens': 350,
            'gen_ai.usage.cache_read.input_tokens': 200,
            'gen_ai.usage.reasoning.output_tokens': 50,
          },
        })
        .end();
    });

  for (const [kind, make] of [
    [
      'protobuf',
      (compression: string) => new ProtoExporter({ url: url(), headers: { authorization: auth() }, compression: compression as never }),
    ],
    [
      'JSON',
      (compression: string) => new JsonExporter({ url: url(), headers: { authorization: auth() }, compression: compression as never }),
    ],
  ] as const) {
    for (const compression of ['gzip', 'none']) {
      it(`${kind}, compression ${compression}: usage buckets and cost equal the batch endpoint's`, async () => {
        const model = unique('otel-genai');
        await createModel(model);
        const spans = await genAiSpan(model);
        await exportWith(make(compression), spans);
        const id = spans[0]!.spanContext().spanId;
        const otel = await observation(id);
        expect(otel.status, JSON.stringify(otel.body)).toBe(200);
        expect(otel.body).toMatchObject({ type: 'GENERATION', traceId: spans[0]!.spanContext().traceId, model, costStatus: 'inferred' });
        expect(otel.body.usageDetails).toMatchObject({ input: 1200, output: 300, input_cached_tokens: 200, output_reasoning_tokens: 50 });
        const batchId = unique('batch-gen');
        await batchGeneration({
          id: batchId,
          traceId: unique('batch-trace'),
          model,
          usageDetails: { input: 1200, output: 300, input_cached_tokens: 200, output_reasoning_tokens: 50 },
        });
        expect(costView(otel.body)).toEqual(costView((await observation(batchId)).body));
      });
    }
  }

  it('gen_ai.usage.cost is an ingested total cost, as costDetails {total} is on the batch endpoint', async () => {
    const model = unique('otel-cost');
    await createModel(model);
    const spans = await recordSpans((t) =>
      t
        .startSpan('chat', {
          attributes: {
            'gen_ai.request.model': model,
            'gen_ai.usage.input_tokens': 10,
            'gen_ai.usage.output_tokens': 5,
            'gen_ai.usage.cost': 0.75,
          },
        })
        .end(),
    );
    await exportWith(new ProtoExporter({ url: url(), headers: { authorization: auth() } }), spans);
    const otel = await observation(spans[0]!.spanContext().spanId);
    const batchId = unique('batch-gen');
    await batchGeneration({
      id: batchId,
      traceId: unique('batch-trace'),
      model,
      usageDetails: { input: 10, output: 5 },
      costDetails: { total: 0.75 },
    });
    expect(otel.body).toMatchObject({ costStatus: 'ingested', costDetails: { total: 0.75 } });
    expect(costView(otel.body)).toEqual(costView((await observation(batchId)).body));
  });
});

describe('OTel ingestion: tokenizer inference', () => {
  it('a generation span without usage is tokenised and priced like the same generation on the batch endpoint', async () => {
    const model = unique('otel-tok');
    const res = await raw('/api/public/models', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        modelName: model,
        matchPattern: `(?i)^(${model})$`,
        unit: 'TOKENS',
        inputPrice: 1,
        outputPrice: 1,
        tokenizerId: 'openai',
        tokenizerConfig: { tokenizerModel: 'gpt-4o', tokensPerMessage: 3, tokensPerName: 1 },
      }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const input = [{ role: 'user', content: 'hello world' }];
    const spans = await recordSpans((t) =>
      t
        .startSpan('chat', {
          attributes: {
            'langfuse.observation.type': 'generation',
            'langfuse.observation.model.name': model,
            'langfuse.observation.input': JSON.stringify(input),
            'langfuse.observation.output': 'hello',
          },
        })
        .end(),
    );
    await exportWith(new JsonExporter({ url: url(), headers: { authorization: auth() } }), spans);
    const otel = await observation(spans[0]!.spanContext().spanId);
    expect(otel.body).toMatchObject({ usageDetails: { input: 9, output: 1, total: 10 }, costStatus: 'inferred' });
    const batchId = unique('batch-gen');
    await batchGeneration({ id: batchId, traceId: unique('batch-trace'), model, input, output: 'hello' });
    expect(costView(otel.body)).toEqual(costView((await observation(batchId)).body));
  });
});

describe('OTel ingestion: idempotence and ordering', () => {
  it('a re-sent export changes nothing', async () => {
    const traceId = hex(16),
      spanId = hex(8);
    const exp = exportOf([
      {
        traceId,
        spanId,
        name: 'gen',
        startTimeUnixNano: nanos('2026-11-22T10:00:00Z'),
        endTimeUnixNano: nanos('2026-11-22T10:00:01Z'),
        attributes: [s('gen_ai.request.model', 'gpt-4o'), n('gen_ai.usage.input_tokens', 10), n('gen_ai.usage.output_tokens', 3)],
      },
    ]);
    expect((await postJson(exp)).body).toEqual({});
    const first = await observation(spanId);
    const firstTrace = await raw(`/api/public/traces/${traceId}`);
    expect(first.status).toBe(200);
    await new Promise((r) => setTimeout(r, 20));
    expect((await postJson(exp)).body).toEqual({});
    const gz = await raw(PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify(exp)),
    });
    expect(gz.status).toBe(200);
    expect((await observation(spanId)).body).toEqual(first.body);
    expect((await raw(`/api/public/traces/${traceId}`)).body).toEqual(firstTrace.body);
  });

  it('spans of one trace split across exports in reverse order end up as one trace', async () => {
    const traceId = hex(16),
      root = hex(8),
      child = hex(8),
      grandchild = hex(8);
    const t = (sec: number) => nanos(`2026-11-22T10:00:0${sec}Z`);
    await postJson(
      exportOf([
        {
          traceId,
          spanId: grandchild,
          parentSpanId: child,
          name: 'grandchild',
          startTimeUnixNano: t(2),
          endTimeUnixNano: t(3),
          attributes: [s('gen_ai.request.model', 'gpt-4o'), n('gen_ai.usage.input_tokens', 4)],
        },
      ]),
    );
    await postJson(
      exportOf([
        {
          traceId,
          spanId: child,
          parentSpanId: root,
          name: 'child',
          startTimeUnixNano: t(1),
          endTimeUnixNano: t(4),
          attributes: [s('session.id', 'otel-split-session')],
        },
      ]),
    );
    const res = await postJson(
      exportOf([
        {
          traceId,
          spanId: root,
          name: 'root-span',
          startTimeUnixNano: t(0),
          endTimeUnixNano: t(5),
          attributes: [s('langfuse.trace.name', 'split-trace'), s('user.id', 'split-user')],
        },
      ]),
    );
    expect(res.status).toBe(200);
    const trace = await raw(`/api/public/traces/${traceId}`);
    expect(trace.status).toBe(200);
    expect(trace.body).toMatchObject({
      id: traceId,
      name: 'split-trace',
      userId: 'split-user',
      sessionId: 'otel-split-session',
      timestamp: '2026-11-22T10:00:00.000Z',
    });
    const obs = (trace.body.observations as { id: string; parentObservationId: string | null; type: string }[])
      .map((o) => [o.id, o.parentObservationId, o.type])
      .sort();
    expect(obs).toEqual(
      [
        [root, null, 'SPAN'],
        [child, root, 'SPAN'],
        [grandchild, child, 'GENERATION'],
      ].sort(),
    );
  });
});

describe('OTel ingestion: bad input is a 400 with a JSON message, never a 500', () => {
  it.each([
    ['malformed JSON', { 'content-type': 'application/json' }, '{"resourceSpans": [', 'Failed to parse OTel JSON Trace'],
    ['JSON that is not an object', { 'content-type': 'application/json' }, '[1,2]', 'Invalid OTLP trace export'],
    [
      'spans not a list',
      { 'content-type': 'application/json' },
      JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: 5 }] }] }),
      'Invalid OTLP trace export',
    ],
    [
      'attributes of the wrong type',
      { 'content-type': 'application/json' },
      JSON.stringify(exportOf([{ traceId: hex(16), spanId: hex(8), attributes: 'x' }])),
      'Invalid OTLP trace export',
    ],
    [
      'undecodable protobuf',
      { 'content-type': 'application/x-protobuf' },
      Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]),
      'Failed to parse OTel Protobuf Trace',
    ],
    ['another content type', { 'content-type': 'text/plain' }, 'hello', 'Invalid content type'],
    ['no content type', {}, undefined, 'Invalid content type'],
    [
      'gzip header on plain bytes',
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      '{"resourceSpans":[]}',
      'Failed to decompress request body',
    ],
    [
      'an unknown content encoding',
      { 'content-type': 'application/json', 'content-encoding': 'snappy' },
      '{"resourceSpans":[]}',
      'Failed to decompress request body',
    ],
    [
      'an ingestion version above 4',
      { 'content-type': 'application/json', 'x-langfuse-ingestion-version': '5' },
      '{"resourceSpans":[]}',
      'Invalid ingestion version',
    ],
    [
      'a non-numeric ingestion version',
      { 'content-type': 'application/json', 'x-langfuse-ingestion-version': 'v4' },
      '{"resourceSpans":[]}',
      'Invalid ingestion version',
    ],
  ])('%s', async (_what, headers, body, error) => {
    const res = await raw(PATH, { method: 'POST', headers: headers as Record<string, string>, body: body as BodyInit | undefined });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toMatchObject({ error });
    expect(typeof res.body.message).toBe('string');
  });

  it('takes the ingestion version the SDKs send', async () => {
    expect((await postJson({ resourceSpans: [] }, { 'x-langfuse-ingestion-version': '4' })).status).toBe(200);
  });

  it('401 without credentials', async () => {
    const res = await raw(PATH, { method: 'POST', project: null, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
  });

  it('a bad span is counted in partialSuccess (in protobuf when the request was); the others are stored', async () => {
    const spans = await recordSpans((t) => {
      t.startSpan('bad').end();
      t.startSpan('good').end();
    });
    const all = await fetch(url(), {
      method: 'POST',
      headers: { authorization: auth(), 'content-type': 'application/x-protobuf' },
      body: Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!),
    });
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toMatch(/application\/x-protobuf/);
    expect(decodeResponse(new Uint8Array(await all.arrayBuffer()))).toEqual({});
    // the same spans again, the first with a 4-byte span id, gzipped
    const [bad, good] = await recordSpans((t) => {
      t.startSpan('bad').end();
      t.startSpan('good').end();
    });
    const shortId = Object.assign(Object.create(bad!), {
      spanContext: () => ({ ...bad!.spanContext(), spanId: 'abcd1234' }),
    }) as ReadableSpan;
    const res = await fetch(url(), {
      method: 'POST',
      headers: { authorization: auth(), 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
      body: gzipSync(ProtobufTraceSerializer.serializeRequest([shortId, good!])!),
    });
    expect(res.status).toBe(200);
    expect(decodeResponse(new Uint8Array(await res.arrayBuffer()))).toEqual({
      partialSuccess: {
        rejectedSpans: '1',
        errorMessage: `span in trace ${bad!.spanContext().traceId}: spanId must be 8 bytes (16 hex characters), not all zero`,
      },
    });
    expect((await observation(good!.spanContext().spanId)).status).toBe(200);
    // in JSON
    const traceId = hex(16),
      fine = hex(8);
    const partial = await postJson(
      exportOf([
        { traceId, spanId: 'abcd', name: 'bad', startTimeUnixNano: nanos('2026-11-22T10:00:00Z') },
        { traceId, spanId: fine, name: 'good', startTimeUnixNano: nanos('2026-11-22T10:00:00Z') },
      ]),
    );
    expect(partial.status).toBe(200);
    expect(partial.body).toEqual({
      partialSuccess: {
        rejectedSpans: 1,
        errorMessage: `span in trace ${traceId}: spanId must be 8 bytes (16 hex characters), not all zero`,
      },
    });
    expect((await observation(fine)).status).toBe(200);
  });

  it('a span the ingestion schema refuses (text PostgreSQL cannot store) is rejected on its own', async () => {
    const traceId = hex(16),
      good = hex(8),
      bad = hex(8);
    const res = await postJson(
      exportOf([
        {
          traceId,
          spanId: bad,
          name: 'nul',
          startTimeUnixNano: nanos('2026-11-22T10:00:00Z'),
          attributes: [s('langfuse.observation.input', 'a\u0000b')],
        },
        { traceId, spanId: good, name: 'fine', startTimeUnixNano: nanos('2026-11-22T10:00:00Z') },
      ]),
    );
    expect(res.status).toBe(200);
    expect(res.body.partialSuccess.rejectedSpans).toBe(1);
    expect(res.body.partialSuccess.errorMessage).toContain(`span ${bad}`);
    expect((await observation(good)).status).toBe(200);
    expect((await observation(bad)).status).toBe(404);
  });
});
