// The evaluation rules: what they match, how often, and above all whether they run — a paused
// rule says why, since that is the usual reason scores stop appearing.
import { useState } from 'react';
import type { EvaluationRule } from '../../../../sdk/index.ts';
import { describeError, useTally, type ProblemText } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import type { Loaded } from '../../hooks.ts';
import { filterSummary, PAUSED_REASONS, RULE_HINT, samplingText } from './format.ts';

function StatusBadge({ rule }: { rule: EvaluationRule }) {
  const cls = rule.status === 'active' ? 'badge ok' : rule.status === 'paused' ? 'badge bad' : 'badge';
  return <span className={cls}>{rule.status}</span>;
}

function RuleCard({
  rule,
  selected,
  onSelect,
  onChanged,
  onEdit,
}: {
  rule: EvaluationRule;
  selected: boolean;
  onSelect: () => void;
  onChanged: (r: EvaluationRule) => void;
  onEdit: () => void;
}) {
  const tally = useTally();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ProblemText>();
  const toggle = async () => {
    if (busy) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const { data } = await tally.evaluationRules.update({ path: { evaluationRuleId: rule.id }, body: { enabled: !rule.enabled } });
      onChanged(data);
    } catch (e) {
      setProblem(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  const action = rule.enabled ? 'Disable' : 'Enable';
  return (
    <li className={selected ? 'rule selected' : 'rule'} aria-labelledby={`rule-${rule.id}`}>
      <div className="rule-head">
        <h3 id={`rule-${rule.id}`}>{rule.name}</h3>
        <StatusBadge rule={rule} />
      </div>
      {rule.status === 'paused' ? (
        <div className="error-banner paused" role="note" aria-label={`${rule.name} is paused`}>
          <strong>Paused: {rule.pausedReason ?? 'unknown reason'}</strong>
          {rule.pausedReason && PAUSED_REASONS[rule.pausedReason] ? <> — {PAUSED_REASONS[rule.pausedReason]}</> : null}
          {rule.pausedMessage ? <div>{rule.pausedMessage}</div> : null}
          <div className="hint">
            It resumes when you save an LLM connection for the evaluator’s provider (LLM connections) or POST a new version of the
            evaluator.
          </div>
        </div>
      ) : null}
      <dl className="rule-facts">
        <div>
          <dt>Evaluators</dt>
          <dd>
            {rule.evaluators.length ? (
              rule.evaluators.map((a) => a.evaluator.name).join(', ')
            ) : (
              <span className="muted">none (the rule cannot run)</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Target</dt>
          <dd>{rule.target}</dd>
        </div>
        <div>
          <dt>Sampling</dt>
          <dd>{samplingText(rule.sampling)}</dd>
        </div>
        <div>
          <dt>Filters</dt>
          <dd>{filterSummary(rule)}</dd>
        </div>
      </dl>
      <ErrorBanner problem={problem} title={`${action} ${rule.name}`} />
      <div className="row">
        <button type="button" className="secondary" aria-pressed={selected} onClick={onSelect}>
          Executions of {rule.name}
        </button>
        <button type="button" className={rule.enabled ? 'danger' : ''} aria-disabled={busy || undefined} onClick={toggle}>
          {busy ? `${action}…` : `${action} ${rule.name}`}
        </button>
        <button type="button" className="secondary" onClick={onEdit}>
          Edit {rule.name}
        </button>
      </div>
    </li>
  );
}

export function RuleList({
  loaded,
  selectedId,
  onSelect,
  onChanged,
  onCreate,
  onEdit,
}: {
  loaded: Loaded<EvaluationRule[]>;
  selectedId: string | undefined;
  onSelect: (id: string) => void;
  onChanged: (r: EvaluationRule) => void;
  onCreate: () => void;
  onEdit: (r: EvaluationRule) => void;
}) {
  const rules = loaded.data ?? [];
  return (
    <section className="card" aria-labelledby="ev-rules">
      <div className="card-head">
        <h2 id="ev-rules">Evaluation rules</h2>
        <button type="button" className="secondary" onClick={onCreate}>
          New rule
        </button>
      </div>
      <ErrorBanner problem={loaded.error} title="Evaluation rules" />
      {loaded.error ? (
        <button type="button" className="secondary" onClick={loaded.reload}>
          Reload rules
        </button>
      ) : null}
      {loaded.loading && !loaded.data ? <p className="muted">Loading…</p> : null}
      {loaded.data && rules.length === 0 ? (
        <EmptyState title="No evaluation rules yet">
          A rule runs evaluators on matching observations. Create one with <strong>New rule</strong> (or <code>{RULE_HINT}</code>).
        </EmptyState>
      ) : null}
      {rules.length ? (
        <ul className="rules" aria-label="Evaluation rules">
          {rules.map((r) => (
            <RuleCard
              key={r.id}
              rule={r}
              selected={r.id === selectedId}
              onSelect={() => onSelect(r.id)}
              onChanged={onChanged}
              onEdit={() => onEdit(r)}
            />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
