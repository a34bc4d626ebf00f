// The rule form's state and its translation into an evaluation rule's create or update body.
// Pure, so the rules are tested without rendering. The form covers what rules usually say
// (observation type, name and environment, sampling, the evaluators and their mappings); a rule
// with other filters keeps them on edit, untouched.
import type { FieldErrors } from '../../api.ts';
import type { CreateEvaluationRuleRequest, EvaluationRule, EvaluationRuleFilter, Evaluator } from '../../../../sdk/index.ts';
import { type MappingDraft, variablesOf } from './evaluator-draft.ts';

/** the filter columns the form edits, as comma-separated lists */
export const LISTED = ['type', 'name', 'environment'] as const;
type Listed = (typeof LISTED)[number];

export interface RuleDraft {
  name: string;
  enabled: boolean;
  sampling: string;
  /** comma-separated values per column ("" = any) */
  lists: Record<Listed, string>;
  /** filters the form does not edit, kept as they are */
  otherFilters: EvaluationRuleFilter[];
  /** the evaluators chosen, by name, with the mapping of an evaluator that has no default one */
  evaluators: string[];
  mappings: Record<string, Record<string, MappingDraft>>;
}

export function emptyRule(): RuleDraft {
  return {
    name: '',
    enabled: true,
    sampling: '1',
    lists: { type: 'GENERATION', name: '', environment: '' },
    otherFilters: [],
    evaluators: [],
    mappings: {},
  };
}

export function ruleDraftOf(rule: EvaluationRule): RuleDraft {
  const lists: Record<Listed, string> = { type: '', name: '', environment: '' };
  const otherFilters: EvaluationRuleFilter[] = [];
  for (const f of rule.filter) {
    if ((LISTED as readonly string[]).includes(f.column) && f.type === 'stringOptions' && f.operator === 'any of')
      lists[f.column as Listed] = f.value.join(', ');
    else otherFilters.push(f);
  }
  const mappings: RuleDraft['mappings'] = {};
  for (const a of rule.evaluators) {
    if (!a.mapping) continue;
    mappings[a.evaluator.name] = Object.fromEntries(
      a.mapping.flatMap((m) =>
        m.source ? [[m.variable, { source: m.source as MappingDraft['source'], jsonPath: m.jsonPath ?? '' }]] : [],
      ),
    );
  }
  return {
    name: rule.name,
    enabled: rule.enabled,
    sampling: String(rule.sampling),
    lists,
    otherFilters,
    evaluators: rule.evaluators.map((a) => a.evaluator.name),
    mappings,
  };
}

/** whether a chosen evaluator needs its mapping in the rule: it has variables and no default mapping */
export const needsMapping = (ev: Evaluator | undefined) =>
  !!ev && ev.type === 'llm_as_judge' && !ev.mapping?.length && variablesOf(ev.prompt).length > 0;

const split = (text: string) => [
  ...new Set(
    text
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  ),
];

/** the body, or the problems found before sending it (keyed like the server's issue paths) */
export function ruleRequest(d: RuleDraft, evaluators: Evaluator[]): { body: CreateEvaluationRuleRequest } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (!d.name.trim()) errors.name = 'Required: the rule’s name.';
  const sampling = Number(d.sampling);
  if (d.sampling.trim() === '' || !(sampling > 0 && sampling <= 1))
    errors.sampling = 'A share of the matching observations above 0 and at most 1 (1: all of them, 0.1: one in ten).';
  if (!d.evaluators.length) errors.evaluators = 'Choose at least one evaluator.';
  const byName = new Map(evaluators.map((e) => [e.name, e]));
  const assignments: NonNullable<CreateEvaluationRuleRequest['evaluators']> = [];
  for (const name of d.evaluators) {
    const ev = byName.get(name);
    if (!needsMapping(ev)) {
      assignments.push({ evaluator: { name } });
      continue;
    }
    const vars = variablesOf((ev as { prompt: string }).prompt);
    const drafts = d.mappings[name] ?? {};
    const missing = vars.filter((v) => !drafts[v]);
    if (missing.length) errors[`mapping.${name}`] = `Map ${missing.join(', ')}: ${name} has no default mapping.`;
    assignments.push({
      evaluator: { name },
      mapping: vars.flatMap((variable) => {
        const m = drafts[variable];
        if (!m) return [];
        return [m.jsonPath.trim() ? { variable, source: m.source, jsonPath: m.jsonPath.trim() } : { variable, source: m.source }];
      }),
    });
  }
  if (Object.keys(errors).length) return { errors };
  const filter: EvaluationRuleFilter[] = [
    ...LISTED.flatMap((column): EvaluationRuleFilter[] => {
      const value = split(d.lists[column]);
      return value.length ? [{ column, type: 'stringOptions', operator: 'any of', value }] : [];
    }),
    ...d.otherFilters,
  ];
  return { body: { name: d.name.trim(), enabled: d.enabled, sampling, target: 'observation', filter, evaluators: assignments } };
}
