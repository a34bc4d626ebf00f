// The model names each adapter offers by default, as data. A connection lists
// these when `withDefaultModels` is true, followed by its custom model names.
import type { LlmAdapter } from './validate.ts';

const OPENAI = [
  // reasoning series
  'o4-mini',
  'o3',
  'o3-mini',
  'o1',
  'o1-mini',
  // recent large / small variants
  'gpt-5',
  'gpt-5-mini',
  'gpt-5-nano',
  'gpt-4.1',
  'gpt-4.1-mini',
  'gpt-4.1-nano',
  'gpt-4o',
  'gpt-4o-mini',
  // earlier chat-completions models
  'gpt-4-turbo',
  'gpt-4',
  'gpt-3.5-turbo',
];

const ANTHROPIC = [
  'claude-opus-4-1-20250805',
  'claude-opus-4-20250514',
  'claude-sonnet-4-5-20250929',
  'claude-sonnet-4-20250514',
  'claude-3-7-sonnet-20250219',
  'claude-3-5-sonnet-20241022',
  'claude-3-5-haiku-20241022',
  'claude-3-opus-20240229',
  'claude-3-haiku-20240307',
];

const GEMINI = [
  // 2.5
  'gemini-2.5-pro',
  'gemini-2.5-flash',
  'gemini-2.5-flash-lite',
  // 2.0
  'gemini-2.0-flash',
  'gemini-2.0-flash-lite',
  // 1.5
  'gemini-1.5-pro',
  'gemini-1.5-flash',
  'gemini-1.5-flash-8b',
  // 1.0
  'gemini-1.0-pro',
];

const BEDROCK = [
  'anthropic.claude-sonnet-4-20250514-v1:0',
  'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'anthropic.claude-3-5-haiku-20241022-v1:0',
  'amazon.nova-pro-v1:0',
  'amazon.nova-lite-v1:0',
  'amazon.nova-micro-v1:0',
  'meta.llama3-1-70b-instruct-v1:0',
  'mistral.mistral-large-2407-v1:0',
];

export const DEFAULT_MODELS: Record<LlmAdapter, readonly string[]> = {
  openai: OPENAI,
  // Azure names deployments, which the user adds as custom models; the OpenAI names are the usual ones
  azure: OPENAI,
  anthropic: ANTHROPIC,
  'google-ai-studio': GEMINI,
  'google-vertex-ai': GEMINI,
  bedrock: BEDROCK,
};

export function connectionModels(adapter: LlmAdapter, withDefaultModels: boolean, customModels: readonly string[]) {
  const defaults = withDefaultModels ? DEFAULT_MODELS[adapter] : [];
  const seen = new Set(defaults);
  const out: { name: string; source: 'default' | 'custom' }[] = defaults.map((name) => ({ name, source: 'default' }));
  for (const name of customModels) {
    if (seen.has(name)) continue;
    seen.add(name);
    out.push({ name, source: 'custom' });
  }
  return out;
}
