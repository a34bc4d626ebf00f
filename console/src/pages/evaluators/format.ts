// How evaluators, rules and scores read on the page: short summaries of the spec's objects.
import type { EvaluationRule, EvaluationRuleFilter, Evaluator, Score } from '../../../../sdk/index.ts';

/** what a rule's pause reason means, in words (the server adds its own `pausedMessage`) */
export const PAUSED_REASONS: Record<string, string> = {
  LLM_CONNECTION_AUTH_INVALID: "the LLM connection's credentials were refused",
  LLM_CONNECTION_BILLING_EXHAUSTED: "the LLM connection's billing or quota is exhausted",
  LLM_CONNECTION_ENDPOINT_UNREACHABLE: "the LLM connection's endpoint could not be reached",
  LLM_CONNECTION_MISSING: 'there is no LLM connection for the evaluator’s provider',
  DEFAULT_EVAL_MODEL_MISSING: 'the evaluator has no model and there is no default evaluation model',
  EVAL_MODEL_CONFIG_INVALID: "the evaluator's model configuration is invalid",
  EVAL_MODEL_UNAVAILABLE: "the evaluator's model is not available on the connection",
  PROVIDER_ACCOUNT_NOT_READY: 'the provider account is not ready',
};

export function outputSummary(ev: Evaluator): string {
  if (ev.type !== 'llm_as_judge') return `code (${ev.sourceCodeLanguage})`;
  const o = ev.outputDefinition;
  if (o.dataType === 'NUMERIC') {
    const { minValue, maxValue } = o.score;
    return minValue !== undefined || maxValue !== undefined ? `NUMERIC ${minValue ?? '−∞'} to ${maxValue ?? '∞'}` : 'NUMERIC';
  }
  if (o.dataType === 'CATEGORICAL')
    return `CATEGORICAL: ${o.score.categories.join(', ')}${o.score.shouldAllowMultipleMatches ? ' (several allowed)' : ''}`;
  return 'BOOLEAN';
}

export function modelSummary(ev: Evaluator): string {
  if (ev.type !== 'llm_as_judge') return '—';
  return ev.modelConfig ? `${ev.modelConfig.provider} / ${ev.modelConfig.model}` : 'project default (not set in Tally)';
}

function filterText(f: EvaluationRuleFilter): string {
  const value = Array.isArray(f.value) ? `[${f.value.join(', ')}]` : f.type === 'null' ? '' : JSON.stringify(f.value);
  const column = f.type === 'stringObject' ? `metadata.${f.key}` : f.column;
  return `${column} ${f.operator}${value ? ` ${value}` : ''}`;
}

export const filterSummary = (rule: EvaluationRule) => (rule.filter.length ? rule.filter.map(filterText).join('; ') : 'every observation');

export const samplingText = (s: number) => `${Math.round(s * 1000) / 10}%`;

/** NUMERIC shows its number, the others their label ("True", a category, the text) */
export function scoreValue(s: Pick<Score, 'dataType' | 'value' | 'stringValue'>): string {
  if (s.dataType === 'NUMERIC') return s.value === undefined ? '—' : String(s.value);
  return s.stringValue ?? (s.value === undefined ? '—' : String(s.value));
}

export { formatTime } from '../../format.ts';

export const CREATE_HINT =
  'POST /api/public/unstable/evaluators with {name, prompt, outputDefinition, modelConfig: {provider, model}} (the provider of one of your LLM connections)';
export const RULE_HINT =
  'POST /api/public/unstable/evaluation-rules with {name, enabled: true, target: "observation", sampling, filter, evaluators: [{evaluator: {name}}]}';
