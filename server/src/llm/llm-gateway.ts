// Calls a model through a stored connection: decrypts its secrets (they exist in plaintext only
// for the call), picks the connection's adapter, applies the egress policy and the timeout.
// Used by the playground, the connection test and (next) the evaluator.
import { loadAdapter } from '../adapters/index.ts';
import { LlmError, type LlmCall, type LlmConnectionTarget, type LlmResult } from '../domain/llm/call.ts';
import { decryptSecret, type Keyring } from '../domain/llm-connections/secret-box.ts';
import type { Services } from '../app-context.ts';
import type { StoredConnection } from '../store/llm-connections.ts';

/** the stored secrets do not open under the configured keys (ENCRYPTION_KEY missing or changed) */
export class ConnectionSecretsUnreadable extends Error {}

export function connectionTarget(keyring: Keyring, c: StoredConnection): LlmConnectionTarget {
  try {
    const secretKey = decryptSecret(keyring, c.secretKeyEnc).plaintext;
    const extraHeaders = c.extraHeadersEnc
      ? (JSON.parse(decryptSecret(keyring, c.extraHeadersEnc).plaintext) as Record<string, string>)
      : {};
    return { baseUrl: c.baseUrl, secretKey, extraHeaders, config: c.config };
  } catch (e) {
    throw new ConnectionSecretsUnreadable(`the secrets of LLM connection "${c.provider}" cannot be decrypted: ${(e as Error).message}`);
  }
}

/** What a caller says about a call; the gateway adds the connection's timeout. */
export type GatewayCall = Omit<LlmCall, 'timeoutMs'> & { timeoutMs?: number };

export interface GatewayResult extends LlmResult {
  latencyMs: number;
}

export async function callThroughConnection(services: Services, connection: StoredConnection, call: GatewayCall): Promise<GatewayResult> {
  const target = connectionTarget(services.keyring, connection);
  const adapter = await loadAdapter(connection.adapter);
  if (!adapter) throw new LlmError('invalid_request', `Unknown adapter "${connection.adapter}"`);
  const started = performance.now();
  const result = await adapter(target, { ...call, timeoutMs: call.timeoutMs ?? services.llmTimeoutMs }, services.egress);
  return { ...result, latencyMs: Math.round(performance.now() - started) };
}
