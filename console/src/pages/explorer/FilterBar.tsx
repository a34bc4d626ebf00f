// The explorer's filters as a form: text fields apply on Enter or "Apply", the range and the
// cost statuses as soon as they change (nothing to type). A custom range is applied only once
// both ends parse, so a half-typed date never reaches the URL or the API.
import { useState, type FormEvent } from 'react';
import { Field } from '../../components/Field.tsx';
import type { ExplorerFilters } from '../../links.ts';
import { COST_STATUSES, costStatusesOf } from './queries.ts';
import { inputValue, isPreset, PRESETS, resolveWindow } from './time-range.ts';

type TextKey = 'user' | 'session' | 'tag' | 'name' | 'model' | 'env';
const TEXT_FIELDS: Array<{ key: TextKey; label: string; hint: string; only?: 'generations' }> = [
  { key: 'user', label: 'User', hint: 'exact userId' },
  { key: 'session', label: 'Session', hint: 'exact sessionId' },
  { key: 'tag', label: 'Tag', hint: 'one of the trace’s tags' },
  { key: 'name', label: 'Name', hint: 'exact name' },
  { key: 'model', label: 'Model', hint: 'the model name sent', only: 'generations' },
  { key: 'env', label: 'Environment', hint: 'exact environment' },
];

export function FilterBar({
  kind,
  filters,
  onApply,
}: {
  kind: 'traces' | 'generations';
  filters: ExplorerFilters;
  onApply: (f: ExplorerFilters) => void;
}) {
  const [draft, setDraft] = useState<ExplorerFilters>(() => ({
    ...filters,
    // shown in the inputs' own form; a link's bare dates become the instants they stand for
    from: inputValue(filters.from),
    to: inputValue(filters.to, true),
    range: filters.range ?? (filters.from || filters.to ? 'custom' : ''),
  }));
  const [rangeError, setRangeError] = useState<string>();
  const range = draft.range ?? '';

  function apply(next: ExplorerFilters) {
    const custom = next.range === 'custom';
    const f: ExplorerFilters = { ...next };
    for (const t of TEXT_FIELDS) f[t.key] = next[t.key]?.trim() || undefined;
    Object.assign(f, {
      range: custom || isPreset(next.range) ? next.range : undefined,
      from: custom ? next.from : undefined,
      to: custom ? next.to : undefined,
      page: undefined, // another selection starts at its first page
    });
    const { error } = resolveWindow(f, new Date());
    setRangeError(error);
    if (!error) onApply(f);
  }
  const set = (patch: ExplorerFilters, now = false) => {
    const next = { ...draft, ...patch };
    setDraft(next);
    if (now) apply(next);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply(draft);
  };
  const statuses = costStatusesOf(draft);

  return (
    <form className="card explorer-filters" aria-label={`Filter ${kind}`} onSubmit={submit} noValidate>
      <div className="row range-row">
        <Field label="Time range">
          {(ids) => (
            <select {...ids} value={range} onChange={(e) => set({ range: e.target.value }, e.target.value !== 'custom')}>
              <option value="">All time</option>
              {(Object.keys(PRESETS) as Array<keyof typeof PRESETS>).map((p) => (
                <option key={p} value={p}>
                  {PRESETS[p].label}
                </option>
              ))}
              <option value="custom">Custom</option>
            </select>
          )}
        </Field>
        {range === 'custom' ? (
          <>
            <Field label="From" hint="UTC, inclusive" error={rangeError?.startsWith('To') ? undefined : rangeError}>
              {(ids) => <input {...ids} type="datetime-local" value={draft.from ?? ''} onChange={(e) => set({ from: e.target.value })} />}
            </Field>
            <Field label="To" hint="UTC, exclusive" error={rangeError?.startsWith('To') ? rangeError : undefined}>
              {(ids) => <input {...ids} type="datetime-local" value={draft.to ?? ''} onChange={(e) => set({ to: e.target.value })} />}
            </Field>
          </>
        ) : null}
      </div>
      <div className="row">
        {TEXT_FIELDS.filter((t) => !t.only || t.only === kind).map((t) => (
          <Field key={t.key} label={t.label} hint={t.hint}>
            {(ids) => <input {...ids} type="search" value={draft[t.key] ?? ''} onChange={(e) => set({ [t.key]: e.target.value })} />}
          </Field>
        ))}
      </div>
      {kind === 'generations' ? (
        <fieldset className="cost-statuses">
          <legend>Cost status</legend>
          {COST_STATUSES.map((s) => (
            <label key={s}>
              <input
                type="checkbox"
                checked={statuses.includes(s)}
                onChange={(e) => {
                  const next = e.target.checked ? [...statuses, s] : statuses.filter((x) => x !== s);
                  set({ costStatus: COST_STATUSES.filter((x) => next.includes(x)).join(',') }, true);
                }}
              />{' '}
              {s}
            </label>
          ))}
        </fieldset>
      ) : null}
      <button type="submit">Apply filters</button>
    </form>
  );
}
