// The evaluator form's state and its translation into an evaluators_create body (which adds a
// version when the name exists). Pure, so the rules are tested without rendering.
import type { FieldErrors } from '../../api.ts';
import type { CreateEvaluatorRequest, Evaluator, EvaluatorObservationMapping } from '../../../../sdk/index.ts';
import { promptVariables } from '../../../../shared/evaluation/prompt.ts';

export type Source = EvaluatorObservationMapping['source'];
// a label for every source the spec allows on an observation (the Record makes a new one a type error here)
const SOURCE_LABELS: Record<Source, string> = {
  input: 'input',
  output: 'output',
  metadata: 'metadata',
  tool_calls: 'tool calls of the output',
};
export const SOURCES = Object.entries(SOURCE_LABELS).map(([value, label]) => ({ value: value as Source, label }));

export interface MappingDraft {
  source: Source;
  jsonPath: string;
}

export interface EvaluatorDraft {
  name: string;
  prompt: string;
  dataType: 'NUMERIC' | 'BOOLEAN' | 'CATEGORICAL';
  scoreDescription: string;
  reasoningDescription: string;
  minValue: string;
  maxValue: string;
  /** one per line */
  categories: string;
  multipleMatches: boolean;
  provider: string;
  model: string;
  /** by variable name: kept when the prompt loses and regains a variable */
  mapping: Record<string, MappingDraft>;
}

/** the prompt's variables, in order of first appearance, as the server reads them */
export const variablesOf = promptVariables;

export function emptyEvaluator(): EvaluatorDraft {
  return {
    name: '',
    prompt: '',
    dataType: 'NUMERIC',
    scoreDescription: '',
    reasoningDescription: 'Why this score, step by step.',
    minValue: '0',
    maxValue: '1',
    categories: '',
    multipleMatches: false,
    provider: '',
    model: '',
    mapping: {},
  };
}

/** a stored evaluator as the form for its next version */
export function draftOf(ev: Evaluator): EvaluatorDraft {
  const d = emptyEvaluator();
  if (ev.type !== 'llm_as_judge') return { ...d, name: ev.name };
  const o = ev.outputDefinition;
  const mapping: Record<string, MappingDraft> = {};
  for (const m of ev.mapping ?? []) if (m.source) mapping[m.variable] = { source: m.source as Source, jsonPath: m.jsonPath ?? '' };
  return {
    ...d,
    name: ev.name,
    prompt: ev.prompt,
    dataType: o.dataType,
    scoreDescription: o.score.description,
    reasoningDescription: o.reasoning.description,
    minValue: o.dataType === 'NUMERIC' && o.score.minValue !== undefined ? String(o.score.minValue) : '',
    maxValue: o.dataType === 'NUMERIC' && o.score.maxValue !== undefined ? String(o.score.maxValue) : '',
    categories: o.dataType === 'CATEGORICAL' ? o.score.categories.join('\n') : '',
    multipleMatches: o.dataType === 'CATEGORICAL' ? o.score.shouldAllowMultipleMatches : false,
    provider: ev.modelConfig?.provider ?? '',
    model: ev.modelConfig?.model ?? '',
    mapping,
  };
}

/** the mapping entries of the prompt's variables that have one (an unmapped variable stays unmapped) */
export function mappingOf(d: EvaluatorDraft): EvaluatorObservationMapping[] {
  return variablesOf(d.prompt).flatMap((variable) => {
    const m = d.mapping[variable];
    if (!m) return [];
    return [m.jsonPath.trim() ? { variable, source: m.source, jsonPath: m.jsonPath.trim() } : { variable, source: m.source }];
  });
}

function number(text: string, path: string, errors: FieldErrors): number | undefined {
  if (!text.trim()) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) errors[path] = `"${text.trim()}" is not a number.`;
  return n;
}

/** the request body, or the problems found before sending it (keyed like the server's issue paths) */
export function evaluatorRequest(d: EvaluatorDraft): { body: CreateEvaluatorRequest } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (!d.name.trim()) errors.name = 'Required: scores are written under this name.';
  if (!d.prompt.trim()) errors.prompt = 'Required: what the judge is asked, with {{variables}} for the observation’s values.';
  if (!d.scoreDescription.trim()) errors['outputDefinition.score.description'] = 'Required: tells the judge what the score means.';
  if (!d.reasoningDescription.trim()) errors['outputDefinition.reasoning.description'] = 'Required: tells the judge what to explain.';
  if (!d.provider.trim() !== !d.model.trim()) errors.modelConfig = 'Give both the connection and the model, or neither.';
  const score = d.scoreDescription.trim();
  const reasoning = { description: d.reasoningDescription.trim() };
  let outputDefinition: CreateEvaluatorRequest['outputDefinition'];
  if (d.dataType === 'NUMERIC') {
    const minValue = number(d.minValue, 'outputDefinition.score.minValue', errors);
    const maxValue = number(d.maxValue, 'outputDefinition.score.maxValue', errors);
    if (minValue !== undefined && maxValue !== undefined && minValue >= maxValue)
      errors['outputDefinition.score.maxValue'] = 'Must be more than the minimum.';
    outputDefinition = {
      dataType: 'NUMERIC',
      reasoning,
      score: { description: score, ...(minValue !== undefined ? { minValue } : {}), ...(maxValue !== undefined ? { maxValue } : {}) },
    };
  } else if (d.dataType === 'CATEGORICAL') {
    const categories = [
      ...new Set(
        d.categories
          .split('\n')
          .map((c) => c.trim())
          .filter(Boolean),
      ),
    ];
    if (categories.length < 2) errors['outputDefinition.score.categories'] = 'Give at least two categories, one per line.';
    outputDefinition = {
      dataType: 'CATEGORICAL',
      reasoning,
      score: { description: score, categories, shouldAllowMultipleMatches: d.multipleMatches },
    };
  } else outputDefinition = { dataType: 'BOOLEAN', reasoning, score: { description: score } };
  const mapping = mappingOf(d);
  // the server takes a default mapping only whole: every variable, or none (each rule maps them)
  const unmapped = variablesOf(d.prompt).filter((v) => !d.mapping[v]);
  if (mapping.length && unmapped.length)
    errors.mapping = `Map every variable, or none (each rule then maps them): ${unmapped.join(', ')} ${unmapped.length > 1 ? 'are' : 'is'} not mapped.`;
  if (Object.keys(errors).length) return { errors };
  return {
    body: {
      name: d.name.trim(),
      type: 'llm_as_judge',
      prompt: d.prompt,
      outputDefinition,
      modelConfig: d.provider.trim() ? { provider: d.provider.trim(), model: d.model.trim() } : null,
      ...(mapping.length ? { mapping } : {}),
    },
  };
}
