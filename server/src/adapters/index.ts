// One entry per adapter of the connections API: the function that calls that provider.
import type { LlmAdapterCall } from '../domain/llm/call.ts';
import type { LlmAdapter } from '../domain/llm-connections/validate.ts';
import { callAnthropic } from './anthropic.ts';
import { callAzure } from './azure.ts';
import { callBedrock } from './bedrock.ts';
import { callGoogleAiStudio } from './google-ai-studio.ts';
import { callGoogleVertexAi } from './google-vertex-ai.ts';
import { callOpenAi } from './openai.ts';

export const ADAPTERS: Record<LlmAdapter, LlmAdapterCall> = {
  openai: callOpenAi,
  azure: callAzure,
  anthropic: callAnthropic,
  'google-ai-studio': callGoogleAiStudio,
  'google-vertex-ai': callGoogleVertexAi,
  bedrock: callBedrock,
};
