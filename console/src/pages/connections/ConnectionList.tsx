// The stored connections (secrets masked) with Test, Edit and Delete per connection.
import { useEffect, useRef, useState } from 'react';
import { describeError, useTally, type ProblemText } from '../../api.ts';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import type { LlmConnection, LlmConnectionTestResult } from '../../../../sdk/index.ts';
import { ADAPTERS } from './form-state.ts';

const adapterLabel = (a: string) => ADAPTERS.find((x) => x.value === a)?.label ?? a;

export function ConnectionList({
  connections,
  onEdit,
  onDeleted,
}: {
  connections: LlmConnection[];
  onEdit: (c: LlmConnection) => void;
  onDeleted: (c: LlmConnection) => void;
}) {
  return (
    <div className="table-wrap">
      <table aria-label="LLM connections">
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col">Adapter</th>
            <th scope="col">Key</th>
            <th scope="col">Base URL</th>
            <th scope="col">Custom models</th>
            <th scope="col">Headers</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {/* keyed on updatedAt too: a probe result of the connection as it was before a save is stale */}
          {connections.map((c) => (
            <ConnectionRow key={`${c.id}@${c.updatedAt}`} c={c} onEdit={onEdit} onDeleted={onDeleted} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ConnectionRow({
  c,
  onEdit,
  onDeleted,
}: {
  c: LlmConnection;
  onEdit: (c: LlmConnection) => void;
  onDeleted: (c: LlmConnection) => void;
}) {
  const config =
    c.config && Object.keys(c.config).length
      ? Object.entries(c.config)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join(', ')
      : null;
  return (
    <tr>
      <th scope="row">{c.provider}</th>
      <td>
        {adapterLabel(c.adapter)}
        {config ? <div className="muted">{config}</div> : null}
      </td>
      <td>
        {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: names the masked value for the console's tests and assistive tools that read it */}
        <code aria-label={`Masked key of ${c.provider}`}>{c.displaySecretKey}</code>
      </td>
      <td className="break">{c.baseURL ?? <span className="muted">provider default</span>}</td>
      <td>
        {c.customModels.length ? (
          c.customModels.map((m) => (
            <code key={m} className="chip">
              {m}
            </code>
          ))
        ) : (
          <span className="muted">none</span>
        )}
        <div className="muted">{c.withDefaultModels ? '+ default models' : 'no default models'}</div>
      </td>
      <td>
        {c.extraHeaderKeys.length ? (
          c.extraHeaderKeys.map((h) => (
            <code key={h} className="chip">
              {h}
            </code>
          ))
        ) : (
          <span className="muted">none</span>
        )}
      </td>
      <td>
        <RowActions c={c} onEdit={onEdit} onDeleted={onDeleted} />
      </td>
    </tr>
  );
}

function RowActions({
  c,
  onEdit,
  onDeleted,
}: {
  c: LlmConnection;
  onEdit: (c: LlmConnection) => void;
  onDeleted: (c: LlmConnection) => void;
}) {
  const tally = useTally();
  const [testing, setTesting] = useState(false);
  const [result, setResult] = useState<LlmConnectionTestResult>();
  // the model the probe uses: a model the user named first (the one they mean to use), any other by choice
  const [testModel, setTestModel] = useState(c.customModels[0] ?? '');
  const [models, setModels] = useState<string[]>(c.customModels);
  const [modelsLoaded, setModelsLoaded] = useState(false);
  async function loadModels() {
    if (modelsLoaded) return;
    setModelsLoaded(true);
    try {
      const { data } = await tally.llmConnections.models({ path: { id: c.id } });
      setModels(data.data.map((m) => m.name));
    } catch {
      // the list is a convenience: any model name can still be typed
    }
  }
  const [problem, setProblem] = useState<ProblemText>();
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const deleteRef = useRef<HTMLButtonElement>(null);
  // where focus goes once the confirmation opens or closes: the Delete button is disabled while it
  // is open, so it can only take focus back after the re-render that enables it
  const [focusBack, setFocusBack] = useState(false);
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);
  useEffect(() => {
    if (!confirming && focusBack) {
      deleteRef.current?.focus();
      setFocusBack(false);
    }
  }, [confirming, focusBack]);
  const cancel = () => {
    setConfirming(false);
    setFocusBack(true);
  };

  async function test() {
    if (testing) return;
    setTesting(true);
    setResult(undefined);
    setProblem(undefined);
    try {
      const model = testModel.trim();
      const { data } = await tally.llmConnections.test({ path: { id: c.id }, body: model ? { model } : {} });
      setResult(data);
    } catch (e) {
      setProblem(describeError(e));
    } finally {
      setTesting(false);
    }
  }

  async function remove() {
    if (deleting) return;
    setDeleting(true);
    setProblem(undefined);
    try {
      await tally.llmConnections.delete({ path: { id: c.id } });
      onDeleted(c);
    } catch (e) {
      setProblem(describeError(e));
      setDeleting(false);
      cancel();
    }
  }

  return (
    <div className="row-actions">
      <div className="buttons">
        <label className="test-model">
          <span className="visually-hidden">Model to test {c.provider} with</span>
          <input
            list={`test-models-${c.id}`}
            value={testModel}
            placeholder="default model"
            onChange={(e) => setTestModel(e.target.value)}
            onFocus={() => void loadModels()}
            autoComplete="off"
          />
          <datalist id={`test-models-${c.id}`}>
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
        <button type="button" className="secondary" aria-label={`Test ${c.provider}`} onClick={test} aria-disabled={testing || undefined}>
          {testing ? 'Testing…' : 'Test'}
        </button>
        <button type="button" className="secondary" aria-label={`Edit ${c.provider}`} onClick={() => onEdit(c)}>
          Edit
        </button>
        <button
          type="button"
          className="danger"
          ref={deleteRef}
          aria-label={`Delete ${c.provider}`}
          onClick={() => setConfirming(true)}
          disabled={confirming}
        >
          Delete
        </button>
      </div>
      {confirming ? (
        // biome-ignore lint/a11y/useSemanticElements: two buttons, not a form: a fieldset would bring form semantics and styling
        <div
          className="confirm"
          role="group"
          aria-label={`Confirm deleting ${c.provider}`}
          onKeyDown={(e) => {
            if (e.key === 'Escape') cancel();
          }}
        >
          <p>
            Delete <strong>{c.provider}</strong> and its stored key? Evaluators using it pause until a connection of that name exists again.
          </p>
          <button type="button" className="danger" ref={confirmRef} onClick={remove} aria-disabled={deleting || undefined}>
            {deleting ? 'Deleting…' : 'Yes, delete'}
          </button>{' '}
          <button type="button" className="secondary" onClick={cancel}>
            Keep it
          </button>
        </div>
      ) : null}
      <div role="status" aria-label={`Test result of ${c.provider}`}>
        {result ? <TestOutcome r={result} /> : null}
      </div>
      <ErrorBanner problem={problem} />
    </div>
  );
}

function TestOutcome({ r }: { r: LlmConnectionTestResult }) {
  if (r.ok) {
    return (
      <div className="ok-banner">
        <span className="badge ok">ok</span> {r.model} answered in {r.latencyMs} ms
        {r.responseModel ? (
          <>
            {' '}
            (response model <code>{r.responseModel}</code>)
          </>
        ) : null}
      </div>
    );
  }
  return (
    <div className="error-banner">
      <span className="badge bad">{r.error?.kind ?? 'failed'}</span> {r.model}
      {r.error?.providerStatus !== undefined ? ` (provider status ${r.error.providerStatus})` : ''}:{' '}
      {r.error?.message ?? 'the provider did not answer as expected'}
      <span className="muted"> after {r.latencyMs} ms</span>
    </div>
  );
}
