// Creates an evaluator, or its next version (saving under an existing name adds a version, and
// the rules using it run the new one). The prompt's {{variables}} each get a mapping row; the
// preview fills the prompt from a chosen generation exactly as a rule's execution would (the
// server's prompt-preview), so what the judge will read is seen before any rule runs it.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { Evaluator, PromptPreview } from '../../../../sdk/index.ts';
import { describeError, useTally, type FieldErrors, type ProblemText } from '../../api.ts';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { Field } from '../../components/Field.tsx';
import { useLoad, useFocusFirstInvalid } from '../../hooks.ts';
import {
  draftOf,
  emptyEvaluator,
  evaluatorRequest,
  mappingOf,
  SOURCES,
  variablesOf,
  type EvaluatorDraft,
  type Source,
} from './evaluator-draft.ts';

export function EvaluatorForm({
  editing,
  onSaved,
  onCancel,
}: {
  editing?: Evaluator;
  onSaved: (ev: Evaluator) => void;
  onCancel?: () => void;
}) {
  const tally = useTally();
  const [d, setD] = useState<EvaluatorDraft>(() => (editing ? draftOf(editing) : emptyEvaluator()));
  const [fields, setFields] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<ProblemText>();
  const [busy, setBusy] = useState(false);
  const [formRef, focusFirstInvalid] = useFocusFirstInvalid();
  const variables = useMemo(() => variablesOf(d.prompt), [d.prompt]);

  // a field's messages go once it is edited
  const set = <K extends keyof EvaluatorDraft>(k: K, v: EvaluatorDraft[K], ...paths: string[]) => {
    setD((x) => ({ ...x, [k]: v }));
    setFields((f) => Object.fromEntries(Object.entries(f).filter(([p]) => p !== k && !paths.includes(p))));
  };
  const setMapping = (variable: string, m: { source: Source; jsonPath: string } | null) => {
    setD((x) => {
      const mapping = { ...x.mapping };
      if (m) mapping[variable] = m;
      else delete mapping[variable];
      return { ...x, mapping };
    });
    setFields((f) => Object.fromEntries(Object.entries(f).filter(([p]) => !p.startsWith('mapping'))));
  };

  // suggestions only: the form works without them
  const connections = useLoad(
    async () => (await tally.llmConnections.list({ query: { limit: 100 } })).data.data.map((c) => c.provider),
    [],
  ).data;

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setProblem(undefined);
    const built = evaluatorRequest(d);
    if ('errors' in built) {
      setFields(built.errors);
      focusFirstInvalid();
      return;
    }
    setFields({});
    setBusy(true);
    try {
      const { data } = await tally.evaluators.create({ body: built.body });
      if (!editing) setD(emptyEvaluator());
      onSaved(data);
    } catch (err) {
      const p = describeError(err);
      setProblem(p);
      setFields(p.fields);
      if (Object.keys(p.fields).length) focusFirstInvalid();
    } finally {
      setBusy(false);
    }
  }

  const title = editing ? `New version of ${editing.name}` : 'New evaluator';
  return (
    <form ref={formRef} className="card evaluator-form" aria-label={title} onSubmit={submit} noValidate>
      <h2>{title}</h2>
      {editing ? (
        <p className="muted">Saving adds version {editing.version + 1}; the rules that run this evaluator use it from then on.</p>
      ) : null}
      <Field label="Evaluator name" error={fields.name} hint="Scores are written under this name; an existing name gets a new version.">
        {(ids) => <input {...ids} value={d.name} readOnly={!!editing} onChange={(e) => set('name', e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="Judge prompt" error={fields.prompt} hint="{{variable}} placeholders are filled from each observation, as mapped below.">
        {(ids) => <textarea {...ids} rows={7} value={d.prompt} onChange={(e) => set('prompt', e.target.value, 'mapping')} />}
      </Field>

      <fieldset>
        <legend>Variables</legend>
        {variables.length === 0 ? <p className="muted">The prompt has no {'{{variables}}'}.</p> : null}
        {fields.mapping ? <div className="field-error">{fields.mapping}</div> : null}
        {variables.map((v) => {
          const m = d.mapping[v];
          return (
            <div className="row" key={v}>
              <Field label={`{{${v}}} from`}>
                {(ids) => (
                  <select
                    {...ids}
                    value={m?.source ?? ''}
                    onChange={(e) =>
                      setMapping(v, e.target.value ? { source: e.target.value as Source, jsonPath: m?.jsonPath ?? '' } : null)
                    }
                  >
                    <option value="">not mapped (each rule maps it)</option>
                    {SOURCES.map((s) => (
                      <option key={s.value} value={s.value}>
                        {s.label}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label={`{{${v}}} JSONPath`} hint="optional, e.g. $.content or $[-1:].content">
                {(ids) => (
                  <input
                    {...ids}
                    value={m?.jsonPath ?? ''}
                    disabled={!m}
                    onChange={(e) => m && setMapping(v, { ...m, jsonPath: e.target.value })}
                    autoComplete="off"
                  />
                )}
              </Field>
            </div>
          );
        })}
      </fieldset>

      <fieldset>
        <legend>Score</legend>
        <Field label="Score type">
          {(ids) => (
            <select {...ids} value={d.dataType} onChange={(e) => set('dataType', e.target.value as EvaluatorDraft['dataType'])}>
              <option value="NUMERIC">numeric</option>
              <option value="BOOLEAN">true or false</option>
              <option value="CATEGORICAL">one of categories</option>
            </select>
          )}
        </Field>
        <Field label="What the score means" error={fields['outputDefinition.score.description']}>
          {(ids) => (
            <input
              {...ids}
              value={d.scoreDescription}
              onChange={(e) => set('scoreDescription', e.target.value, 'outputDefinition.score.description')}
            />
          )}
        </Field>
        {d.dataType === 'NUMERIC' ? (
          <div className="row">
            <Field label="Lowest score" error={fields['outputDefinition.score.minValue']} hint="optional">
              {(ids) => (
                <input
                  {...ids}
                  inputMode="decimal"
                  value={d.minValue}
                  onChange={(e) => set('minValue', e.target.value, 'outputDefinition.score.minValue')}
                />
              )}
            </Field>
            <Field label="Highest score" error={fields['outputDefinition.score.maxValue']} hint="optional">
              {(ids) => (
                <input
                  {...ids}
                  inputMode="decimal"
                  value={d.maxValue}
                  onChange={(e) => set('maxValue', e.target.value, 'outputDefinition.score.maxValue')}
                />
              )}
            </Field>
          </div>
        ) : null}
        {d.dataType === 'CATEGORICAL' ? (
          <>
            <Field label="Categories" error={fields['outputDefinition.score.categories']} hint="one per line, at least two">
              {(ids) => (
                <textarea
                  {...ids}
                  rows={3}
                  value={d.categories}
                  onChange={(e) => set('categories', e.target.value, 'outputDefinition.score.categories')}
                />
              )}
            </Field>
            <label className="check">
              <input type="checkbox" checked={d.multipleMatches} onChange={(e) => set('multipleMatches', e.target.checked)} /> Several
              categories may apply (one score each)
            </label>
          </>
        ) : null}
        <Field label="What the reasoning explains" error={fields['outputDefinition.reasoning.description']}>
          {(ids) => (
            <input
              {...ids}
              value={d.reasoningDescription}
              onChange={(e) => set('reasoningDescription', e.target.value, 'outputDefinition.reasoning.description')}
            />
          )}
        </Field>
      </fieldset>

      <fieldset>
        <legend>Judge model</legend>
        <div className="row">
          <Field label="Connection" error={fields.modelConfig} hint="an LLM connection's provider name">
            {(ids) => (
              <>
                <input
                  {...ids}
                  list="evaluator-connections"
                  value={d.provider}
                  onChange={(e) => set('provider', e.target.value, 'modelConfig', 'modelConfig.provider')}
                  autoComplete="off"
                />
                <datalist id="evaluator-connections">
                  {(connections ?? []).map((p) => (
                    <option key={p} value={p} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field label="Model" error={fields['modelConfig.model']}>
            {(ids) => (
              <input
                {...ids}
                value={d.model}
                placeholder="gpt-4o-mini"
                onChange={(e) => set('model', e.target.value, 'modelConfig', 'modelConfig.model')}
                autoComplete="off"
              />
            )}
          </Field>
        </div>
      </fieldset>

      <PromptPreviewPanel prompt={d.prompt} mapping={mappingOf(d)} />

      <ErrorBanner problem={problem} title={editing ? 'The new version was not saved' : 'The evaluator was not created'} />
      <div className="actions">
        <button type="submit" aria-disabled={busy || undefined}>
          {busy ? 'Saving…' : editing ? 'Save new version' : 'Create evaluator'}
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

/** the judge prompt filled from a chosen generation, through the server's prompt-preview */
function PromptPreviewPanel({ prompt, mapping }: { prompt: string; mapping: { variable: string; source: Source; jsonPath?: string }[] }) {
  const tally = useTally();
  const [observationId, setObservationId] = useState('');
  // the newest generation is offered once; after that the field is the person's
  const [offered, setOffered] = useState(false);
  const [preview, setPreview] = useState<PromptPreview>();
  const [problem, setProblem] = useState<ProblemText>();
  const [busy, setBusy] = useState(false);
  const recent = useLoad(async () => (await tally.observations.list({ query: { type: 'GENERATION', limit: 20 } })).data.data, []).data;
  useEffect(() => {
    if (offered || !recent) return;
    setOffered(true);
    if (recent[0]) setObservationId((id) => id || recent[0]!.id);
  }, [recent, offered]);

  async function run() {
    if (busy) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const { data } = await tally.evaluations.promptPreview({ body: { prompt, mapping, observationId: observationId.trim() } });
      setPreview(data);
    } catch (e) {
      setPreview(undefined);
      setProblem(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <fieldset className="prompt-preview">
      <legend>Preview</legend>
      <div className="row">
        <Field label="Generation to fill the prompt from" hint="a recent generation, or any observation id">
          {(ids) => (
            <>
              <input
                {...ids}
                list="preview-generations"
                value={observationId}
                onChange={(e) => {
                  setOffered(true);
                  setObservationId(e.target.value);
                }}
              />
              <datalist id="preview-generations">
                {(recent ?? []).map((o) => (
                  <option key={o.id} value={o.id}>
                    {`${o.name ?? 'unnamed'} · ${o.model ?? ''} · ${o.startTime}`}
                  </option>
                ))}
              </datalist>
            </>
          )}
        </Field>
        <button type="button" className="secondary" onClick={run} disabled={!prompt.trim() || !observationId.trim()}>
          {busy ? 'Filling…' : 'Preview prompt'}
        </button>
      </div>
      <ErrorBanner problem={problem} title="No preview" />
      {preview ? (
        <>
          <section aria-label="What the judge would read">
            <pre className="prompt">{preview.prompt}</pre>
          </section>
          {preview.unfilled.length ? (
            <p className="warn-text" role="status">
              Not filled from this generation: {preview.unfilled.join(', ')}
            </p>
          ) : null}
        </>
      ) : null}
    </fieldset>
  );
}
