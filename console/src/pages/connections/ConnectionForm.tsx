// Create or update one connection, showing only the fields of the chosen adapter.
import { useFocusFirstInvalid } from '../../hooks.ts';
import { useEffect, useState, type FormEvent, type KeyboardEvent } from 'react';
import { describeError, useTally, type FieldErrors, type ProblemText } from '../../api.ts';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { Field } from '../../components/Field.tsx';
import type { LlmAdapter, LlmConnection } from '../../../../sdk/index.ts';
import { ADAPTERS, buildBody, emptyForm, formOf, type BedrockAuth, type FormState } from './form-state.ts';
import { HeaderRows } from './HeaderRows.tsx';

export function ConnectionForm({
  editing,
  onSaved,
  onCancel,
}: {
  /** the stored connection being edited, or undefined to create one */
  editing?: LlmConnection;
  onSaved: (c: LlmConnection, created: boolean) => void;
  onCancel?: () => void;
}) {
  const tally = useTally();
  const [s, setS] = useState<FormState>(() => (editing ? formOf(editing) : emptyForm()));
  const [newModel, setNewModel] = useState('');
  const [fields, setFields] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<ProblemText>();
  const [busy, setBusy] = useState(false);
  const [formRef, focusFirstInvalid] = useFocusFirstInvalid();
  // Edit is pressed far below the form: take the keyboard to it, not just the scroll position
  useEffect(() => {
    if (editing) formRef.current?.querySelector<HTMLElement>('select, input:not([readonly]), textarea')?.focus();
  }, [editing, formRef]);
  const set = <K extends keyof FormState>(k: K, v: FormState[K]) => setS((x) => ({ ...x, [k]: v }));
  const title = editing ? `Edit connection ${editing.provider}` : 'New connection';
  // the server keeps the stored key when an edit leaves it out and keeps the adapter
  const keyHint = !editing
    ? undefined
    : editing.adapter === s.adapter
      ? `Leave blank to keep the stored key (${editing.displaySecretKey}); it is never shown.`
      : `The stored key belongs to the ${editing.adapter} adapter: enter the key for this one.`;

  function addModel() {
    const name = newModel.trim();
    if (name && !s.customModels.includes(name)) set('customModels', [...s.customModels, name]);
    setNewModel('');
  }
  function onModelKey(e: KeyboardEvent<HTMLInputElement>) {
    // Enter adds the model rather than submitting the whole form
    if (e.key === 'Enter') {
      e.preventDefault();
      addModel();
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    // a model typed but not added yet is surely meant to be saved
    const pending = newModel.trim();
    const state = pending && !s.customModels.includes(pending) ? { ...s, customModels: [...s.customModels, pending] } : s;
    if (pending) {
      setS(state);
      setNewModel('');
    }
    const built = buildBody(state, editing?.adapter ?? null);
    setProblem(undefined);
    if ('errors' in built) {
      setFields(built.errors);
      focusFirstInvalid();
      return;
    }
    setFields({});
    setBusy(true);
    try {
      const { data, response } = await tally.llmConnections.upsert({ body: built.body });
      onSaved(data, response.status === 201);
      if (!editing) {
        setS(emptyForm());
      }
    } catch (err) {
      const p = describeError(err);
      setProblem(p);
      // some refusals come as a bare message rather than an issue list: still put them by their field
      const fields = { ...p.fields };
      if (!fields.baseURL && p.message.startsWith('Invalid baseURL')) fields.baseURL = p.message;
      if (!fields.secretKey && p.message.startsWith('Default AWS credentials')) fields.secretKey = p.message;
      setFields(fields);
      if (Object.keys(fields).length) focusFirstInvalid();
    } finally {
      setBusy(false);
    }
  }

  const a = s.adapter;
  const headerErrors = (i: number, name: string) => fields[`headers.${i}`] ?? fields[`extraHeaders.${name.trim()}`];
  const modelErrors = Object.entries(fields)
    .filter(([k]) => k.startsWith('customModels'))
    .map(([, v]) => v)
    .join('; ');

  return (
    <form ref={formRef} className="card connection-form" aria-label={title} onSubmit={submit} noValidate>
      <h2>{title}</h2>
      <div className="grid-2">
        <Field
          label="Provider name"
          error={fields.provider}
          hint={
            editing
              ? 'The connection is keyed on this name; it cannot be renamed here.'
              : 'The name the playground and evaluators use to pick this connection.'
          }
        >
          {(ids) => (
            <input {...ids} value={s.provider} readOnly={!!editing} onChange={(e) => set('provider', e.target.value)} autoComplete="off" />
          )}
        </Field>
        <Field label="Adapter" error={fields.adapter} hint="The provider API this connection speaks.">
          {(ids) => (
            <select
              {...ids}
              value={a}
              onChange={(e) => {
                set('adapter', e.target.value as LlmAdapter);
                // messages about the other adapter's fields would land on this one's (Bedrock's region under the Responses API box)
                setFields({});
                setProblem(undefined);
              }}
            >
              {ADAPTERS.map((x) => (
                <option key={x.value} value={x.value}>
                  {x.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>

      {a === 'bedrock' ? (
        <fieldset className="bedrock">
          <legend>AWS credentials</legend>
          <div className="choices" role="radiogroup" aria-label="Bedrock credentials">
            {(
              [
                ['accessKeys', 'Access key id and secret access key'],
                ['apiKey', 'Bedrock API key'],
                ['default', "The server's default AWS credentials (self-hosted only)"],
              ] as [BedrockAuth, string][]
            ).map(([v, label]) => (
              <label key={v}>
                <input type="radio" name="bedrock-auth" value={v} checked={s.bedrockAuth === v} onChange={() => set('bedrockAuth', v)} />{' '}
                {label}
              </label>
            ))}
          </div>
          {s.bedrockAuth === 'accessKeys' ? (
            <div className="grid-2">
              <Field label="Access key id" error={fields.secretKey} hint={keyHint}>
                {(ids) => <input {...ids} value={s.accessKeyId} onChange={(e) => set('accessKeyId', e.target.value)} autoComplete="off" />}
              </Field>
              <Field label="Secret access key">
                {(ids) => (
                  <input
                    {...ids}
                    type="password"
                    value={s.secretAccessKey}
                    onChange={(e) => set('secretAccessKey', e.target.value)}
                    autoComplete="new-password"
                  />
                )}
              </Field>
            </div>
          ) : s.bedrockAuth === 'apiKey' ? (
            <Field label="Bedrock API key" error={fields.secretKey} hint={keyHint}>
              {(ids) => (
                <input
                  {...ids}
                  type="password"
                  value={s.bedrockApiKey}
                  onChange={(e) => set('bedrockApiKey', e.target.value)}
                  autoComplete="new-password"
                />
              )}
            </Field>
          ) : (
            <p className="hint">
              Tally uses the AWS credential chain of the machine it runs on.
              {fields.secretKey ? <span className="field-error"> {fields.secretKey}</span> : null}
            </p>
          )}
          <Field label="AWS region" error={fields.config} hint="For example us-east-1.">
            {(ids) => <input {...ids} value={s.region} onChange={(e) => set('region', e.target.value)} autoComplete="off" />}
          </Field>
        </fieldset>
      ) : a === 'google-vertex-ai' ? (
        <div className="grid-2">
          <Field
            label="Service account key (JSON)"
            error={fields.secretKey}
            hint={keyHint ?? 'The JSON key file of a service account allowed to call Vertex AI.'}
          >
            {(ids) => (
              <textarea
                {...ids}
                className="mono"
                value={s.secretKey}
                onChange={(e) => set('secretKey', e.target.value)}
                spellCheck={false}
              />
            )}
          </Field>
          <Field label="Vertex location" error={fields.config} hint="For example us-central1; blank for the provider's default.">
            {(ids) => <input {...ids} value={s.location} onChange={(e) => set('location', e.target.value)} autoComplete="off" />}
          </Field>
        </div>
      ) : (
        <Field label="API key" error={fields.secretKey} hint={keyHint ?? 'Stored encrypted; only its last 4 characters are ever shown.'}>
          {(ids) => (
            <input
              {...ids}
              type="password"
              value={s.secretKey}
              onChange={(e) => set('secretKey', e.target.value)}
              autoComplete="new-password"
            />
          )}
        </Field>
      )}

      {a === 'openai' ? (
        <div className="field">
          <label className="check">
            <input type="checkbox" checked={s.useResponsesApi} onChange={(e) => set('useResponsesApi', e.target.checked)} /> Use the
            Responses API
          </label>
          <div className="hint">Calls /responses instead of /chat/completions.</div>
          {fields.config ? <div className="field-error">{fields.config}</div> : null}
        </div>
      ) : null}
      {a !== 'openai' && a !== 'bedrock' && a !== 'google-vertex-ai' && fields.config ? (
        <div className="field-error">{fields.config}</div>
      ) : null}

      <Field
        label="Base URL"
        error={fields.baseURL}
        hint={
          a === 'azure'
            ? 'Required for Azure: the resource URL, e.g. https://<resource>.openai.azure.com/openai (the deployment is the model name; Tally adds the api-version).'
            : a === 'openai'
              ? 'Blank for api.openai.com; any OpenAI-compatible endpoint, e.g. https://gateway.example.com/v1.'
              : "Blank for the provider's own endpoint."
        }
      >
        {(ids) => (
          <input
            {...ids}
            type="url"
            value={s.baseURL}
            onChange={(e) => set('baseURL', e.target.value)}
            autoComplete="off"
            placeholder="https://"
          />
        )}
      </Field>

      <fieldset>
        <legend>Models</legend>
        <label className="check">
          <input type="checkbox" checked={s.withDefaultModels} onChange={(e) => set('withDefaultModels', e.target.checked)} /> Offer the
          adapter's default models
        </label>
        <div className="row">
          <Field label="Custom model" error={modelErrors || undefined} hint="Press Enter or Add model; a name left here is added on save.">
            {(ids) => (
              <input {...ids} value={newModel} onChange={(e) => setNewModel(e.target.value)} onKeyDown={onModelKey} autoComplete="off" />
            )}
          </Field>
          <button type="button" className="secondary add-model" onClick={addModel}>
            Add model
          </button>
        </div>
        {s.customModels.length ? (
          <ul className="chips" aria-label="Custom models">
            {s.customModels.map((m) => (
              <li key={m}>
                <code>{m}</code>{' '}
                <button
                  type="button"
                  className="link"
                  aria-label={`Remove model ${m}`}
                  onClick={() =>
                    set(
                      'customModels',
                      s.customModels.filter((x) => x !== m),
                    )
                  }
                >
                  remove
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="hint">No custom models.</p>
        )}
      </fieldset>

      <HeaderRows rows={s.headers} editing={!!editing} onChange={(h) => set('headers', h)} errorOf={headerErrors} />

      <ErrorBanner problem={problem} title="Not saved" />
      <div className="row actions">
        <button type="submit" aria-disabled={busy || undefined}>
          {busy ? 'Saving…' : editing ? 'Save changes' : 'Create connection'}
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
