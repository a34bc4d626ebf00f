// The wire record of an evaluator (the spec's Evaluator, strict, discriminated by `type`).
import { CODE_EVALUATOR_VARIABLES, type Mapping } from '../../domain/evaluation/mapping.ts';
import { promptVariables } from '../../domain/evaluation/prompt.ts';
import type { StoredEvaluator } from '../../store/evaluators.ts';
import type { CodeEvaluator, Evaluator } from '../../../../generated/client/types.gen.ts';

/** a read mapping: `jsonPath` only when set */
export const readMapping = (mapping: Mapping[]) =>
  mapping.map((m) =>
    m.jsonPath === undefined
      ? { variable: m.variable, source: m.source }
      : { variable: m.variable, source: m.source, jsonPath: m.jsonPath },
  );

export function presentEvaluator(e: StoredEvaluator): Evaluator {
  const common = {
    id: e.id,
    name: e.name,
    version: e.version,
    mapping: e.mapping === null ? null : readMapping(e.mapping),
    evaluationRuleCount: e.evaluationRuleCount,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
  if (e.type === 'code') {
    return {
      ...common,
      type: 'code' as const,
      variables: CODE_EVALUATOR_VARIABLES,
      sourceCode: e.sourceCode ?? '',
      // stored only from a validated request
      sourceCodeLanguage: (e.sourceCodeLanguage ?? 'PYTHON') as CodeEvaluator['sourceCodeLanguage'],
    };
  }
  return {
    ...common,
    type: 'llm_as_judge' as const,
    prompt: e.prompt ?? '',
    variables: promptVariables(e.prompt ?? ''),
    // an llm_as_judge evaluator is stored only with one
    outputDefinition: e.outputDefinition!,
    modelConfig: e.modelConfig,
  };
}
