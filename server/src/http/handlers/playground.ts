// POST /api/public/playground/completions: a call through a connection, answered whole or as
// server-sent events, and recorded as a trace with one generation (environment
// tally-playground) through the ingestion pipeline, so its usage is normalised and priced the
// way an ingested generation's is.
import { randomUUID } from 'node:crypto';
import type { PlaygroundCompletion, PlaygroundCompletionRequest } from '../../../../generated/client/types.gen.ts';
import { LlmError, type LlmParams } from '../../domain/llm/call.ts';
import { recordLlmCall } from '../../ingestion/record-llm-call.ts';
import { callThroughConnection, ConnectionSecretsUnreadable, type GatewayResult } from '../../llm/llm-gateway.ts';
import { getConnectionByProvider, type StoredConnection } from '../../store/llm-connections.ts';
import { invalidData, notFound } from '../errors.ts';
import { projectOf, type OperationHandler, type RequestScope } from '../handler.ts';
import { llmErrorBody, llmErrorStatus, unreadableSecrets } from '../llm-call-error.ts';

export const PLAYGROUND_ENVIRONMENT = 'tally-playground';
const PARAMS = ['temperature', 'top_p', 'max_tokens', 'frequency_penalty', 'presence_penalty', 'n'] as const;

export const playgroundCompletions: OperationHandler<'playground_completions'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const req = ctx.body;
  if (req.toolChoice && !(req.tools ?? []).some((t) => t.name === req.toolChoice!.name)) {
    throw invalidData([
      { code: 'custom', path: ['toolChoice', 'name'], message: `toolChoice names "${req.toolChoice.name}", which is not one of tools` },
    ]);
  }
  const connection = await getConnectionByProvider(ctx.em, projectId, req.provider);
  if (!connection) throw notFound(`No LLM connection with provider "${req.provider}" in this project`);

  const params: LlmParams = {};
  for (const k of PARAMS) if (req[k] !== undefined) params[k] = req[k];
  const started = new Date();
  let firstText: Date | null = null;
  const call = (onText?: (delta: string) => void) =>
    callThroughConnection(ctx.services, connection, {
      model: req.model,
      messages: req.messages,
      params,
      tools: req.tools,
      toolChoice: req.toolChoice,
      providerOptions: req.providerOptions,
      signal: ctx.signal,
      onText:
        onText &&
        ((d) => {
          firstText ??= new Date();
          onText(d);
        }),
    });
  const record = (result: GatewayResult) => recordCall(ctx, projectId, connection, req, params, result, started, firstText);

  if (req.stream) {
    return {
      status: 200,
      body: null,
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

async function recordCall(
  ctx: RequestScope,
  projectId: string,
  connection: StoredConnection,
  req: PlaygroundCompletionRequest,
  params: LlmParams,
  result: GatewayResult,
  started: Date,
  firstText: Date | null,
): Promise<PlaygroundCompletion> {
  const traceId = randomUUID();
  const { observation, warnings } = await recordLlmCall(ctx.em, ctx.services, projectId, {
    traceId,
    traceName: 'playground',
    environment: PLAYGROUND_ENVIRONMENT,
    generationName: 'playground-completion',
    model: req.model,
    messages: req.messages,
    params,
    result,
    started,
    ended: new Date(),
    firstText,
    metadata: { provider: connection.provider, adapter: connection.adapter },
  });
  return {
    traceId,
    observationId: observation.id,
    provider: connection.provider,
    model: req.model,
    responseModel: result.model,
    text: result.text,
    toolCalls: result.toolCalls,
    usageDetails: observation.usageDetails,
    costDetails: observation.costDetails,
    totalCost: observation.costDetails.total ?? null,
    costStatus: observation.costStatus,
    warnings,
    latencyMs: result.latencyMs,
  };
}
