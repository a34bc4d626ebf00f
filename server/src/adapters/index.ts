// One entry per adapter of the connections API: the function that calls that provider. Each
// provider's SDK is loaded when a connection first calls it: the six SDKs together added 72 MB to
// an idle server's RSS (Google's auth library and undici alone ~250 modules), paid by every
// instance whether it ever calls a model or not.
import type { LlmAdapterCall } from '../domain/llm/call.ts';
import type { LlmAdapter } from '../domain/llm-connections/validate.ts';

const LOADERS: Record<LlmAdapter, () => Promise<LlmAdapterCall>> = {
  openai: async () => (await import('./openai.ts')).callOpenAi,
  azure: async () => (await import('./azure.ts')).callAzure,
  anthropic: async () => (await import('./anthropic.ts')).callAnthropic,
  'google-ai-studio': async () => (await import('./google-ai-studio.ts')).callGoogleAiStudio,
  'google-vertex-ai': async () => (await import('./google-vertex-ai.ts')).callGoogleVertexAi,
  bedrock: async () => (await import('./bedrock.ts')).callBedrock,
};

/** the adapter's call, its SDK loaded on first use; undefined for a name that is not an adapter */
export function loadAdapter(name: string): Promise<LlmAdapterCall> | undefined {
  return Object.hasOwn(LOADERS, name) ? LOADERS[name as LlmAdapter]() : undefined;
}
