// The `bedrock` adapter: the Converse API (ConverseStream when the caller streams) through AWS's
// own client, so SigV4 signing, Bedrock API keys (bearer) and the AWS event-stream framing are the
// SDK's, not ours. Every connection goes through an http(s) Agent whose lookup is egressLookup, so
// the address connected to is checked against the egress policy; the SDK does not retry
// (maxAttempts 1), the caller decides.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type BedrockRuntimeClientConfig,
  type ContentBlock,
  type ConverseCommandInput,
  type ConverseStreamOutput,
  type TokenUsage,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import {
  causeChain,
  classifyHttpError,
  egressRefusal,
  LlmError,
  redact,
  type LlmAdapterCall,
  type LlmCall,
  type LlmConnectionTarget,
  type LlmErrorKind,
  type LlmResult,
} from '../domain/llm/call.ts';
import { refusedHost, type AllowList } from '../domain/llm/egress.ts';
import { BEDROCK_DEFAULT_CREDENTIALS } from '../domain/llm-connections/validate.ts';
import { egressLookup } from '../egress/egress.ts';

type Credentials =
  | { kind: 'sigv4'; accessKeyId: string; secretAccessKey: string }
  | { kind: 'apiKey'; apiKey: string }
  | { kind: 'default' };

function parseCredentials(secretKey: string): Credentials {
  if (secretKey === BEDROCK_DEFAULT_CREDENTIALS) return { kind: 'default' };
  let o: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(secretKey);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) o = parsed as Record<string, unknown>;
  } catch {
    // reported below without echoing the secret
  }
  if (o && typeof o.accessKeyId === 'string' && o.accessKeyId && typeof o.secretAccessKey === 'string' && o.secretAccessKey) {
    return { kind: 'sigv4', accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey };
  }
  if (o && typeof o.apiKey === 'string' && o.apiKey) return { kind: 'apiKey', apiKey: o.apiKey };
  throw new LlmError(
    'invalid_request',
    'Invalid Bedrock credentials. Expected a JSON object with either {accessKeyId, secretAccessKey} or {apiKey}.',
  );
}

function secretsOf(connection: LlmConnectionTarget, creds: Credentials | null): string[] {
  const fromCreds = creds?.kind === 'sigv4' ? [creds.accessKeyId, creds.secretAccessKey] : creds?.kind === 'apiKey' ? [creds.apiKey] : [];
  const whole = connection.secretKey === BEDROCK_DEFAULT_CREDENTIALS ? [] : [connection.secretKey];
  return [...whole, ...fromCreds, ...Object.values(connection.extraHeaders).filter((v) => v.length >= 8)];
}

/** provider options go to additionalModelRequestFields verbatim; a nested `bedrock: {…}` is merged at the top, as in Langfuse */
export function bedrockAdditionalFields(options: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const { bedrock: nested, ...top } = options ?? {};
  const out = { ...top, ...(nested && typeof nested === 'object' && !Array.isArray(nested) ? (nested as Record<string, unknown>) : {}) };
  return Object.keys(out).length ? out : undefined;
}

export function converseInput(call: LlmCall): ConverseCommandInput {
  const system = call.messages.filter((m) => m.role === 'system').map((m) => ({ text: m.content }));
  const p = call.params;
  // Converse has no frequency/presence penalty or n: they are not sent
  const inferenceConfig = Object.fromEntries(
    Object.entries({ maxTokens: p.max_tokens, temperature: p.temperature, topP: p.top_p }).filter(([, v]) => v !== undefined),
  );
  const input: ConverseCommandInput = {
    modelId: call.model,
    messages: call.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: [{ text: m.content }] })),
  };
  if (system.length) input.system = system;
  if (Object.keys(inferenceConfig).length) input.inferenceConfig = inferenceConfig;
  if (call.tools?.length) {
    input.toolConfig = {
      tools: call.tools.map((t) => ({
        toolSpec: {
          name: t.name,
          ...(t.description === undefined ? {} : { description: t.description }),
          inputSchema: { json: t.parameters as never },
        },
      })),
      ...(call.toolChoice ? { toolChoice: { tool: { name: call.toolChoice.name } } } : {}),
    };
  }
  const additional = bedrockAdditionalFields(call.providerOptions);
  if (additional) input.additionalModelRequestFields = additional as never;
  return input;
}

const asUsage = (u: TokenUsage | undefined) => (u && typeof u === 'object' ? ({ ...u } as Record<string, unknown>) : null);

export function parseConverse(content: ContentBlock[] | undefined, usage: TokenUsage | undefined, model: string): LlmResult {
  const texts: string[] = [];
  const toolCalls: LlmResult['toolCalls'] = [];
  for (const block of content ?? []) {
    if (typeof block.text === 'string') texts.push(block.text);
    else if (block.toolUse?.name) toolCalls.push({ name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) });
  }
  // Converse does not name the model that answered; the one asked for is the best there is
  return { text: texts.length ? texts.join('') : null, toolCalls, usage: asUsage(usage), model };
}

function client(connection: LlmConnectionTarget, call: LlmCall, creds: Credentials, egress: AllowList, region: string) {
  const lookup = egressLookup(egress) as never;
  const handler = new NodeHttpHandler({
    // keepAlive off: the client lives for one call, and its sockets must not outlive it
    httpAgent: new http.Agent({ keepAlive: false, lookup }),
    httpsAgent: new https.Agent({ keepAlive: false, lookup }),
    connectionTimeout: call.timeoutMs,
    requestTimeout: call.timeoutMs,
    throwOnRequestTimeout: true,
  });
  const config: BedrockRuntimeClientConfig = {
    region,
    requestHandler: handler,
    maxAttempts: 1,
    retryMode: 'standard',
    // explicit, so that nothing is read from the environment, ~/.aws or IMDS for these
    defaultsMode: 'standard',
    useFipsEndpoint: false,
    useDualstackEndpoint: false,
    userAgentAppId: 'tally',
  };
  if (connection.baseUrl) config.endpoint = connection.baseUrl;
  if (creds.kind === 'sigv4') {
    config.credentials = { accessKeyId: creds.accessKeyId, secretAccessKey: creds.secretAccessKey };
    // else AWS_BEARER_TOKEN_BEDROCK in the environment would switch a stored key pair to bearer
    config.authSchemePreference = ['sigv4'];
  } else if (creds.kind === 'apiKey') {
    // Bedrock API keys: the SDK's httpBearerAuth scheme sends `Authorization: Bearer <token>`
    config.token = { token: creds.apiKey };
    config.authSchemePreference = ['httpBearerAuth'];
  }
  const sdk = new BedrockRuntimeClient(config);
  const headers = Object.entries(connection.extraHeaders);
  if (headers.length) {
    // at build, before signing: SigV4 then covers them like any other header
    sdk.middlewareStack.add(
      (next) => async (args) => {
        const req = args.request as { headers?: Record<string, string> };
        if (req.headers) for (const [k, v] of headers) req.headers[k] = v;
        return next(args);
      },
      { step: 'build', name: 'tallyExtraHeaders' },
    );
  }
  return sdk;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
  'ERR_SOCKET_CLOSED',
]);
const AUTH_EXCEPTIONS = new Set([
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'IncompleteSignatureException',
]);

/** an SDK failure as an LlmError, the secrets redacted from its message */
export function bedrockError(err: unknown, secrets: readonly string[], timedOut: boolean): LlmError {
  if (err instanceof LlmError) return err;
  const clean = (m: string) => redact(m, secrets);
  const refused = egressRefusal(err, secrets);
  if (refused) return refused;
  const errs = causeChain(err);
  const e = (err && typeof err === 'object' ? err : {}) as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = String(e.name ?? 'Error');
  const message = String(e.message ?? err);
  if (timedOut || name === 'TimeoutError' || name === 'AbortError') return new LlmError('timeout', 'the provider did not answer in time');
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 300) {
    let kind: LlmErrorKind = classifyHttpError(status, `${name} ${message}`);
    if (kind === 'provider_error' || kind === 'model_unavailable') {
      if (status === 403 && AUTH_EXCEPTIONS.has(name)) kind = 'auth_invalid';
      else if (name === 'ThrottlingException') kind = 'rate_limited';
      else if (name === 'ResourceNotFoundException' || (name === 'ValidationException' && /model identifier is invalid/i.test(message)))
        kind = 'model_unavailable';
    }
    return new LlmError(kind, clean(`${name}: ${message}`), status);
  }
  // an exception event inside a ConverseStream answer carries no status of its own
  if (name === 'ThrottlingException') return new LlmError('rate_limited', clean(`${name}: ${message}`));
  const net = errs.find((x) => typeof x.code === 'string' && NETWORK_CODES.has(x.code));
  if (net) return new LlmError('unreachable', clean(`the provider is unreachable: ${String(net.message ?? net.code)}`));
  return new LlmError('provider_error', clean(`${name}: ${message}`));
}

async function readStream(stream: AsyncIterable<ConverseStreamOutput>, onText: (delta: string) => void, model: string): Promise<LlmResult> {
  const blocks = new Map<number, { text?: string; tool?: { name: string; input: string } }>();
  let usage: TokenUsage | undefined;
  for await (const event of stream) {
    for (const [key, value] of Object.entries(event)) {
      // the SDK throws modelled exception events itself; anything else named so is one too
      if (key.endsWith('Exception') && value)
        throw Object.assign(new Error(String((value as { message?: string }).message ?? key)), {
          name: key[0]!.toUpperCase() + key.slice(1),
        });
    }
    if (event.contentBlockStart) {
      const tool = event.contentBlockStart.start?.toolUse;
      if (tool?.name) blocks.set(event.contentBlockStart.contentBlockIndex ?? 0, { tool: { name: tool.name, input: '' } });
    } else if (event.contentBlockDelta) {
      const i = event.contentBlockDelta.contentBlockIndex ?? 0;
      const d = event.contentBlockDelta.delta;
      const block = blocks.get(i) ?? {};
      if (typeof d?.text === 'string') {
        block.text = (block.text ?? '') + d.text;
        onText(d.text);
      } else if (d?.toolUse && block.tool) {
        block.tool.input += d.toolUse.input ?? '';
      }
      blocks.set(i, block);
    } else if (event.metadata) {
      usage = event.metadata.usage;
    }
  }
  const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
  const texts = ordered.flatMap((b) => (b.text === undefined ? [] : [b.text]));
  // the streamed tool input is the JSON text; `{}` when the model sent none, as the non-streaming path does
  const toolCalls = ordered.flatMap((b) => (b.tool ? [{ name: b.tool.name, arguments: b.tool.input || '{}' }] : []));
  return { text: texts.length ? texts.join('') : null, toolCalls, usage: asUsage(usage), model };
}

export const callBedrock: LlmAdapterCall = async (connection, call, egress) => {
  let creds: Credentials | null = null;
  let secrets = secretsOf(connection, null);
  const deadline = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([deadline, call.signal]) : deadline;
  let sdk: BedrockRuntimeClient | null = null;
  try {
    creds = parseCredentials(connection.secretKey);
    secrets = secretsOf(connection, creds);
    const region = connection.config?.region;
    if (typeof region !== 'string' || !region)
      throw new LlmError('invalid_request', 'Config is required for Bedrock adapter. Expected: { region: string }');
    if (connection.baseUrl) {
      // a connection to an IP literal skips `lookup`, so it is checked here
      const host = new URL(connection.baseUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
      const why = isIP(host) ? refusedHost(host, [host], egress) : null;
      if (why) throw new LlmError('egress_refused', `refused by the egress policy: ${why}`);
    }
    sdk = client(connection, call, creds, egress, region);
    const input = converseInput(call);
    if (!call.onText) {
      const out = await sdk.send(new ConverseCommand(input), { abortSignal: signal });
      return parseConverse(out.output?.message?.content, out.usage, call.model);
    }
    const out = await sdk.send(new ConverseStreamCommand(input), { abortSignal: signal });
    if (!out.stream) throw new LlmError('provider_error', 'Bedrock answered ConverseStream without a stream');
    return await readStream(out.stream, call.onText, call.model);
  } catch (err) {
    throw bedrockError(err, secrets, signal.aborted);
  } finally {
    sdk?.destroy();
  }
};
