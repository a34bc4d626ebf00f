// The wire record of a connection (the spec's LlmConnection, strict): never a secret, only its mask and
// the header names.
import type { StoredConnection } from '../../store/llm-connections.ts';

export function presentConnection(c: StoredConnection) {
  return {
    id: c.id,
    provider: c.provider,
    adapter: c.adapter,
    displaySecretKey: c.displaySecretKey,
    baseURL: c.baseUrl,
    customModels: c.customModels,
    withDefaultModels: c.withDefaultModels,
    extraHeaderKeys: c.extraHeaderKeys,
    config: c.config,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
