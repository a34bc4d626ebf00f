// The Models page: every model that prices generations (managed and project), creating and
// deleting project models, a dry run of how a generation would be priced, and repricing past
// generations once prices changed.
import { useEffect, useRef, useState } from 'react';
import { useTally } from '../api.ts';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { Field } from '../components/Field.tsx';
import { useLoad } from '../hooks.ts';
import type { Model } from '../../../sdk/index.ts';
import { CreateModelForm } from './models/CreateModelForm.tsx';
import { ExplainPanel } from './models/ExplainPanel.tsx';
import { matches, ModelTable } from './models/ModelTable.tsx';
import { RepricePanel, type ChangedModel } from './models/RepricePanel.tsx';
import './models/models.css';
import './models/reprice.css';

export function Models() {
  const tally = useTally();
  const models = useLoad(async () => {
    const all: Model[] = [];
    const seen = new Set<string>();
    // pages can shift while they are walked (a model created meanwhile): keep each id once
    for await (const m of tally.models.iterate({ query: { limit: 100 } })) {
      if (!seen.has(m.id)) {
        seen.add(m.id);
        all.push(m);
      }
    }
    return all;
  }, [tally]);
  const [search, setSearch] = useState('');
  const [notice, setNotice] = useState<string>();
  const [explainModel, setExplainModel] = useState('');
  const usageRef = useRef<HTMLTextAreaElement>(null);
  // a deleted row takes the focused button with it: focus lands on the notice instead of the page
  const noticeRef = useRef<HTMLDivElement>(null);
  const [focusNotice, setFocusNotice] = useState(0);
  useEffect(() => {
    if (focusNotice) noticeRef.current?.focus();
  }, [focusNotice]);

  // definitions created or deleted here: the reprice panel can narrow a job to them
  const [changed, setChanged] = useState<ChangedModel[]>([]);
  const noteChange = (m: Model, change: ChangedModel['change']) =>
    setChanged((list) => [...list.filter((c) => c.id !== m.id), { id: m.id, modelName: m.modelName, change }]);
  const [repriceOpen, setRepriceOpen] = useState(false);
  const repriceHeadingRef = useRef<HTMLHeadingElement>(null);
  const repriceButtonRef = useRef<HTMLButtonElement>(null);
  // opening (or asking again while open) takes the keyboard to the panel; closing, back to its button
  const [repriceFocus, setRepriceFocus] = useState<{ to: 'panel' | 'button'; n: number }>();
  useEffect(() => {
    if (repriceFocus?.to === 'panel') repriceHeadingRef.current?.focus();
    else if (repriceFocus?.to === 'button') repriceButtonRef.current?.focus();
  }, [repriceFocus]);
  const openReprice = () => {
    setRepriceOpen(true);
    setRepriceFocus((f) => ({ to: 'panel', n: (f?.n ?? 0) + 1 }));
  };

  const list = models.data ?? [];
  // a deleted definition is no longer listed, but its name is still the one to show
  const modelNames = new Map([...changed.map((c) => [c.id, c.modelName] as const), ...list.map((m) => [m.id, m.modelName] as const)]);
  const shown = list.filter((m) => matches(m, search)).length;
  const managed = list.filter((m) => m.isLangfuseManaged).length;

  return (
    <div className="models-page">
      <div className="models-toolbar">
        <button ref={repriceButtonRef} type="button" className="secondary" aria-expanded={repriceOpen} onClick={openReprice}>
          Reprice past generations…
        </button>
      </div>
      {repriceOpen ? (
        <RepricePanel
          changed={changed}
          modelNames={modelNames}
          headingRef={repriceHeadingRef}
          onClose={() => {
            setRepriceOpen(false);
            setRepriceFocus((f) => ({ to: 'button', n: (f?.n ?? 0) + 1 }));
          }}
        />
      ) : null}
      <section className="card" aria-labelledby="models-list-title">
        <h2 id="models-list-title">Model definitions</h2>
        <p className="muted">
          Generations whose model matches a pattern are priced with that model's tiers. Managed models are shared by every project and
          read-only; a project model with the same name takes precedence.
        </p>
        <div className="row">
          <Field
            label="Search models"
            hint="a model name as you send it (matched against the patterns, as the server does), or part of a name or pattern"
          >
            {(ids) => <input {...ids} type="search" value={search} onChange={(e) => setSearch(e.target.value)} />}
          </Field>
        </div>
        {notice ? (
          <div className="ok-banner notice" role="status" ref={noticeRef} tabIndex={-1}>
            <span>{notice}</span> <span>Prices changed: past generations keep their old cost.</span>{' '}
            <button type="button" className="link" onClick={openReprice}>
              Reprice…
            </button>
          </div>
        ) : null}
        <ErrorBanner problem={models.error} title="Could not load the models" />
        {models.error ? (
          <button type="button" className="secondary" onClick={models.reload}>
            Try again
          </button>
        ) : null}
        {models.data ? (
          <>
            <p className="count" role="status" aria-live="polite">
              {search.trim() ? `${shown} of ${list.length} models` : `${list.length} models`} ({managed} managed, {list.length - managed}{' '}
              project)
            </p>
            <ModelTable
              models={list}
              search={search}
              onDeleted={(m) => {
                noteChange(m, 'deleted');
                setNotice(`Deleted model ${m.modelName}.`);
                setFocusNotice((n) => n + 1);
                models.reload();
              }}
              onExplain={(name) => {
                setExplainModel(name);
                usageRef.current?.focus();
              }}
            />
          </>
        ) : models.loading ? (
          <p className="muted" role="status">
            Loading models…
          </p>
        ) : null}
      </section>

      <div className="grid-2">
        <section className="card" aria-labelledby="create-model-title">
          <h2 id="create-model-title">Create a model</h2>
          <CreateModelForm
            onCreated={(m) => {
              noteChange(m, 'created');
              setNotice(`Created model ${m.modelName}.`);
              setSearch('');
              models.reload();
            }}
          />
        </section>
        <section className="card" aria-labelledby="explain-title">
          <h2 id="explain-title">Explain a cost</h2>
          <p className="muted">
            Price a would-be generation without storing anything: the matched model, the tier and why, and each usage line.
          </p>
          <ExplainPanel
            model={explainModel}
            onModelChange={setExplainModel}
            modelNames={[...new Set(list.map((m) => m.modelName))]}
            usageRef={usageRef}
          />
        </section>
      </div>
    </div>
  );
}
