// The range and environment pickers: plain labelled selects and date inputs, so the keyboard
// and screen readers work without anything custom.
import { Field } from '../../components/Field.tsx';
import { PRESETS, type Preset, type RangeChoice } from './queries.ts';

export function Filters({
  choice,
  onChoice,
  environment,
  onEnvironment,
  environments,
  customError,
  onRefresh,
}: {
  choice: RangeChoice;
  onChoice: (c: RangeChoice) => void;
  environment: string;
  onEnvironment: (e: string) => void;
  /** environments with observations in the range (the chosen one is kept even when it has none) */
  environments: string[];
  customError?: string;
  onRefresh: () => void;
}) {
  const envs = environment && !environments.includes(environment) ? [environment, ...environments] : environments;
  const today = new Date().toISOString().slice(0, 10);
  const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
  // the message belongs by the date that is missing: a cleared from date is not the to date's fault
  const fromMissing = choice.kind === 'custom' && !/^\d{4}-\d{2}-\d{2}$/.test(choice.from);
  return (
    <div className="card row dashboard-filters">
      <Field label="Range">
        {(ids) => (
          <select
            {...ids}
            value={choice.kind === 'preset' ? choice.preset : 'custom'}
            onChange={(e) => {
              const v = e.target.value;
              onChoice(
                v === 'custom'
                  ? {
                      kind: 'custom',
                      from: choice.kind === 'custom' ? choice.from : weekAgo,
                      to: choice.kind === 'custom' ? choice.to : today,
                    }
                  : { kind: 'preset', preset: v as Preset },
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
      {choice.kind === 'custom' ? (
        <>
          <Field label="From date" hint="UTC, from 00:00" error={fromMissing ? customError : undefined}>
            {(ids) => (
              <input
                {...ids}
                type="date"
                value={choice.from}
                max={choice.to || undefined}
                onChange={(e) => onChoice({ ...choice, from: e.target.value })}
              />
            )}
          </Field>
          <Field label="To date" hint="UTC, through 23:59" error={fromMissing ? undefined : customError}>
            {(ids) => (
              <input
                {...ids}
                type="date"
                value={choice.to}
                min={choice.from || undefined}
                onChange={(e) => onChoice({ ...choice, to: e.target.value })}
              />
            )}
          </Field>
        </>
      ) : null}
      <Field label="Environment" hint="Environments with observations in this range">
        {(ids) => (
          <select {...ids} value={environment} onChange={(e) => onEnvironment(e.target.value)}>
            <option value="">All environments</option>
            {envs.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="field">
        <button type="button" className="secondary" onClick={onRefresh}>
          Refresh
        </button>
      </div>
    </div>
  );
}
