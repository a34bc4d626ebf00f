// Creates or edits an evaluation rule: which observations (type, name, environment; filters the
// form does not show are kept), what share of them, and which evaluators judge them, with the
// variables of an evaluator that has no default mapping mapped here.
import { useFocusFirstInvalid } from '../../hooks.ts';
import { useState, type FormEvent } from 'react';
import type { EvaluationRule, Evaluator } from '../../../../sdk/index.ts';
import { describeError, useTally, type FieldErrors, type ProblemText } from '../../api.ts';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { Field } from '../../components/Field.tsx';
import { SOURCES, type Source, variablesOf } from './evaluator-draft.ts';
import { emptyRule, needsMapping, ruleDraftOf, ruleRequest, type RuleDraft } from './rule-draft.ts';

const LIST_LABELS = { type: 'Observation types', name: 'Observation names', environment: 'Environments' } as const;

export function RuleForm({
  editing,
  evaluators,
  onSaved,
  onCancel,
}: {
  editing?: EvaluationRule;
  evaluators: Evaluator[];
  onSaved: (rule: EvaluationRule, created: boolean) => void;
  onCancel?: () => void;
}) {
  const tally = useTally();
  const [d, setD] = useState<RuleDraft>(() => (editing ? ruleDraftOf(editing) : emptyRule()));
  const [fields, setFields] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<ProblemText>();
  const [busy, setBusy] = useState(false);
  const [formRef, focusFirstInvalid] = useFocusFirstInvalid();
  const clear = (...paths: string[]) => setFields((f) => Object.fromEntries(Object.entries(f).filter(([p]) => !paths.includes(p))));
  const byName = new Map(evaluators.map((e) => [e.name, e]));

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setProblem(undefined);
    const built = ruleRequest(d, evaluators);
    if ('errors' in built) {
      setFields(built.errors);
      focusFirstInvalid();
      return;
    }
    setFields({});
    setBusy(true);
    try {
      const { data } = editing
        ? await tally.evaluationRules.update({ path: { evaluationRuleId: editing.id }, body: built.body })
        : await tally.evaluationRules.create({ body: built.body });
      onSaved(data, !editing);
    } catch (err) {
      const p = describeError(err);
      setProblem(p);
      setFields(p.fields);
    } finally {
      setBusy(false);
    }
  }

  const title = editing ? `Edit rule ${editing.name}` : 'New rule';
  return (
    <form ref={formRef} className="card rule-form" aria-label={title} onSubmit={submit} noValidate>
      <h2>{title}</h2>
      <div className="row">
        <Field label="Rule name" error={fields.name}>
          {(ids) => (
            <input
              {...ids}
              value={d.name}
              onChange={(e) => {
                setD({ ...d, name: e.target.value });
                clear('name');
              }}
            />
          )}
        </Field>
        <Field label="Sampling" error={fields.sampling} hint="1 judges every match, 0.1 one in ten">
          {(ids) => (
            <input
              {...ids}
              inputMode="decimal"
              value={d.sampling}
              onChange={(e) => {
                setD({ ...d, sampling: e.target.value });
                clear('sampling');
              }}
            />
          )}
        </Field>
        <label className="check">
          <input type="checkbox" checked={d.enabled} onChange={(e) => setD({ ...d, enabled: e.target.checked })} /> Enabled
        </label>
      </div>
      <fieldset>
        <legend>Which observations</legend>
        <div className="row">
          {(Object.keys(LIST_LABELS) as (keyof typeof LIST_LABELS)[]).map((column) => (
            <Field key={column} label={LIST_LABELS[column]} hint="comma-separated; empty: any" error={fields[`filter.${column}`]}>
              {(ids) => (
                <input
                  {...ids}
                  value={d.lists[column]}
                  onChange={(e) => setD({ ...d, lists: { ...d.lists, [column]: e.target.value } })}
                  autoComplete="off"
                />
              )}
            </Field>
          ))}
        </div>
        {d.otherFilters.length ? (
          <p className="muted">
            {d.otherFilters.length} more filter{d.otherFilters.length > 1 ? 's' : ''} ({d.otherFilters.map((f) => f.column).join(', ')}) set
            through the API are kept.
          </p>
        ) : null}
      </fieldset>
      <fieldset aria-describedby={fields.evaluators ? 'rule-evaluators-error' : undefined}>
        <legend>Evaluators</legend>
        {fields.evaluators ? (
          <div id="rule-evaluators-error" className="field-error">
            {fields.evaluators}
          </div>
        ) : null}
        {evaluators.length === 0 ? <p className="muted">Create an evaluator first.</p> : null}
        {evaluators.map((ev) => {
          const chosen = d.evaluators.includes(ev.name);
          return (
            <div key={ev.id} className="rule-evaluator">
              <label className="check">
                <input
                  type="checkbox"
                  checked={chosen}
                  onChange={(e) => {
                    setD({
                      ...d,
                      evaluators: e.target.checked ? [...d.evaluators, ev.name] : d.evaluators.filter((n) => n !== ev.name),
                    });
                    clear('evaluators');
                  }}
                />{' '}
                {ev.name}
              </label>
              {chosen && needsMapping(byName.get(ev.name)) ? (
                <MappingRows
                  evaluator={ev.name}
                  variables={variablesOf(ev.type === 'llm_as_judge' ? ev.prompt : '')}
                  value={d.mappings[ev.name] ?? {}}
                  error={fields[`mapping.${ev.name}`]}
                  onChange={(m) => {
                    setD({ ...d, mappings: { ...d.mappings, [ev.name]: m } });
                    clear(`mapping.${ev.name}`);
                  }}
                />
              ) : null}
            </div>
          );
        })}
      </fieldset>
      <ErrorBanner problem={problem} title={editing ? 'The rule was not saved' : 'The rule was not created'} />
      <div className="actions">
        <button type="submit" aria-disabled={busy || undefined}>
          {busy ? 'Saving…' : editing ? 'Save rule' : 'Create rule'}
        </button>
        {onCancel ? (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

function MappingRows({
  evaluator,
  variables,
  value,
  error,
  onChange,
}: {
  evaluator: string;
  variables: string[];
  value: Record<string, { source: Source; jsonPath: string }>;
  error?: string;
  onChange: (m: Record<string, { source: Source; jsonPath: string }>) => void;
}) {
  return (
    <div className="rule-mapping">
      <p className="hint">{evaluator} has no default mapping: say where each variable comes from.</p>
      {error ? <div className="field-error">{error}</div> : null}
      {variables.map((v) => (
        <div className="row" key={v}>
          <Field label={`${evaluator}: {{${v}}} from`}>
            {(ids) => (
              <select
                {...ids}
                value={value[v]?.source ?? ''}
                onChange={(e) => {
                  const next = { ...value };
                  if (e.target.value) next[v] = { source: e.target.value as Source, jsonPath: value[v]?.jsonPath ?? '' };
                  else delete next[v];
                  onChange(next);
                }}
              >
                <option value="">choose</option>
                {SOURCES.map((s) => (
                  <option key={s.value} value={s.value}>
                    {s.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={`${evaluator}: {{${v}}} JSONPath`} hint="optional">
            {(ids) => (
              <input
                {...ids}
                value={value[v]?.jsonPath ?? ''}
                disabled={!value[v]}
                onChange={(e) => value[v] && onChange({ ...value, [v]: { ...value[v], jsonPath: e.target.value } })}
              />
            )}
          </Field>
        </div>
      ))}
    </div>
  );
}
