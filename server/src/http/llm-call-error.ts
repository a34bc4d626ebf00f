// How a failed provider call is answered over HTTP (the playground): the status per kind, and
// the LlmCallError body. The provider's own status stays in the body: passed through as the
// answer's status (as Langfuse does), a provider's 401 would read as Tally refusing the caller.
import type { LlmCallError } from '../../../generated/client/types.gen.ts';
import type { LlmError, LlmErrorKind } from '../domain/llm/call.ts';
import type { ConnectionSecretsUnreadable } from '../llm/llm-gateway.ts';
import { ApiError } from './errors.ts';

const STATUS = {
  invalid_request: 400,
  egress_refused: 400,
  rate_limited: 429,
  timeout: 504,
  auth_invalid: 502,
  billing_exhausted: 502,
  model_unavailable: 502,
  provider_error: 502,
  unreachable: 502,
} as const satisfies Record<LlmErrorKind, number>;

export const llmErrorStatus = (e: LlmError): (typeof STATUS)[LlmErrorKind] => STATUS[e.kind] ?? 502;

export function llmErrorBody(e: LlmError): LlmCallError {
  return { message: e.message, error: 'LlmCallError', kind: e.kind, ...(e.status === undefined ? {} : { providerStatus: e.status }) };
}

/** the connection's secrets do not open under the configured keys: the operator must act, not the caller */
export const unreadableSecrets = (e: ConnectionSecretsUnreadable) =>
  new ApiError(
    503,
    `${e.message}. Set the ENCRYPTION_KEY the connection was stored under (or ENCRYPTION_KEY_PREVIOUS during a rotation).`,
    'EncryptionKeyMissingError',
  );
