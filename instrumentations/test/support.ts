// Shared harness of the instrumentation tests: a fake OpenAI/Anthropic on loopback whose bill is
// known exactly, the suite's in-process Tally server (started once by the integration suite's
// global setup) behind a recording proxy (every export or batch a producer sends is kept, decoded,
// for the assertions and for TALLY_INSTRUMENTATION_DUMP), and reading back what Tally stored.
// Nothing a test sends leaves loopback.
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { expect, inject } from 'vitest';
import type {} from '../../server/test/integration/global-setup.ts';
import { json, sse, startFakeProvider, type FakeProvider, type Received } from '../../server/test/support/fake-provider.ts';
import { basic } from '../../server/test/support/start.ts';
import { decodeJsonText, decodeProtobuf, type OtlpExport } from '../../server/src/ingestion/otel/decode.ts';
import { attributes } from '../../server/src/ingestion/otel/map.ts';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { LangfuseSpanProcessor } from '@langfuse/otel';

// ------------------------------------------------------------------------------ the bill

export const OPENAI_MODEL = 'gpt-4o-mini';
/** what OpenAI answers in `model` for a request of gpt-4o-mini */
export const OPENAI_RESPONSE_MODEL = 'gpt-4o-mini-2024-07-18';
export const ANTHROPIC_MODEL = 'claude-haiku-4-5';
export const ANTHROPIC_RESPONSE_MODEL = 'claude-haiku-4-5-20251001';

/** Chat Completions usage: 1,200 prompt tokens of which 200 cached, 300 completion tokens of which 100 reasoning */
export const OPENAI_CHAT_USAGE = {
  prompt_tokens: 1200,
  completion_tokens: 300,
  total_tokens: 1500,
  prompt_tokens_details: { cached_tokens: 200, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 100, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};
/** the same counts as the Responses API reports them */
export const OPENAI_RESPONSES_USAGE = {
  input_tokens: 1200,
  input_tokens_details: { cached_tokens: 200 },
  output_tokens: 300,
  output_tokens_details: { reasoning_tokens: 100 },
  total_tokens: 1500,
};
/** Anthropic: input_tokens already excludes cache reads and writes */
export const ANTHROPIC_USAGE = { input_tokens: 1000, cache_read_input_tokens: 200, cache_creation_input_tokens: 100, output_tokens: 300 };

/**
 * USD, as the providers bill these calls:
 * OpenAI gpt-4o-mini: 1,000 uncached input at $0.15/M + 200 cached at $0.075/M + 300 output (reasoning included) at $0.60/M;
 * Anthropic claude-haiku-4-5: 1,000 input at $1/M + 300 output at $5/M + 200 cache read at $0.10/M + 100 cache write at $1.25/M.
 */
export const BILL = {
  openai: (1000 * 0.15 + 200 * 0.075 + 300 * 0.6) / 1e6, // 0.000345
  anthropic: (1000 * 1 + 300 * 5 + 200 * 0.1 + 100 * 1.25) / 1e6, // 0.002645
} as const;
export type Provider = keyof typeof BILL;

export const ANSWER_TEXT = 'Hello from the fake provider.';

// ------------------------------------------------------------------------------ fake provider

const now = () => Math.floor(Date.now() / 1000);

function chatCompletion(res: http.ServerResponse, body: any) {
  const base = {
    id: 'chatcmpl-fake',
    created: now(),
    model: OPENAI_RESPONSE_MODEL,
    system_fingerprint: 'fp_fake',
    service_tier: 'default',
  };
  if (!body?.stream) {
    return json(res, 200, {
      ...base,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: ANSWER_TEXT, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: OPENAI_CHAT_USAGE,
    });
  }
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices,
    ...extra,
  });
  const includeUsage = body.stream_options?.include_usage === true;
  const [first, second] = [ANSWER_TEXT.slice(0, 10), ANSWER_TEXT.slice(10)];
  sse(
    res,
    [
      chunk(
        [{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }],
        includeUsage ? { usage: null } : {},
      ),
      chunk([{ index: 0, delta: { content: first }, logprobs: null, finish_reason: null }], includeUsage ? { usage: null } : {}),
      chunk([{ index: 0, delta: { content: second }, logprobs: null, finish_reason: null }], includeUsage ? { usage: null } : {}),
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], includeUsage ? { usage: null } : {}),
      ...(includeUsage ? [chunk([], { usage: OPENAI_CHAT_USAGE })] : []),
    ],
    { done: true },
  );
}

function responsesResponse(res: http.ServerResponse, body: any) {
  const message = {
    type: 'message',
    id: 'msg_fake',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: ANSWER_TEXT, annotations: [], logprobs: [] }],
  };
  const response = {
    id: 'resp_fake',
    object: 'response',
    created_at: now(),
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: OPENAI_RESPONSE_MODEL,
    output: [message],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: OPENAI_RESPONSES_USAGE,
    user: null,
    metadata: {},
  };
  if (!body?.stream) return json(res, 200, response);
  const inProgress = { ...response, status: 'in_progress', output: [], usage: null };
  const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) => ({ event: type, data: { type, sequence_number: seq++, ...data } });
  sse(res, [
    ev('response.created', { response: inProgress }),
    ev('response.in_progress', { response: inProgress }),
    ev('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } }),
    ev('response.content_part.added', { item_id: 'msg_fake', output_index: 0, content_index: 0, part }),
    ev('response.output_text.delta', { item_id: 'msg_fake', output_index: 0, content_index: 0, delta: ANSWER_TEXT, logprobs: [] }),
    ev('response.output_text.done', { item_id: 'msg_fake', output_index: 0, content_index: 0, text: ANSWER_TEXT, logprobs: [] }),
    ev('response.content_part.done', { item_id: 'msg_fake', output_index: 0, content_index: 0, part: { ...part, text: ANSWER_TEXT } }),
    ev('response.output_item.done', { output_index: 0, item: message }),
    ev('response.completed', { response }),
  ]);
}

function anthropicMessage(res: http.ServerResponse, body: any) {
  const message = { id: 'msg_fake', type: 'message', role: 'assistant', model: ANTHROPIC_RESPONSE_MODEL, stop_sequence: null };
  if (!body?.stream) {
    return json(res, 200, { ...message, content: [{ type: 'text', text: ANSWER_TEXT }], stop_reason: 'end_turn', usage: ANTHROPIC_USAGE });
  }
  sse(res, [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, usage: { ...ANTHROPIC_USAGE, output_tokens: 1 } },
      },
    },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    { event: 'ping', data: { type: 'ping' } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ANSWER_TEXT } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: ANTHROPIC_USAGE.output_tokens },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

/** answers OpenAI Chat Completions and Responses (`/v1/...`) and Anthropic Messages, streamed or not */
function answer(req: Received, res: http.ServerResponse) {
  const path = req.path.split('?')[0]!;
  if (req.method === 'POST' && path.endsWith('/chat/completions')) return chatCompletion(res, req.body);
  if (req.method === 'POST' && path.endsWith('/responses')) return responsesResponse(res, req.body);
  if (req.method === 'POST' && path.endsWith('/messages')) return anthropicMessage(res, req.body);
  json(res, 404, { error: { message: `the fake provider does not answer ${req.method} ${req.path}` } });
}

// ------------------------------------------------------------------------------ recording proxy

export interface Captured {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  status: number;
  /** OTLP exports, decoded */
  otlp?: OtlpExport;
  /** batch ingestion and other JSON bodies */
  json?: any;
  response?: string;
}

function decompress(buf: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'gzip') return gunzipSync(buf);
  if (encoding === 'deflate') return inflateSync(buf);
  if (encoding === 'br') return brotliDecompressSync(buf);
  return buf;
}

/** a loopback proxy in front of Tally that keeps every request it forwards */
async function startRecordingProxy(target: string): Promise<{ url: string; captured: Captured[]; close(): Promise<void> }> {
  const captured: Captured[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          ([k]) => !['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(k),
        ),
      ) as Record<string, string>;
      let upstream: Response;
      try {
        upstream = await fetch(target + req.url, {
          method: req.method,
          headers,
          body: ['GET', 'HEAD'].includes(req.method!) ? undefined : body,
        });
      } catch (e) {
        captured.push({
          method: req.method!,
          path: req.url!,
          headers: req.headers,
          status: 502,
          response: `the proxy could not reach Tally: ${e}`,
        });
        res.writeHead(502).end();
        return;
      }
      const answer = Buffer.from(await upstream.arrayBuffer());
      const c: Captured = { method: req.method!, path: req.url!, headers: req.headers, status: upstream.status };
      try {
        const plain = decompress(body, req.headers['content-encoding']);
        const type = String(req.headers['content-type'] ?? '');
        if (req.url!.includes('/otel/v1/traces'))
          c.otlp = type.includes('json') ? decodeJsonText(plain.toString('utf8')) : decodeProtobuf(plain);
        else if (type.includes('json') && plain.length) c.json = JSON.parse(plain.toString('utf8'));
      } catch (e) {
        c.json = { undecodable: String(e) };
      }
      if (upstream.status >= 300 || !c.otlp) c.response = answer.toString('utf8').slice(0, 4000);
      captured.push(c);
      const out: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
      });
      res.writeHead(upstream.status, out);
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    captured,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// ------------------------------------------------------------------------------ the harness

export interface Harness {
  /** the fake provider, e.g. `${provider.url}/v1` as an OpenAI base URL */
  provider: FakeProvider;
  /** Tally as the producers see it (through the recording proxy) */
  tallyUrl: string;
  /** OTLP/HTTP traces endpoint (through the proxy) */
  otlpUrl: string;
  publicKey: string;
  secretKey: string;
  /** `Basic base64(pk:sk)` */
  authorization: string;
  /** what the producers sent to Tally since the last reset() */
  captured: Captured[];
  /** Tally itself, for reading back (not recorded) */
  baseUrl: string;
  reset(): void;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const provider = await startFakeProvider('127.0.0.1');
  provider.answer = answer;
  const baseUrl = inject('baseUrl');
  const keys = inject('projectA');
  const proxy = await startRecordingProxy(baseUrl);
  return {
    provider,
    baseUrl,
    publicKey: keys.publicKey,
    secretKey: keys.secretKey,
    tallyUrl: proxy.url,
    otlpUrl: `${proxy.url}/api/public/otel/v1/traces`,
    authorization: basic(keys),
    captured: proxy.captured,
    reset() {
      provider.reset();
      proxy.captured.length = 0;
    },
    async close() {
      await proxy.close();
      await provider.close();
    },
  };
}

// ------------------------------------------------------------------------------ exporters

/** an OTLP/HTTP (protobuf) exporter to Tally with Basic auth, as the OTel docs set one up */
export const otlpExporter = (h: Harness) => new OTLPTraceExporter({ url: h.otlpUrl, headers: { Authorization: h.authorization } });

/** Langfuse's own span processor pointed at Tally, as the Langfuse docs set it up (batched: flush before reading) */
export const langfuseProcessor = (h: Harness) =>
  new LangfuseSpanProcessor({ publicKey: h.publicKey, secretKey: h.secretKey, baseUrl: h.tallyUrl, mediaUploadEnabled: false });

/**
 * A Node tracer provider registered as the global one (with the AsyncLocalStorage context
 * manager), exporting through `processor`, by default the plain OTLP exporter to Tally.
 */
export function registerTracerProvider(
  h: Harness,
  serviceName: string,
  processor: SpanProcessor = new SimpleSpanProcessor(otlpExporter(h)),
): NodeTracerProvider {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [processor],
  });
  provider.register();
  return provider;
}

// ------------------------------------------------------------------------------ what was sent

export interface SentSpan {
  scope: string;
  scopeVersion?: string;
  name: string;
  kind?: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  events?: { name?: string; attributes: Record<string, unknown> }[];
}

const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : '');

/** every span of the captured OTLP exports, flattened */
export function sentSpans(captured: Captured[]): SentSpan[] {
  const out: SentSpan[] = [];
  for (const c of captured) {
    for (const rs of c.otlp?.resourceSpans ?? []) {
      const resource = attributes(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          out.push({
            scope: ss.scope?.name ?? '',
            ...(ss.scope?.version ? { scopeVersion: ss.scope.version } : {}),
            name: s.name ?? '',
            kind: s.kind,
            traceId: hex(s.traceId),
            spanId: hex(s.spanId),
            parentSpanId: hex(s.parentSpanId),
            attributes: attributes(s.attributes),
            resource,
            ...(s.events?.length ? { events: s.events.map((e) => ({ name: e.name, attributes: attributes(e.attributes) })) } : {}),
          });
        }
      }
    }
  }
  return out;
}

/** the batch ingestion events captured (langfuse v3) */
export function sentEvents(captured: Captured[]): any[] {
  return captured.filter((c) => c.path.startsWith('/api/public/ingestion')).flatMap((c) => c.json?.batch ?? []);
}

/** the trace ids the producer sent, in order of first appearance */
export function sentTraceIds(captured: Captured[]): string[] {
  const ids = [
    ...sentSpans(captured).map((s) => s.traceId),
    ...sentEvents(captured).map((e) => e.body?.traceId ?? (e.type === 'trace-create' ? e.body?.id : undefined)),
  ];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
}

/**
 * With TALLY_INSTRUMENTATION_DUMP=<dir>, writes what the producer sent (headers, decoded spans or
 * batch events) and what Tally stored to <dir>/<name>.json, for reading the mapping by eye.
 */
export function dump(name: string, h: Harness, stored: unknown) {
  const dir = process.env.TALLY_INSTRUMENTATION_DUMP;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const requests = h.captured.map((c) => ({
    method: c.method,
    path: c.path,
    status: c.status,
    headers: Object.fromEntries(Object.entries(c.headers).filter(([k]) => k !== 'authorization')),
    ...(c.response ? { response: c.response } : {}),
    ...(c.json ? { json: c.json } : {}),
  }));
  writeFileSync(
    join(dir, `${name.replace(/[^a-z0-9._-]+/gi, '_')}.json`),
    JSON.stringify({ requests, spans: sentSpans(h.captured), stored }, null, 2),
  );
}

// ------------------------------------------------------------------------------ what Tally stored

async function get(h: Harness, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(h.baseUrl + path, { headers: { authorization: h.authorization } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** GET /api/public/traces/{id}: the trace with its observations, or null when Tally has none */
export async function storedTrace(h: Harness, traceId: string): Promise<any | null> {
  const res = await get(h, `/api/public/traces/${encodeURIComponent(traceId)}`);
  if (res.status === 404) return null;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** the one trace the producer sent for a call (asserted), as Tally stored it */
export async function theStoredTrace(h: Harness): Promise<any> {
  const exportsFailed = h.captured.filter((c) => c.status >= 300);
  expect(
    exportsFailed.map((c) => `${c.method} ${c.path} → ${c.status} ${c.response ?? ''}`),
    'every export/batch Tally received was accepted',
  ).toEqual([]);
  const ids = sentTraceIds(h.captured);
  expect(ids, 'the producer sent exactly one trace for the call').toHaveLength(1);
  const trace = await storedTrace(h, ids[0]!);
  expect(trace, `Tally stored trace ${ids[0]}`).not.toBeNull();
  return trace;
}

export const generationsOf = (trace: any): any[] => (trace?.observations ?? []).filter((o: any) => o.type === 'GENERATION');

/** the fields of a stored observation a cost reader looks at */
export const costView = (o: any) => ({
  id: o.id,
  name: o.name,
  type: o.type,
  model: o.model,
  usageDetails: o.usageDetails,
  costDetails: o.costDetails,
  calculatedTotalCost: o.calculatedTotalCost,
  costStatus: o.costStatus,
  unpricedUsageKeys: o.unpricedUsageKeys,
});

export interface TraceExpectation {
  userId?: string;
  sessionId?: string;
  /** every one of these must be among the trace's tags */
  tags?: string[];
  /** the trace name must contain this */
  nameContains?: string;
  /** the producer sends input/output: the trace must carry them */
  io?: boolean;
  /**
   * The producer sends no usage for this call, so no one can know the bill from what reaches
   * Tally: the best its data allows is a generation priced from tokenized input/output.
   */
  noUsageSent?: boolean;
  /**
   * The producer's own token counts differ from the provider's (a bug of the producer, not of
   * Tally): the cost its counts give, and why. Asserted instead of the bill.
   */
  producerCounts?: { cost: number; why: string };
}

/**
 * The bill and the trace, as soft expectations (every difference is reported, not just the
 * first): exactly one GENERATION, whose cost is the provider's bill within 1e-9 with every
 * bucket priced, the trace's total cost the same bill, and the trace attributes the producer sent.
 */
export function expectBillAndTrace(trace: any, provider: Provider, want: TraceExpectation) {
  const bill = want.producerCounts?.cost ?? BILL[provider];
  const gens = generationsOf(trace);
  const summary = JSON.stringify({
    observations: (trace?.observations ?? []).map((o: any) => ({
      name: o.name,
      type: o.type,
      cost: o.calculatedTotalCost,
      costStatus: o.costStatus,
      usageDetails: o.usageDetails,
    })),
    totalCost: trace?.totalCost,
  });
  expect.soft(gens.length, `exactly one GENERATION for the call: ${summary}`).toBe(1);
  // with several, the one a call is: a generation with no generation under it
  const gen = gens.find((g) => !gens.some((o) => o.parentObservationId === g.id)) ?? gens[0];
  if (gen) {
    expect.soft(gen.model ?? '', 'the generation names the model').toMatch(provider === 'openai' ? /^gpt-4o-mini/ : /^claude-haiku-4-5/);
  }
  if (gen && want.noUsageSent) {
    expect.soft(gen.costStatus, `no usage sent: priced from the tokenizer's counts (${JSON.stringify(costView(gen))})`).toBe('inferred');
    expect.soft(gen.calculatedTotalCost, 'no usage sent: a tokenizer-based cost').toBeGreaterThan(0);
    expect
      .soft(Math.abs((trace?.totalCost ?? NaN) - gen.calculatedTotalCost), "trace totalCost is the one generation's")
      .toBeLessThan(1e-12);
  } else if (gen) {
    expect
      .soft(
        Math.abs((gen.calculatedTotalCost ?? NaN) - bill),
        `generation cost ${gen.calculatedTotalCost} is the bill ${bill} (${JSON.stringify(costView(gen))})`,
      )
      .toBeLessThan(1e-9);
    expect
      .soft(Math.abs((gen.costDetails?.total ?? NaN) - bill), `costDetails.total ${gen.costDetails?.total} is the bill ${bill}`)
      .toBeLessThan(1e-9);
    expect.soft(gen.costStatus, `every usage bucket priced (unpriced: ${JSON.stringify(gen.unpricedUsageKeys)})`).toBe('inferred');
  }
  if (!want.noUsageSent)
    expect
      .soft(Math.abs((trace?.totalCost ?? NaN) - bill), `trace totalCost ${trace?.totalCost} is the bill ${bill} (no double counting)`)
      .toBeLessThan(1e-9);
  if (want.userId !== undefined) expect.soft(trace?.userId, 'trace userId').toBe(want.userId);
  if (want.sessionId !== undefined) expect.soft(trace?.sessionId, 'trace sessionId').toBe(want.sessionId);
  if (want.tags) expect.soft(trace?.tags ?? [], 'trace tags').toEqual(expect.arrayContaining(want.tags));
  if (want.nameContains !== undefined) expect.soft(trace?.name ?? '', 'trace name').toContain(want.nameContains);
  if (want.io) {
    expect.soft(trace?.input ?? null, 'trace input').not.toBeNull();
    expect.soft(trace?.output ?? null, 'trace output').not.toBeNull();
  }
}

/** user, session and tags every test sets, with a per-call suffix so traces never mix */
export function traceAttributesFor(call: string) {
  return { userId: `user-${call}`, sessionId: `session-${call}`, tags: ['instrumentation-test', call] };
}
