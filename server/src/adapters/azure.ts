// The `azure` adapter: Azure OpenAI Chat Completions through the openai SDK's AzureOpenAI client,
// which sends the key as `api-key`, adds `?api-version=` and puts the deployment in the path. The
// body, the answer and the errors are the openai adapter's; only the provider options are strict
// (as in Langfuse, an unknown key is refused, not passed through). Requests go through egressFetch; the
// SDK does not retry (maxRetries 0), the caller decides.
import { AzureOpenAI } from 'openai';
import { LlmError, type LlmAdapterCall, type LlmCall, type LlmConnectionTarget } from '../domain/llm/call.ts';
import type { AllowList } from '../domain/llm/egress.ts';
import { egressFetch } from '../egress/egress-fetch.ts';
import { chatCompletion, toLlmError } from './openai.ts';

export const AZURE_API_VERSION = '2025-02-01-preview';

// Langfuse's OpenAI key map, snake and camel case; `openai` is the nested form
const ALLOWED_OPTIONS = new Set([
  'reasoning_effort',
  'service_tier',
  'parallel_tool_calls',
  'logit_bias',
  'max_completion_tokens',
  'text_verbosity',
  'verbosity',
  'store',
  'user',
  'reasoningEffort',
  'serviceTier',
  'parallelToolCalls',
  'logitBias',
  'maxCompletionTokens',
  'textVerbosity',
]);

/** the keys of the provider options Azure does not take (nested `openai.x` named so) */
export function unsupportedAzureOptions(options: Record<string, unknown> | undefined): string[] {
  const bad: string[] = [];
  for (const [k, v] of Object.entries(options ?? {})) {
    if (k === 'openai' && v && typeof v === 'object' && !Array.isArray(v)) {
      for (const nk of Object.keys(v)) if (!ALLOWED_OPTIONS.has(nk)) bad.push(`openai.${nk}`);
    } else if (!ALLOWED_OPTIONS.has(k)) {
      bad.push(k);
    }
  }
  return bad;
}

/** the resource's base: a stored URL that already names a deployment is cut before its `/deployments` segment */
export function azureBaseUrl(baseUrl: string): string {
  const m = /\/deployments(?=\/|\?|#|$)/.exec(baseUrl);
  return (m ? baseUrl.slice(0, m.index) : baseUrl).replace(/\/+$/, '');
}

function client(connection: LlmConnectionTarget, call: LlmCall, egress: AllowList) {
  return new AzureOpenAI({
    apiKey: connection.secretKey,
    baseURL: azureBaseUrl(connection.baseUrl!),
    apiVersion: AZURE_API_VERSION,
    // the deployment is the call's model; AzureOpenAI puts it in the path (and leaves `model` in the body)
    deployment: call.model,
    defaultHeaders: connection.extraHeaders,
    // explicit, so that OPENAI_ORG_ID / OPENAI_PROJECT_ID in the environment add no headers
    organization: null,
    project: null,
    fetch: egressFetch(egress),
    timeout: call.timeoutMs,
    maxRetries: 0,
  });
}

export const callAzure: LlmAdapterCall = async (connection, call, egress) => {
  const secrets = [connection.secretKey, ...Object.values(connection.extraHeaders).filter((v) => v.length >= 8)];
  if (!connection.baseUrl)
    throw new LlmError('invalid_request', 'Azure connections need a baseURL (https://<resource>.openai.azure.com/openai)');
  const bad = unsupportedAzureOptions(call.providerOptions);
  if (bad.length) throw new LlmError('invalid_request', `Unsupported azure provider options: ${bad.join(', ')}`);
  try {
    return await chatCompletion(client(connection, call, egress), call);
  } catch (err) {
    throw toLlmError(err, secrets);
  }
};
