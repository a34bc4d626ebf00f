// The range and the filters: plain labelled selects, date inputs and text inputs with
// suggestions (a datalist), so the keyboard and screen readers work without anything custom.
// Every change goes to the URL at once; what is typed is queried once typing pauses (view.ts).
import { Field } from '../../components/Field.tsx';
import { customProblem, isPreset, PRESETS, type Preset, utcDay } from './range.ts';
import { type DashboardView, FILTER_FIELDS, type FilterField, withRange } from './view.ts';

export interface FilterOptions {
  environments: string[];
  tags: string[];
  users: string[];
  models: string[];
  names: string[];
}

const TEXT_FILTERS: { field: Exclude<FilterField, 'env'>; label: string; hint: string; options: keyof FilterOptions }[] = [
  { field: 'model', label: 'Model', hint: 'The model name sent', options: 'models' },
  { field: 'user', label: 'User', hint: "The trace's userId", options: 'users' },
  { field: 'tag', label: 'Tag', hint: 'Traces carrying this tag', options: 'tags' },
  { field: 'name', label: 'Name', hint: "The observation's name", options: 'names' },
];

/** the chosen value first when the range has none of it, so the picker still shows it */
const withChosen = (options: string[], chosen: string | undefined) =>
  chosen && !options.includes(chosen) ? [chosen, ...options] : options;

export function Filters({
  view,
  onView,
  options,
  onRefresh,
}: {
  view: DashboardView;
  /** `typed`: from a keystroke, queried once typing pauses */
  onView: (v: DashboardView, typed?: boolean) => void;
  options: FilterOptions;
  onRefresh: () => void;
}) {
  const now = new Date();
  const custom = view.range === 'custom';
  const problem = custom ? customProblem(view.from ?? '', view.to ?? '', now) : undefined;
  const anyFilter = FILTER_FIELDS.some((k) => view[k]);
  return (
    <div className="card dashboard-filters">
      <div className="row">
        <Field label="Range">
          {(ids) => (
            <select
              {...ids}
              value={custom ? 'custom' : view.range}
              onChange={(e) => {
                const v = e.target.value;
                if (isPreset(v)) onView(withRange(view, { kind: 'preset', preset: v }));
                else
                  onView(
                    withRange(view, {
                      kind: 'custom',
                      from: view.from || utcDay(new Date(now.getTime() - 6 * 86_400_000)),
                      to: view.to || utcDay(now),
                    }),
                  );
              }}
            >
              {(Object.keys(PRESETS) as Preset[]).map((p) => (
                <option key={p} value={p}>
                  {PRESETS[p].label}
                </option>
              ))}
              <option value="custom">Custom dates</option>
            </select>
          )}
        </Field>
        {custom ? (
          <>
            <Field label="From date" hint="UTC, from 00:00" error={problem?.field === 'from' ? problem.message : undefined}>
              {(ids) => (
                <input
                  {...ids}
                  type="date"
                  value={view.from ?? ''}
                  max={view.to || undefined}
                  onChange={(e) => onView({ ...view, from: e.target.value }, true)}
                />
              )}
            </Field>
            <Field label="To date" hint="UTC, through 23:59" error={problem?.field === 'to' ? problem.message : undefined}>
              {(ids) => (
                <input
                  {...ids}
                  type="date"
                  value={view.to ?? ''}
                  min={view.from || undefined}
                  onChange={(e) => onView({ ...view, to: e.target.value }, true)}
                />
              )}
            </Field>
          </>
        ) : null}
        <Field label="Environment" hint="Environments with observations in this range">
          {(ids) => (
            <select {...ids} value={view.env ?? ''} onChange={(e) => onView({ ...view, env: e.target.value })}>
              <option value="">All environments</option>
              {withChosen(options.environments, view.env).map((e) => (
                <option key={e} value={e}>
                  {e}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <div className="row">
        {TEXT_FILTERS.map(({ field, label, hint, options: key }) => (
          <Field key={field} label={label} hint={hint}>
            {(ids) => (
              <>
                <input
                  {...ids}
                  type="search"
                  list={`${ids.id}-options`}
                  placeholder="Any"
                  autoComplete="off"
                  value={view[field] ?? ''}
                  onChange={(e) => onView({ ...view, [field]: e.target.value }, true)}
                />
                <datalist id={`${ids.id}-options`}>
                  {options[key].slice(0, 100).map((o) => (
                    <option key={o} value={o} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
        ))}
        <div className="field dashboard-actions">
          {anyFilter ? (
            <button type="button" className="secondary" onClick={() => onView({ range: view.range, from: view.from, to: view.to })}>
              Clear filters
            </button>
          ) : null}
          <button type="button" className="secondary" onClick={onRefresh}>
            Refresh
          </button>
        </div>
      </div>
    </div>
  );
}
