// Prices a would-be generation without storing it (models_explain): which model and tier
// match, why, and units × price per usage type.
import { useState, type FormEvent, type Ref } from 'react';
import { describeError, useTally, type ProblemText } from '../../api.ts';
import { CostLinesTable } from '../../components/CostLinesTable.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { Field } from '../../components/Field.tsx';
import type { ExplainCostResponse, UsageDetails } from '../../../../sdk/index.ts';
import { COST_STATUS_HINT, costStatusClass } from '../../cost-status.ts';
import { formatCost } from '../../format.ts';

const SAMPLE_USAGE = '{\n  "input": 250000,\n  "output": 1000\n}';

/** The usage object, or why it cannot be sent; checked here so bad JSON never reaches the server. */
function parseUsage(text: string): { usage?: UsageDetails; error?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { error: `Not valid JSON: ${(e as Error).message}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { error: 'Give a JSON object of usage counts, e.g. {"input": 1200, "output": 300}' };
  return { usage: value as UsageDetails };
}

export function ExplainPanel({
  model,
  onModelChange,
  modelNames,
  usageRef,
}: {
  model: string;
  onModelChange: (name: string) => void;
  modelNames: string[];
  usageRef?: Ref<HTMLTextAreaElement>;
}) {
  const tally = useTally();
  const [usageText, setUsageText] = useState(SAMPLE_USAGE);
  const [usageError, setUsageError] = useState<string>();
  const [problem, setProblem] = useState<ProblemText>();
  const [result, setResult] = useState<ExplainCostResponse>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setProblem(undefined);
    const { usage, error } = parseUsage(usageText);
    setUsageError(error);
    if (!usage) return;
    setBusy(true);
    try {
      const { data } = await tally.models.explain({ body: { model, usageDetails: usage } });
      setResult(data);
    } catch (err) {
      setResult(undefined);
      setProblem(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <form onSubmit={submit} aria-label="Explain a cost" noValidate>
        <Field
          label="Generation model"
          hint="the model name a generation would send; pick one from the list or type any"
          error={problem?.fields.model}
        >
          {(ids) => (
            <>
              <input {...ids} list="explain-model-names" value={model} onChange={(e) => onModelChange(e.target.value)} />
              <datalist id="explain-model-names">
                {modelNames.map((n) => (
                  <option key={n} value={n} />
                ))}
              </datalist>
            </>
          )}
        </Field>
        <Field
          label="Usage (JSON)"
          error={usageError ?? problem?.fields.usageDetails}
          hint={'usage counts by type, e.g. {"input": 1200, "output": 300}, or an OpenAI usage object'}
        >
          {(ids) => (
            <textarea {...ids} ref={usageRef} className="mono" rows={5} value={usageText} onChange={(e) => setUsageText(e.target.value)} />
          )}
        </Field>
        <ErrorBanner problem={problem} title="Could not explain" />
        <button type="submit" aria-disabled={busy || undefined}>
          {busy ? 'Explaining…' : 'Explain cost'}
        </button>
      </form>
      {result ? <ExplainResult result={result} /> : null}
    </div>
  );
}

export function ExplainResult({ result }: { result: ExplainCostResponse }) {
  return (
    <section aria-label="Cost explanation" className="explain-result">
      <dl className="facts">
        <dt>Matched model</dt>
        <dd>
          {result.model ? (
            <>
              {result.model.modelName} <code className="pattern">{result.model.matchPattern}</code>{' '}
              {result.model.isLangfuseManaged ? <span className="badge managed">Managed</span> : <span className="badge">Project</span>}
            </>
          ) : (
            <span className="muted">none: no model's pattern matches this name</span>
          )}
        </dd>
        <dt>Tier</dt>
        <dd>
          {result.tier ? (
            `${result.tier.name} (priority ${result.tier.priority}${result.tier.isDefault ? ', default' : ''})`
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
        <dt>Why this tier</dt>
        <dd>{result.tierReason ?? '—'}</dd>
        <dt>Usage read as</dt>
        <dd>{result.usageShape}</dd>
        <dt>Cost status</dt>
        <dd>
          <span className={costStatusClass(result.costStatus)}>{result.costStatus}</span>{' '}
          <span className="muted">{COST_STATUS_HINT[result.costStatus]}</span>
        </dd>
        <dt>Total cost</dt>
        <dd>{formatCost(result.totalCost)}</dd>
        <dt>Unpriced usage keys</dt>
        <dd>{result.unpricedUsageKeys.length ? result.unpricedUsageKeys.join(', ') : 'none'}</dd>
        <dt>Priced under another key</dt>
        <dd>
          {Object.keys(result.usagePricedAs).length
            ? Object.entries(result.usagePricedAs)
                .map(([k, p]) => `${k} at the ${p} rate`)
                .join(', ')
            : 'none'}
        </dd>
      </dl>
      <CostLinesTable lines={result.lines} total={result.totalCost} empty="No priced usage lines." />
      {result.warnings.length ? (
        <div className="warnings">
          <strong>Warnings</strong>
          <ul>
            {result.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
