// LLM-as-a-judge at a glance: the evaluators, the rules that run them (paused ones say why),
// one rule's recent executions, and the scores the evaluators wrote.
import { useMemo, useState } from 'react';
import type { EvaluationRule } from '../../../sdk/index.ts';
import { useTally } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { EvalScores } from './evaluators/EvalScores.tsx';
import { EvaluatorList } from './evaluators/EvaluatorList.tsx';
import { Executions } from './evaluators/Executions.tsx';
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

  return (
    <div className="evaluators">
      <EvaluatorList loaded={evaluators} />
      <RuleList
        loaded={{ ...rulesLoaded, data: rules }}
        selectedId={selected?.id}
        onSelect={setChosen}
        onChanged={(r) => setPatched((p) => ({ ...p, [r.id]: r }))}
      />
      {selected ? <Executions rule={selected} evaluatorNames={evaluatorNames} /> : null}
      <EvalScores />
    </div>
  );
}
