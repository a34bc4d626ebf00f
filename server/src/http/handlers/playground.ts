// POST /api/public/playground/completions: a call through a connection, answered whole or as
// server-sent events, and recorded as a trace with one generation (environment
// tally-playground) through the ingestion pipeline, so its usage is normalised and priced the
// way an ingested generation's is.
import { randomUUID } from 'node:crypto';
import type { PlaygroundCompletion, PlaygroundCompletionRequest } from '../../../../generated/client/types.gen.ts';
import { LlmError, type LlmParams } from '../../domain/llm/call.ts';
import { applyBatch } from '../../ingestion/pipeline.ts';
import { callThroughConnection, ConnectionSecretsUnreadable, type GatewayResult } from '../../services/llm-gateway.ts';
import { getConnectionByProvider, type StoredConnection } from '../../store/llm-connections.ts';
import { getObservation } from '../../store/observations.ts';
import { kysely } from '../../store/sql.ts';
import { ApiError, invalidData, notFound } from '../errors.ts';
import { projectOf, type HandlerContext, type OperationHandler } from '../handler.ts';
import { createEventValidator, type AcceptedEvent } from '../ingestion-events.ts';
import { llmErrorBody, llmErrorStatus } from '../llm-call-error.ts';

export const PLAYGROUND_ENVIRONMENT = 'tally-playground';
const PARAMS = ['temperature', 'top_p', 'max_tokens', 'frequency_penalty', 'presence_penalty', 'n'] as const;
const validateEvent = createEventValidator();

export const unreadableSecrets = (e: ConnectionSecretsUnreadable) => new ApiError(503, `${e.message}. Set the ENCRYPTION_KEY the connection was stored under (or ENCRYPTION_KEY_PREVIOUS during a rotation).`, 'EncryptionKeyMissingError');

export const playgroundCompletions: OperationHandler = async (ctx) => {
  const projectId = projectOf(ctx);
  const req = ctx.body as PlaygroundCompletionRequest;
  if (req.toolChoice && !(req.tools ?? []).some((t) => t.name === req.toolChoice!.name)) {
    throw invalidData([{ code: 'custom', path: ['toolChoice', 'name'], message: `toolChoice names "${req.toolChoice.name}", which is not one of tools` }]);
  }
  const connection = await getConnectionByProvider(ctx.em, projectId, req.provider);
  if (!connection) throw notFound(`No LLM connection with provider "${req.provider}" in this project`);

  const params: LlmParams = {};
  for (const k of PARAMS) if (req[k] !== undefined) params[k] = req[k];
  const started = new Date();
  let firstText: Date | null = null;
  const call = (onText?: (delta: string) => void) =>
    callThroughConnection(ctx.services, connection, {
      model: req.model, messages: req.messages, params, tools: req.tools, toolChoice: req.toolChoice,
      providerOptions: req.providerOptions, signal: ctx.signal,
      onText: onText && ((d) => { firstText ??= new Date(); onText(d); }),
    });
  const record = (result: GatewayResult) => recordCall(ctx, projectId, connection, req, params, result, started, firstText);

  if (req.stream) {
    return {
      status: 200, body: null,
      stream: async (send) => {
        try {
          const result = await call((text) => send('delta', { text }));
          send('completion', await record(result));
        } catch (e) {
          if (e instanceof LlmError) send('error', llmErrorBody(e));
          else if (e instanceof ConnectionSecretsUnreadable) send('error', unreadableSecrets(e).body);
          else throw e;
        }
      },
    };
  }
  try {
    return { status: 200, body: await record(await call()) };
  } catch (e) {
    if (e instanceof LlmError) return { status: llmErrorStatus(e), body: llmErrorBody(e) };
    if (e instanceof ConnectionSecretsUnreadable) throw unreadableSecrets(e);
    throw e;
  }
};

async function recordCall(ctx: HandlerContext, projectId: string, connection: StoredConnection, req: PlaygroundCompletionRequest, params: LlmParams, result: GatewayResult, started: Date, firstText: Date | null): Promise<PlaygroundCompletion> {
  const ended = new Date();
  const traceId = randomUUID();
  const observationId = randomUUID();
  const at = started.toISOString();
  const generation = (usageDetails: unknown) => ({
    id: randomUUID(), timestamp: at, type: 'generation-create',
    body: {
      id: observationId, traceId, name: 'playground-completion', environment: PLAYGROUND_ENVIRONMENT,
      startTime: at, endTime: ended.toISOString(), ...(firstText ? { completionStartTime: firstText.toISOString() } : {}),
      model: req.model, modelParameters: params, input: req.messages,
      output: { role: 'assistant', content: result.text, ...(result.toolCalls.length ? { tool_calls: result.toolCalls } : {}) },
      metadata: { provider: connection.provider, adapter: connection.adapter, responseModel: result.model },
      ...(usageDetails == null ? {} : { usageDetails }),
    },
  });
  const trace = { id: randomUUID(), timestamp: at, type: 'trace-create', body: { id: traceId, name: 'playground', environment: PLAYGROUND_ENVIRONMENT, timestamp: at } };
  const warnings: string[] = [];
  let gen = validateEvent(generation(result.usage), ctx.mayHoldUnstorableText);
  if (!gen.ok && result.usage != null) {
    // a usage object ingestion would refuse (a count beyond 2^53): the call is still recorded, its usage counted by the tokenizer
    warnings.push(`the provider's usage object was not stored: ${gen.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    gen = validateEvent(generation(null), ctx.mayHoldUnstorableText);
  }
  const traceCheck = validateEvent(trace);
  if (!gen.ok || !traceCheck.ok) throw new Error(`playground events do not validate: ${JSON.stringify(!gen.ok ? gen.issues : traceCheck.ok ? [] : traceCheck.issues)}`);
  const events: AcceptedEvent[] = [traceCheck.event, gen.event];
  const applied = await applyBatch(ctx.em, ctx.services, projectId, events);
  warnings.push(...(applied.warnings.get(gen.event.id) ?? []));
  const stored = await getObservation(kysely(ctx.em), projectId, observationId);
  if (!stored) throw new Error('the playground generation was not stored');
  return {
    traceId, observationId, provider: connection.provider, model: req.model, responseModel: result.model,
    text: result.text, toolCalls: result.toolCalls, usageDetails: stored.usageDetails, costDetails: stored.costDetails,
    totalCost: stored.totalCost, costStatus: stored.costStatus, warnings, latencyMs: result.latencyMs,
  };
}
