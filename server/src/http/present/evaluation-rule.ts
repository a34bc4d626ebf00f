// The wire record of an evaluation rule (the spec's EvaluationRule): the assignment list, the
// deprecated single-evaluator aliases, and the status derived from the evaluators' blocked state.
import { CODE_EVALUATOR_MAPPING } from '../../domain/evaluation/mapping.ts';
import type { StoredAssignment, StoredRule } from '../../store/evaluation-rules.ts';
import { readMapping } from './evaluator.ts';
import type { EvaluationRule } from '../../../../generated/client/types.gen.ts';

const reference = (a: StoredAssignment) => ({ name: a.evaluatorName, type: a.evaluatorType, id: a.evaluatorId });

/** the mapping an assignment runs with: code's fixed list, else the override, else the evaluator's default, else [] */
export const effectiveMapping = (a: StoredAssignment) =>
  a.evaluatorType === 'code' ? CODE_EVALUATOR_MAPPING : (a.mapping ?? a.defaultMapping ?? []);

/** `inactive` unless ACTIVE; `paused` (with the most recently blocked evaluator's reason) when an evaluator is blocked */
export function ruleStatus(rule: StoredRule) {
  const blocked = rule.assignments.filter((a) => a.blocked).sort((x, y) => y.blocked!.at.getTime() - x.blocked!.at.getTime());
  if (rule.state !== 'ACTIVE') return { status: 'inactive' as const, pausedReason: null, pausedMessage: null };
  if (blocked.length)
    return {
      status: 'paused' as const,
      // stored only from the evaluation worker's own reasons
      pausedReason: blocked[0]!.blocked!.reason as EvaluationRule['pausedReason'],
      pausedMessage: blocked[0]!.blocked!.message,
    };
  return { status: 'active' as const, pausedReason: null, pausedMessage: null };
}

export function presentRule(rule: StoredRule): EvaluationRule {
  const first = rule.assignments[0];
  return {
    id: rule.id,
    name: rule.name,
    evaluator: first ? reference(first) : null,
    evaluators: rule.assignments.map((a) => ({ evaluator: reference(a), mapping: a.mapping === null ? null : readMapping(a.mapping) })),
    enabled: rule.state === 'ACTIVE',
    ...ruleStatus(rule),
    sampling: rule.sampling,
    // stored only from a validated request
    target: rule.target as EvaluationRule['target'],
    // stored only from a validated request
    filter: rule.filters as EvaluationRule['filter'],
    mapping: first ? readMapping(effectiveMapping(first)) : [],
    createdAt: rule.createdAt.toISOString(),
    updatedAt: rule.updatedAt.toISOString(),
  };
}
