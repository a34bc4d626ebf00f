import { connectionModels } from '../../domain/llm-connections/default-models.ts';
import { decryptSecret, encryptSecret } from '../../domain/llm-connections/secret-box.ts';
import {
  BEDROCK_DEFAULT_CREDENTIALS,
  checkBaseUrl,
  DEFAULT_CREDENTIALS_NOT_BEDROCK,
  displaySecretKey,
  validateConnectionInput,
} from '../../domain/llm-connections/validate.ts';
import { baseUrlRefusal } from '../../egress/egress.ts';
import {
  deleteConnection,
  getConnection,
  getConnectionByProvider,
  listConnections,
  upsertConnection,
  type StoredConnection,
} from '../../store/llm-connections.ts';
import { LlmError } from '../../domain/llm/call.ts';
import { EXTRACT_TOOL, extractArguments, PROBE_MESSAGE } from '../../domain/llm/extract-tool.ts';
import { callThroughConnection, ConnectionSecretsUnreadable } from '../../llm/llm-gateway.ts';
import { unblockEvaluatorsOfProvider } from '../../store/evaluators.ts';
import type { ValidationIssue as Issue } from '../../../../generated/client/types.gen.ts';
import { ApiError, invalidData, invalidRequest, notFound } from '../errors.ts';
import { unreadableSecrets } from '../llm-call-error.ts';
import { paginated, pagination, projectOf, type OperationHandler } from '../handler.ts';
import { presentConnection } from '../present/llm-connection.ts';

const NOT_FOUND = 'LLM connection not found';
export const NO_ENCRYPTION_KEY =
  'LLM connections cannot be stored: set ENCRYPTION_KEY (64 hex characters, `openssl rand -hex 32`) and restart Tally';

export const llmConnectionsList: OperationHandler<'llmConnections_list'> = async (ctx) => {
  const { page, limit } = pagination(ctx.query);
  const { connections, total } = await listConnections(ctx.em, projectOf(ctx), page, limit);
  return { status: 200, body: paginated(connections.map(presentConnection), page, limit, total) };
};

export const llmConnectionsUpsert: OperationHandler<'llmConnections_upsert'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const body = ctx.body;
  const base = checkBaseUrl(body.baseURL);
  const issues = validateConnectionInput(body);
  if ('notAUrl' in base) issues.unshift({ code: 'invalid_format', path: ['baseURL'], message: 'Invalid URL' });
  // no secretKey: keep the stored one (a Tally extension), which only an existing connection of the same adapter has
  const kept = body.secretKey === undefined ? await keptKey(ctx.em, projectId, body.provider, body.adapter, issues) : null;
  const keyring = ctx.services.keyring;
  const headers = await withKeptHeaders(ctx.em, projectId, body.provider, body.extraHeaders ?? {}, keyring, issues);
  if (issues.length) throw invalidData(issues);
  if (body.secretKey === BEDROCK_DEFAULT_CREDENTIALS && body.adapter !== 'bedrock') throw invalidRequest(DEFAULT_CREDENTIALS_NOT_BEDROCK);
  if ('refused' in base) throw invalidRequest(`Invalid baseURL: ${base.refused}`);
  const egress = 'url' in base && base.url !== null ? await baseUrlRefusal(base.url, ctx.services.egress) : null;
  if (egress) throw invalidRequest(`Invalid baseURL: ${egress}`);
  if (!keyring.current) throw new ApiError(503, NO_ENCRYPTION_KEY, 'EncryptionKeyMissingError');

  const headerKeys = Object.keys(headers);
  const { connection, created } = await upsertConnection(ctx.em, projectId, {
    provider: body.provider,
    adapter: body.adapter,
    // without a kept key, body.secretKey is present (its absence was refused above)
    displaySecretKey: kept ? kept.displaySecretKey : displaySecretKey(body.secretKey!),
    secretKeyEnc: kept ? kept.secretKeyEnc : encryptSecret(keyring, body.secretKey!),
    baseUrl: 'url' in base ? base.url : null,
    customModels: body.customModels ?? [],
    withDefaultModels: body.withDefaultModels ?? true,
    extraHeadersEnc: headerKeys.length ? encryptSecret(keyring, JSON.stringify(headers)) : null,
    extraHeaderKeys: headerKeys,
    config: body.config,
  });
  // evaluators paused on this connection's failures get another chance with the new settings
  if (await unblockEvaluatorsOfProvider(ctx.em, projectId, body.provider)) ctx.services.evaluation?.rules.invalidate(projectId);
  return { status: created ? 201 : 200, body: presentConnection(connection) };
};

/**
 * The headers to store: a null value takes the stored value of that header (a Tally extension,
 * so rotating a key does not mean typing every header value again); a null for a header the
 * connection does not have is an issue.
 */
async function withKeptHeaders(
  em: Parameters<typeof getConnectionByProvider>[0],
  projectId: string,
  provider: string,
  requested: Record<string, string | null>,
  keyring: Parameters<typeof decryptSecret>[0],
  issues: Issue[],
): Promise<Record<string, string>> {
  const keep = Object.entries(requested).filter(([, v]) => v === null);
  if (!keep.length) return requested as Record<string, string>;
  const existing = await getConnectionByProvider(em, projectId, provider);
  let stored: Record<string, string> = {};
  if (existing?.extraHeadersEnc) {
    try {
      stored = JSON.parse(decryptSecret(keyring, existing.extraHeadersEnc).plaintext) as Record<string, string>;
    } catch {
      // unreadable under the current keys: nothing can be kept (each null is named below)
    }
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(requested)) {
    if (value !== null) out[name] = value;
    else if (Object.hasOwn(stored, name)) out[name] = stored[name]!;
    else
      issues.push({
        code: 'custom',
        path: ['extraHeaders', name],
        message: existing
          ? `null keeps a stored header value, but connection "${provider}" has no header "${name}": enter its value`
          : `null keeps a stored header value, but there is no connection "${provider}" yet: enter the value`,
      });
  }
  return out;
}

async function keptKey(
  em: Parameters<typeof getConnectionByProvider>[0],
  projectId: string,
  provider: string,
  adapter: string,
  issues: Issue[],
): Promise<StoredConnection | null> {
  const existing = await getConnectionByProvider(em, projectId, provider);
  if (!existing) {
    issues.push({
      code: 'custom',
      path: ['secretKey'],
      message: `Required to create a connection: there is no connection "${provider}" whose key could be kept`,
    });
    return null;
  }
  if (existing.adapter !== adapter) {
    issues.push({
      code: 'custom',
      path: ['secretKey'],
      message: `Required when the adapter changes (${existing.adapter} to ${adapter}): the stored key belongs to the old provider`,
    });
    return null;
  }
  return existing;
}

export const llmConnectionsDelete: OperationHandler<'llmConnections_delete'> = async (ctx) => {
  if (!(await deleteConnection(ctx.em, projectOf(ctx), ctx.params.id!))) throw notFound(NOT_FOUND);
  return { status: 200, body: { message: 'LLM connection successfully deleted' } };
};

export const llmConnectionsModels: OperationHandler<'llmConnections_models'> = async (ctx) => {
  const c = await getConnection(ctx.em, projectOf(ctx), ctx.params.id!);
  if (!c) throw notFound(NOT_FOUND);
  return { status: 200, body: { data: connectionModels(c.adapter, c.withDefaultModels, c.customModels) } };
};

export const llmConnectionsTest: OperationHandler<'llmConnections_test'> = async (ctx) => {
  const c = await getConnection(ctx.em, projectOf(ctx), ctx.params.id!);
  if (!c) throw notFound(NOT_FOUND);
  // a connection's custom models are what its owner configured (a gateway often serves no default model)
  const model = ctx.body?.model ?? c.customModels[0] ?? connectionModels(c.adapter, c.withDefaultModels, c.customModels)[0]?.name;
  if (!model)
    throw invalidRequest('The connection offers no model (withDefaultModels is false and customModels is empty): name one in `model`');
  const started = performance.now();
  try {
    const r = await callThroughConnection(ctx.services, c, {
      model,
      messages: [{ role: 'user', content: PROBE_MESSAGE }],
      params: {},
      tools: [EXTRACT_TOOL],
      toolChoice: { name: EXTRACT_TOOL.name },
      signal: ctx.signal,
    });
    const args = extractArguments(r.toolCalls);
    const base = { latencyMs: r.latencyMs, model, responseModel: r.model };
    return {
      status: 200,
      body: args.ok ? { ok: true, ...base } : { ok: false, ...base, error: { kind: 'malformed_answer', message: args.reason } },
    };
  } catch (e) {
    if (e instanceof ConnectionSecretsUnreadable) throw unreadableSecrets(e);
    if (!(e instanceof LlmError)) throw e;
    const error = { kind: e.kind, message: e.message, ...(e.status === undefined ? {} : { providerStatus: e.status }) };
    return { status: 200, body: { ok: false, latencyMs: Math.round(performance.now() - started), model, responseModel: null, error } };
  }
};
