// An observation's input, output or metadata: pretty JSON (text as it is), collapsible, and a
// long one clipped until asked for, so a 200 kB prompt does not bury the rest of the page.
import { useState } from 'react';

const CLIP = 2_000;

export function JsonView({ label, value, open = true }: { label: string; value: unknown; open?: boolean }) {
  const [all, setAll] = useState(false);
  if (value === null || value === undefined) {
    return (
      <p className="json-none">
        <strong>{label}</strong> <span className="muted">none</span>
      </p>
    );
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  const long = text.length > CLIP;
  return (
    <details className="json-view" open={open}>
      <summary>
        <strong>{label}</strong>
        {long ? <span className="muted"> ({text.length.toLocaleString('en-US')} characters)</span> : null}
      </summary>
      <pre>{long && !all ? `${text.slice(0, CLIP)}…` : text}</pre>
      {long ? (
        <button type="button" className="link" onClick={() => setAll((a) => !a)} aria-expanded={all}>
          {all ? `Show less of ${label.toLowerCase()}` : `Show all of ${label.toLowerCase()}`}
        </button>
      ) : null}
    </details>
  );
}
