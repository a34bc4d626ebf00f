// Playground: send messages through one of the project's LLM connections and watch the answer
// stream in, then see what it cost. Every run is recorded as a trace (environment tally-playground).
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTally, type FieldErrors } from '../api.ts';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { Field } from '../components/Field.tsx';
import { useLoad } from '../hooks.ts';
import type { LlmConnection, PlaygroundCompletion } from '../../../sdk/index.ts';
import { AnswerText, CompletionDetails, FailureBanner } from './playground/CompletionView.tsx';
import { MessagesEditor } from './playground/MessagesEditor.tsx';
import { buildRequest, type PlaygroundForm } from './playground/request.ts';
import { runCompletion, type CallFailure } from './playground/run.ts';
import './playground/playground.css';

interface RunState {
  text: string;
  streaming: boolean;
  completion?: PlaygroundCompletion;
  failure?: CallFailure;
  stopped?: boolean;
}

export function Playground() {
  const tally = useTally();
  const connections = useLoad(async () => {
    const all: LlmConnection[] = [];
    for await (const c of tally.llmConnections.iterate({ query: { limit: 100 } })) all.push(c);
    return all;
  }, [tally]);
  const [form, setForm] = useState<PlaygroundForm>({
    provider: '',
    model: '',
    messages: [{ role: 'user', content: '' }],
    temperature: '',
    topP: '',
    maxTokens: '',
    providerOptions: '',
  });
  const [stream, setStream] = useState(true);
  const [fields, setFields] = useState<FieldErrors>({});
  const [run, setRun] = useState<RunState>();
  const abort = useRef<AbortController | null>(null);
  const set = <K extends keyof PlaygroundForm>(k: K, v: PlaygroundForm[K]) => setForm((f) => ({ ...f, [k]: v }));

  // the first connection is picked once the list arrives
  // biome-ignore lint/correctness/useExhaustiveDependencies: `set` is a fresh closure each render; re-running for it would loop
  useEffect(() => {
    const first = connections.data?.[0];
    if (first && !connections.data!.some((c) => c.provider === form.provider)) set('provider', first.provider);
  }, [connections.data, form.provider]);
  const connection = connections.data?.find((c) => c.provider === form.provider);
  const models = useLoad(
    async () => (connection ? (await tally.llmConnections.models({ path: { id: connection.id } })).data.data : []),
    [tally, connection?.id],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the model list arrives, not on every keystroke in the model field
  useEffect(() => {
    const list = models.data;
    if (!list || models.loading) return;
    // a custom model is what the user added this connection for: prefer it
    if (!list.some((m) => m.name === form.model)) set('model', (list.find((m) => m.source === 'custom') ?? list[0])?.name ?? '');
  }, [models.data, models.loading, form.model]);
  useEffect(() => () => abort.current?.abort(), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (run?.streaming) return;
    const built = buildRequest(form);
    if ('errors' in built) {
      setFields(built.errors);
      return;
    }
    setFields({});
    const controller = new AbortController();
    abort.current = controller;
    setRun({ text: '', streaming: true });
    const outcome = await runCompletion(tally, built.body, {
      stream,
      signal: controller.signal,
      onDelta: (t) => setRun((r) => (r ? { ...r, text: r.text + t } : r)),
    });
    abort.current = null;
    setRun((r) => {
      const text = r?.text ?? '';
      if (outcome.outcome === 'completion')
        return { text: outcome.completion.text ?? text, streaming: false, completion: outcome.completion };
      if (outcome.outcome === 'stopped') return { text, streaming: false, stopped: true };
      return { text, streaming: false, failure: outcome.failure };
    });
    if (outcome.outcome === 'failure') setFields(outcome.failure.fields);
  }

  if (connections.data && connections.data.length === 0) {
    return (
      <EmptyState title="No LLM connection yet">
        Create one on the <a href="#/connections">LLM connections</a> page (a provider name, an adapter and its key), then come back to call
        its models here.
      </EmptyState>
    );
  }

  const busy = !!run?.streaming;
  return (
    <div className="playground-page">
      <ErrorBanner problem={connections.error} title="Could not list the connections" />
      {connections.error ? (
        <button type="button" className="secondary" onClick={connections.reload}>
          Reload connections
        </button>
      ) : null}
      <form className="card" aria-label="Playground call" onSubmit={submit} noValidate>
        <div className="grid-2">
          <Field
            label="Connection"
            error={fields.provider}
            hint={
              connection
                ? `${connection.adapter} · key ${connection.displaySecretKey}`
                : connections.loading
                  ? 'Loading connections…'
                  : undefined
            }
          >
            {(ids) => (
              <select {...ids} value={form.provider} onChange={(e) => set('provider', e.target.value)} disabled={!connections.data}>
                {connections.data?.map((c) => (
                  <option key={c.id} value={c.provider}>
                    {c.provider}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            label="Model"
            error={fields.model ?? models.error?.message}
            hint={
              models.loading
                ? 'Loading models…'
                : connection && models.data?.length === 0
                  ? 'This connection offers no model: add a custom model on the LLM connections page.'
                  : undefined
            }
          >
            {(ids) => (
              <select {...ids} value={form.model} onChange={(e) => set('model', e.target.value)} disabled={!models.data?.length}>
                {models.data?.map((m) => (
                  <option key={m.name} value={m.name}>
                    {m.name}
                    {m.source === 'custom' ? ' (custom)' : ''}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>

        <MessagesEditor messages={form.messages} onChange={(m) => set('messages', m)} fields={fields} />

        <fieldset className="params">
          <legend>Parameters</legend>
          <p className="hint">Blank means not sent: the provider's default applies.</p>
          <div className="row">
            <Field label="Temperature" error={fields.temperature} hint="0 to 2">
              {(ids) => (
                <input
                  {...ids}
                  type="number"
                  inputMode="decimal"
                  step="0.1"
                  min={0}
                  max={2}
                  value={form.temperature}
                  onChange={(e) => set('temperature', e.target.value)}
                />
              )}
            </Field>
            <Field label="Top p" error={fields.top_p} hint="0 to 1">
              {(ids) => (
                <input
                  {...ids}
                  type="number"
                  inputMode="decimal"
                  step="0.05"
                  min={0}
                  max={1}
                  value={form.topP}
                  onChange={(e) => set('topP', e.target.value)}
                />
              )}
            </Field>
            <Field label="Max tokens" error={fields.max_tokens} hint="a whole number">
              {(ids) => (
                <input
                  {...ids}
                  type="number"
                  inputMode="numeric"
                  step="1"
                  min={1}
                  value={form.maxTokens}
                  onChange={(e) => set('maxTokens', e.target.value)}
                />
              )}
            </Field>
          </div>
          <Field
            label="Provider options (JSON)"
            error={fields.providerOptions}
            hint='A JSON object forwarded to the provider, e.g. {"reasoning_effort": "low"}.'
          >
            {(ids) => (
              <textarea
                {...ids}
                className="mono"
                value={form.providerOptions}
                onChange={(e) => set('providerOptions', e.target.value)}
                spellCheck={false}
              />
            )}
          </Field>
        </fieldset>

        <div className="row actions">
          <label className="check">
            <input type="checkbox" checked={stream} onChange={(e) => setStream(e.target.checked)} disabled={busy} /> Stream the answer
          </label>
          <button type="submit" disabled={!connections.data} aria-disabled={busy || undefined}>
            {busy ? 'Running…' : 'Run'}
          </button>
          {busy ? (
            <button type="button" className="danger" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          ) : null}
        </div>
      </form>

      {run ? (
        <div className="card result">
          {run.failure ? <FailureBanner f={run.failure} /> : null}
          {run.stopped ? (
            <div className="muted" role="status">
              Stopped: the call was aborted{run.text ? '; the text above is what had arrived' : ''}.
            </div>
          ) : null}
          {run.streaming || run.text || run.completion ? <AnswerText text={run.text} streaming={run.streaming} /> : null}
          {run.completion ? <CompletionDetails c={run.completion} /> : null}
        </div>
      ) : (
        <p className="muted">
          Pick a connection and a model, write a message and press Run: the answer streams in here, then its usage and cost. Each run is
          recorded as a trace in the <code>tally-playground</code> environment.
        </p>
      )}
    </div>
  );
}
