// Reprice past generations after a price changed: pick a window (and optionally only the models
// just changed), preview it as a dry run, and only then apply the same request for real. Both
// jobs are followed until they finish; the recent jobs below are the project's audit trail.
import { useFocusFirstInvalid } from '../../hooks.ts';
import { useId, useState, type FormEvent, type RefObject } from 'react';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { Field } from '../../components/Field.tsx';
import { ChangesTable } from './ChangesTable.tsx';
import { RecentJobs } from './RecentJobs.tsx';
import { progressText } from './reprice-format.ts';
import { resolveWindow, WINDOW_CHOICES, windowText, type WindowDraft, type WindowErrors } from './reprice-window.ts';
import { isFinished, useRepriceJob, type FollowedJob, type FollowedJobControls } from './useRepriceJob.ts';

/** a definition created or deleted on this page since it opened */
export interface ChangedModel {
  id: string;
  modelName: string;
  change: 'created' | 'deleted';
}

export function RepricePanel({
  changed,
  modelNames,
  onClose,
  headingRef,
}: {
  changed: ChangedModel[];
  /** model name by definition id, for the jobs' lists of models */
  modelNames: ReadonlyMap<string, string>;
  onClose: () => void;
  headingRef: RefObject<HTMLHeadingElement | null>;
}) {
  const [draft, setDraft] = useState<WindowDraft>({ choice: '30d', from: '', to: '' });
  const [errors, setErrors] = useState<WindowErrors>({});
  // narrowing to what just changed is what a price fix usually needs, and touches the least
  const [onlyChanged, setOnlyChanged] = useState(true);
  const [listTick, setListTick] = useState(0);
  const refreshList = () => setListTick((t) => t + 1);
  const preview = useRepriceJob(refreshList);
  const apply = useRepriceJob(refreshList);
  // what the preview was asked for, so Apply is offered only for the same choice
  const [previewedKey, setPreviewedKey] = useState<string>();
  const [formRef, focusFirstInvalid] = useFocusFirstInvalid();
  const scopeId = useId();
  const applyWhyId = useId();

  const modelIds = onlyChanged && changed.length ? changed.map((c) => c.id) : undefined;
  // presets are compared by name, not by instants: "last 7 days" a minute later is the same choice
  const key = JSON.stringify({
    choice: draft.choice,
    days: draft.choice === 'custom' ? [draft.from, draft.to] : null,
    modelIds: modelIds ?? null,
  });

  const previewBusy = preview.active;
  const applyBusy = apply.active;
  const applyWhy = whyNotApply(preview, apply, previewedKey === key);

  function startPreview(e: FormEvent) {
    e.preventDefault();
    if (previewBusy || applyBusy) return;
    const { window, errors: found } = resolveWindow(draft, new Date());
    setErrors(found);
    if (!window) {
      focusFirstInvalid();
      return;
    }
    apply.clear();
    setPreviewedKey(key);
    void preview.start({ ...window, dryRun: true, ...(modelIds ? { modelIds } : {}) });
  }

  function startApply() {
    if (applyWhy || !preview.request || applyBusy) return;
    void apply.start({ ...preview.request, dryRun: false });
  }

  // the applied job's report replaces the preview's once it is asked for
  const shown = apply.request ? apply : preview;

  return (
    <section className="card reprice-panel" aria-labelledby="reprice-title">
      <div className="panel-head">
        <h2 id="reprice-title" ref={headingRef} tabIndex={-1}>
          Reprice past generations
        </h2>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <p className="muted">
        A generation is priced once, when it is ingested. Reprice prices the generations of a window again with the definitions in force now
        (start dates honoured); a cost sent with a generation is never changed. Preview is a dry run that writes nothing; Apply then writes
        the new costs, and dashboards follow. Closing this panel stops following a job, not the job.
      </p>

      <form ref={formRef} onSubmit={startPreview} aria-label="Reprice window" noValidate>
        <fieldset>
          <legend>Generations that started</legend>
          {WINDOW_CHOICES.map((c) => (
            <label key={c.value} className="check">
              <input
                type="radio"
                name="reprice-window"
                checked={draft.choice === c.value}
                onChange={() => setDraft((d) => ({ ...d, choice: c.value }))}
              />{' '}
              {c.label}
            </label>
          ))}
          {draft.choice === 'custom' ? (
            <div className="row">
              <Field label="First day (UTC)" error={errors.from}>
                {(ids) => (
                  <input {...ids} type="date" value={draft.from} onChange={(e) => setDraft((d) => ({ ...d, from: e.target.value }))} />
                )}
              </Field>
              <Field label="Last day (UTC)" error={errors.to} hint="included">
                {(ids) => <input {...ids} type="date" value={draft.to} onChange={(e) => setDraft((d) => ({ ...d, to: e.target.value }))} />}
              </Field>
            </div>
          ) : null}
        </fieldset>
        {changed.length ? (
          <div className="scope">
            <label className="check">
              <input type="checkbox" checked={onlyChanged} onChange={(e) => setOnlyChanged(e.target.checked)} aria-describedby={scopeId} />{' '}
              Only generations of the models just changed
            </label>
            <div id={scopeId} className="hint">
              {changed.map((c) => `${c.change} ${c.modelName}`).join('; ')}: the generations these definitions price now or priced before
            </div>
          </div>
        ) : null}
        <div className="reprice-actions">
          <button type="submit" aria-disabled={previewBusy || applyBusy || undefined}>
            {previewBusy ? 'Previewing…' : 'Preview'}
          </button>
          <button
            type="button"
            aria-disabled={Boolean(applyWhy) || applyBusy || undefined}
            aria-describedby={applyWhyId}
            onClick={startApply}
          >
            {applyBusy ? 'Applying…' : 'Apply'}
          </button>
          <span id={applyWhyId} className="hint">
            {applyWhy ?? `Writes the new costs of the previewed window${preview.request?.modelIds ? ' and models' : ''}.`}
          </span>
        </div>
      </form>

      <p className="reprice-progress" role="status" aria-live="polite">
        {progressText(shown)}
      </p>
      <JobReport followed={shown} />

      <RecentJobs refresh={listTick} modelNames={modelNames} />
    </section>
  );
}

/** why Apply cannot run now, or undefined when it can */
function whyNotApply(preview: FollowedJob, apply: FollowedJob, sameChoice: boolean): string | undefined {
  // not again while the real job's outcome is unknown
  if (apply.problemIn === 'read') return "The reprice's progress could not be read: check again.";
  if (apply.starting || (apply.id && !isFinished(apply.status))) return 'Applying the previewed change…';
  if (apply.status === 'succeeded') return 'Applied. Preview again to reprice another window.';
  if (preview.starting || (preview.id && !isFinished(preview.status))) return 'Apply is possible once the preview has finished.';
  if (preview.status !== 'succeeded') return 'Preview first: Apply runs only a window whose change you have seen.';
  if (!sameChoice) return 'The window or the models changed since the preview: preview again.';
  return undefined;
}

/** the followed job's errors, window and change table */
function JobReport({ followed }: { followed: FollowedJobControls }) {
  const dry = followed.request?.dryRun !== false;
  const what = dry ? 'preview' : 'reprice';
  const { job, request } = followed;
  return (
    <>
      {followed.problemIn === 'start' ? <ErrorBanner problem={followed.problem} title={`The ${what} was not started`} /> : null}
      {followed.problemIn === 'read' ? (
        <>
          <ErrorBanner problem={followed.problem} title="Could not read the job's progress (it may still be running)" />
          <button type="button" className="secondary" onClick={followed.checkAgain}>
            Check again
          </button>
        </>
      ) : null}
      {job?.status === 'failed' ? (
        <div className="error-banner" role="alert">
          <strong>The {what} failed: </strong>
          {job.error || 'the server gave no reason'}
        </div>
      ) : null}
      {request && followed.id ? (
        <p className="small">
          Window: {windowText(request.fromTimestamp, request.toTimestamp)}
          {request.modelIds?.length ? ', only the models just changed' : ', every model'}
          {dry ? ' (dry run: nothing written)' : ''}.
        </p>
      ) : null}
      {job && job.changes.length > 0 ? (
        <ChangesTable changes={job.changes} dryRun={dry} label={dry ? 'Changes the preview found' : 'Changes applied'} />
      ) : job?.status === 'succeeded' ? (
        <p className="muted">
          {dry ? 'No generation in this window would change' : 'No generation changed'}: their costs already match the prices in force now.
        </p>
      ) : null}
    </>
  );
}
