// Custom headers as name/value rows. Stored values are never returned: on update the rows hold the
// names only, and a row left blank keeps its stored value (a new value replaces it).
import { Field } from '../../components/Field.tsx';
import type { HeaderRow } from './form-state.ts';

export function HeaderRows({
  rows,
  editing,
  onChange,
  errorOf,
}: {
  rows: HeaderRow[];
  editing: boolean;
  onChange: (rows: HeaderRow[]) => void;
  errorOf: (index: number, name: string) => string | undefined;
}) {
  const put = (i: number, row: HeaderRow) => onChange(rows.map((r, j) => (j === i ? row : r)));
  return (
    <fieldset>
      <legend>Custom headers</legend>
      <p className="hint">
        Sent with every call to the provider; values are stored encrypted and never shown.
        {editing && rows.length
          ? ' Leave a stored value blank to keep it, type a new one to replace it, remove a row to drop that header.'
          : ''}
      </p>
      {rows.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a row is its position; header names may repeat or be empty while typed
        <div className="row header-row" key={i}>
          <Field label={`Header name ${i + 1}`} error={errorOf(i, r.name)}>
            {(ids) => <input {...ids} value={r.name} onChange={(e) => put(i, { ...r, name: e.target.value })} autoComplete="off" />}
          </Field>
          <Field
            label={`Header value ${i + 1}`}
            hint={
              r.storedName !== undefined && r.storedName === r.name.trim() && !r.value
                ? 'Stored value kept unless you type a new one'
                : undefined
            }
          >
            {(ids) => (
              <input
                {...ids}
                type="password"
                value={r.value}
                onChange={(e) => put(i, { ...r, value: e.target.value })}
                autoComplete="new-password"
              />
            )}
          </Field>
          <button
            type="button"
            className="danger"
            aria-label={`Remove header ${i + 1}`}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => onChange([...rows, { name: '', value: '' }])}>
        Add header
      </button>
    </fieldset>
  );
}
