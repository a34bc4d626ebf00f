// The project's evaluators at their latest versions.
import type { Evaluator } from '../../../../sdk/index.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import type { Loaded } from '../../hooks.ts';
import { CREATE_HINT, formatTime, modelSummary, outputSummary } from './format.ts';

export function EvaluatorList({
  loaded,
  onCreate,
  onEdit,
}: {
  loaded: Loaded<Evaluator[]>;
  onCreate: () => void;
  onEdit: (ev: Evaluator) => void;
}) {
  const list = loaded.data ?? [];
  return (
    <section className="card" aria-labelledby="ev-evaluators">
      <div className="card-head">
        <h2 id="ev-evaluators">Evaluators</h2>
        <button type="button" className="secondary" onClick={onCreate}>
          New evaluator
        </button>
      </div>
      <ErrorBanner problem={loaded.error} title="Evaluators" />
      {loaded.error ? (
        <button type="button" className="secondary" onClick={loaded.reload}>
          Reload evaluators
        </button>
      ) : null}
      {loaded.loading && !loaded.data ? <p className="muted">Loading…</p> : null}
      {loaded.data && list.length === 0 ? (
        <EmptyState title="No evaluators yet">
          Create one with <strong>New evaluator</strong> (or <code>{CREATE_HINT}</code>).
        </EmptyState>
      ) : null}
      {list.length ? (
        <div className="table-wrap">
          <table aria-label="Evaluators">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" className="num">
                  Version
                </th>
                <th scope="col">Output</th>
                <th scope="col">Model</th>
                <th scope="col">Variables</th>
                <th scope="col" className="num">
                  Rules
                </th>
                <th scope="col">Updated</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((ev) => (
                <tr key={ev.id}>
                  <th scope="row">{ev.name}</th>
                  <td className="num">{ev.version}</td>
                  <td>{outputSummary(ev)}</td>
                  <td>{modelSummary(ev)}</td>
                  <td>{ev.variables.length ? ev.variables.join(', ') : <span className="muted">none</span>}</td>
                  <td className="num">{ev.evaluationRuleCount}</td>
                  <td>{formatTime(ev.updatedAt)}</td>
                  <td>
                    {ev.type === 'llm_as_judge' ? (
                      <button type="button" className="link" onClick={() => onEdit(ev)} aria-label={`Edit ${ev.name}`}>
                        Edit
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
