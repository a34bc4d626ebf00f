// Creates a project model: flat prices, or usage types priced by tiers. The server's issues
// appear next to their controls (by issue path) and its message in the banner.
import { useFocusFirstInvalid } from '../../hooks.ts';
import { useState, type FormEvent } from 'react';
import { describeError, useTally, type FieldErrors, type ProblemText } from '../../api.ts';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { Field } from '../../components/Field.tsx';
import type { Model, ModelUsageUnit } from '../../../../sdk/index.ts';
import { emptyDraft, pieceOf, shownPaths, toRequest, UNITS, withMode, type ModelDraft } from './draft.ts';
import { TierEditor } from './TierEditor.tsx';

export function CreateModelForm({ onCreated }: { onCreated: (model: Model) => void }) {
  const tally = useTally();
  const [draft, setDraft] = useState<ModelDraft>(emptyDraft);
  const [local, setLocal] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<ProblemText>();
  const [busy, setBusy] = useState(false);
  // the draft the messages are about: a message goes once its field changes from this
  const [judged, setJudged] = useState<ModelDraft>();

  const [formRef, focusFirstInvalid] = useFocusFirstInvalid();

  const update = (change: (d: ModelDraft) => ModelDraft) => setDraft(change);
  const set = <K extends keyof ModelDraft>(key: K, value: ModelDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const errorOf = (path: string) => {
    const said = local[path] ?? problem?.fields[path];
    return said && judged && pieceOf(draft, path) !== pieceOf(judged, path) ? undefined : said;
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setProblem(undefined);
    const { body, errors } = toRequest(draft);
    setLocal(errors);
    setJudged(draft);
    if (!body) {
      focusFirstInvalid();
      return;
    }
    setBusy(true);
    try {
      const { data } = await tally.models.create({ body });
      setDraft(emptyDraft());
      onCreated(data);
    } catch (err) {
      const p = describeError(err);
      // a taken name comes as a bare message, without an issue path: still put it by the name
      if (!p.fields.modelName && /^Model name .* already exists/.test(p.message)) p.fields = { ...p.fields, modelName: p.message };
      setProblem(p);
      focusFirstInvalid();
    } finally {
      setBusy(false);
    }
  }

  // issues whose path no control shows (a field this form lacks) still reach the person
  const shown = shownPaths(draft);
  const elsewhere = Object.entries(problem?.fields ?? {}).filter(([path]) => !shown.has(path));
  const localCount = Object.keys(local).length;

  return (
    <form ref={formRef} onSubmit={submit} aria-label="Create a model" noValidate className="create-model">
      <div className="row">
        <Field
          label="Model name"
          error={errorOf('modelName')}
          hint="e.g. gpt-4o-mini; a project model overrides a managed one of the same name"
        >
          {(ids) => <input {...ids} required value={draft.modelName} onChange={(e) => set('modelName', e.target.value)} />}
        </Field>
        <Field
          label="Match pattern"
          error={errorOf('matchPattern')}
          hint={
            <>
              Regex on the generation's model, e.g. <code>(?i)^(gpt-4o-mini)$</code>
            </>
          }
        >
          {(ids) => (
            <input {...ids} required className="mono" value={draft.matchPattern} onChange={(e) => set('matchPattern', e.target.value)} />
          )}
        </Field>
      </div>
      <div className="row">
        <Field label="Unit" error={errorOf('unit')}>
          {(ids) => (
            <select {...ids} value={draft.unit} onChange={(e) => set('unit', e.target.value as ModelUsageUnit)}>
              {UNITS.map((u) => (
                <option key={u} value={u}>
                  {u}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Start date (optional)" error={errorOf('startDate')} hint="prices apply to generations from this day">
          {(ids) => <input {...ids} type="date" value={draft.startDate} onChange={(e) => set('startDate', e.target.value)} />}
        </Field>
        <Field label="Tokenizer (optional)" error={errorOf('tokenizerId')} hint="counts tokens when a generation has no usage">
          {(ids) => (
            <select {...ids} value={draft.tokenizerId} onChange={(e) => set('tokenizerId', e.target.value as ModelDraft['tokenizerId'])}>
              <option value="">none</option>
              <option value="openai">openai</option>
              <option value="claude">claude</option>
            </select>
          )}
        </Field>
      </div>
      <Field
        label="Tokenizer config (JSON, optional)"
        error={errorOf('tokenizerConfig')}
        hint={
          <>
            e.g. <code>{'{"tokenizerModel": "gpt-4o", "tokensPerMessage": 3, "tokensPerName": 1}'}</code>
          </>
        }
      >
        {(ids) => (
          <textarea
            {...ids}
            className="mono"
            rows={2}
            value={draft.tokenizerConfig}
            onChange={(e) => set('tokenizerConfig', e.target.value)}
          />
        )}
      </Field>

      <fieldset className="price-mode">
        <legend>Prices</legend>
        <label className="check">
          <input type="radio" name="price-mode" checked={draft.mode === 'flat'} onChange={() => update((d) => withMode(d, 'flat'))} /> Flat
          prices
        </label>
        <label className="check">
          <input type="radio" name="price-mode" checked={draft.mode === 'tiers'} onChange={() => update((d) => withMode(d, 'tiers'))} />{' '}
          Pricing tiers
        </label>
        {errorOf('') ? <div className="field-error">{errorOf('')}</div> : null}
        {draft.mode === 'flat' ? (
          <div className="row">
            {(
              [
                ['inputPrice', 'Input price'],
                ['outputPrice', 'Output price'],
                ['totalPrice', 'Total price'],
              ] as const
            ).map(([key, label]) => (
              <Field key={key} label={label} hint="USD per unit (per token for TOKENS)" error={errorOf(key)}>
                {(ids) => (
                  <input
                    {...ids}
                    inputMode="decimal"
                    placeholder="0.000001"
                    value={draft[key]}
                    onChange={(e) => set(key, e.target.value)}
                  />
                )}
              </Field>
            ))}
          </div>
        ) : (
          <TierEditor draft={draft} update={update} errorOf={errorOf} />
        )}
      </fieldset>

      <ErrorBanner problem={problem} title="The model was not created" />
      {elsewhere.length ? (
        <ul className="field-error" aria-label="Other problems">
          {elsewhere.map(([path, message]) => (
            <li key={path}>
              {path ? <code>{path}</code> : null} {message}
            </li>
          ))}
        </ul>
      ) : null}
      {localCount ? (
        <div className="error-banner" role="alert">
          Fix the {localCount === 1 ? 'field' : `${localCount} fields`} marked below the controls first.
        </div>
      ) : null}
      <button type="submit" aria-disabled={busy || undefined}>
        {busy ? 'Creating…' : 'Create model'}
      </button>
    </form>
  );
}
