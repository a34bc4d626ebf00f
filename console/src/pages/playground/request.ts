// The playground form's state and the request body it makes, checked locally first (numbers in
// range, provider options that are a JSON object) so a typo never costs a provider call.
import type { FieldErrors } from '../../api.ts';
import type { LlmMessage, PlaygroundCompletionRequest } from '../../../../sdk/index.ts';

export interface PlaygroundForm {
  provider: string;
  model: string;
  messages: LlmMessage[];
  temperature: string;
  topP: string;
  maxTokens: string;
  providerOptions: string;
}

function numberIn(raw: string, min: number, max: number, integer: boolean): number | string | undefined {
  const t = raw.trim();
  if (!t) return undefined;
  const n = Number(t);
  if (!Number.isFinite(n)) return 'Enter a number.';
  if (integer && !Number.isInteger(n)) return 'Enter a whole number.';
  if (n < min || n > max) return `Enter a number from ${min} to ${max}.`;
  return n;
}

export function buildRequest(f: PlaygroundForm): { body: PlaygroundCompletionRequest } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (!f.provider) errors.provider = 'Pick a connection (create one on the LLM connections page).';
  if (!f.model) errors.model = 'Pick a model.';
  if (f.messages.length === 0) errors.messages = 'Add at least one message.';
  const body: PlaygroundCompletionRequest = { provider: f.provider, model: f.model, messages: f.messages };
  const params: [keyof PlaygroundForm, 'temperature' | 'top_p' | 'max_tokens', number, number, boolean][] = [
    ['temperature', 'temperature', 0, 2, false],
    ['topP', 'top_p', 0, 1, false],
    ['maxTokens', 'max_tokens', 1, 1_000_000, true],
  ];
  for (const [from, to, min, max, integer] of params) {
    const v = numberIn(f[from] as string, min, max, integer);
    if (typeof v === 'string') errors[to] = v;
    else if (v !== undefined) body[to] = v;
  }
  if (f.providerOptions.trim()) {
    try {
      const parsed: unknown = JSON.parse(f.providerOptions);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        errors.providerOptions = 'Provider options must be a JSON object, e.g. {"reasoning_effort": "low"}.';
      else body.providerOptions = parsed as Record<string, unknown>;
    } catch (e) {
      errors.providerOptions = `Not valid JSON: ${(e as Error).message}`;
    }
  }
  return Object.keys(errors).length ? { errors } : { body };
}
