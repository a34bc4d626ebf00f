// LLM-as-a-judge at a glance: the evaluators, the rules that run them (paused ones say why),
// one rule's recent executions, and the scores the evaluators wrote.
import { useMemo, useState } from 'react';
import type { EvaluationRule, Evaluator } from '../../../sdk/index.ts';
import { useTally } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { EvalScores } from './evaluators/EvalScores.tsx';
import { EvaluatorForm } from './evaluators/EvaluatorForm.tsx';
import { EvaluatorList } from './evaluators/EvaluatorList.tsx';
import { Executions } from './evaluators/Executions.tsx';
import { RuleForm } from './evaluators/RuleForm.tsx';
import { RuleList } from './evaluators/RuleList.tsx';
import './evaluators/evaluators.css';

export function Evaluators() {
  const tally = useTally();
  const evaluators = useLoad(async () => (await tally.evaluators.list({ query: { limit: 100 } })).data.data, []);
  const rulesLoaded = useLoad(async () => (await tally.evaluationRules.list({ query: { limit: 100 } })).data.data, []);
  // an enable/disable answer replaces its rule in place, without reloading the list
  const [patched, setPatched] = useState<Record<string, EvaluationRule>>({});
  const rules = useMemo(() => rulesLoaded.data?.map((r) => patched[r.id] ?? r), [rulesLoaded.data, patched]);
  const [chosen, setChosen] = useState<string>();
  const selected = rules?.find((r) => r.id === chosen) ?? rules?.[0];
  const evaluatorNames = useMemo(() => new Map((evaluators.data ?? []).map((e) => [e.id, e.name])), [evaluators.data]);
  // the evaluator form: closed, a new evaluator, or the next version of one
  const [form, setForm] = useState<{ editing?: Evaluator; n: number }>();
  const [saved, setSaved] = useState<string>();
  // the rule form: closed, a new rule, or one rule's edit
  const [ruleForm, setRuleForm] = useState<{ editing?: EvaluationRule; n: number }>();

  return (
    <div className="evaluators">
      {saved ? (
        <div className="ok-banner" role="status">
          {saved}
        </div>
      ) : null}
      <EvaluatorList
        loaded={evaluators}
        onCreate={() => setForm((f) => ({ n: (f?.n ?? 0) + 1 }))}
        onEdit={(ev) => setForm((f) => ({ editing: ev, n: (f?.n ?? 0) + 1 }))}
      />
      {form ? (
        <EvaluatorForm
          key={form.n}
          editing={form.editing}
          onCancel={() => setForm(undefined)}
          onSaved={(ev) => {
            setSaved(`Saved ${ev.name}, version ${ev.version}.`);
            setForm(undefined);
            evaluators.reload();
          }}
        />
      ) : null}
      <RuleList
        loaded={{ ...rulesLoaded, data: rules }}
        selectedId={selected?.id}
        onSelect={setChosen}
        onChanged={(r) => setPatched((p) => ({ ...p, [r.id]: r }))}
        onCreate={() => setRuleForm((f) => ({ n: (f?.n ?? 0) + 1 }))}
        onEdit={(r) => setRuleForm((f) => ({ editing: r, n: (f?.n ?? 0) + 1 }))}
      />
      {ruleForm ? (
        <RuleForm
          key={ruleForm.n}
          editing={ruleForm.editing}
          evaluators={evaluators.data ?? []}
          onCancel={() => setRuleForm(undefined)}
          onSaved={(r, created) => {
            setSaved(`${created ? 'Created' : 'Saved'} rule ${r.name}.`);
            setRuleForm(undefined);
            if (created) rulesLoaded.reload();
            else setPatched((p) => ({ ...p, [r.id]: r }));
          }}
        />
      ) : null}
      {selected ? <Executions rule={selected} evaluatorNames={evaluatorNames} /> : null}
      <EvalScores />
    </div>
  );
}
