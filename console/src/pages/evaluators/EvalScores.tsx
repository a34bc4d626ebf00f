// The scores evaluators wrote (source EVAL), newest first.
import { useTally } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { useLoad } from '../../hooks.ts';
import { traceHref } from '../../links.ts';
import { formatTime, scoreValue } from './format.ts';

export function EvalScores() {
  const tally = useTally();
  const loaded = useLoad(async () => {
    const { data } = await tally.scoresV2.list({ query: { source: 'EVAL', limit: 50 } });
    return data;
  }, []);
  const scores = loaded.data?.data ?? [];
  return (
    <section className="card" aria-labelledby="ev-scores">
      <div className="rule-head">
        <h2 id="ev-scores">Scores written by evaluators</h2>
        <button type="button" className="secondary" onClick={loaded.reload}>
          Refresh scores
        </button>
      </div>
      <ErrorBanner problem={loaded.error} title="Scores" />
      {loaded.loading && !loaded.data ? <p className="muted">Loading…</p> : null}
      {loaded.data && scores.length === 0 ? (
        <EmptyState title="No evaluator scores yet">
          Scores appear when an enabled rule's evaluator judges a matching observation (see its executions above for why one is missing).
        </EmptyState>
      ) : null}
      {scores.length ? (
        <>
          {loaded.data!.meta.totalItems > scores.length ? (
            <p className="muted">
              The newest {scores.length} of {loaded.data!.meta.totalItems}.
            </p>
          ) : null}
          <div className="table-wrap">
            <table aria-label="Scores written by evaluators">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Value</th>
                  <th scope="col">Comment</th>
                  <th scope="col">Trace</th>
                  <th scope="col">Observation</th>
                  <th scope="col">Time</th>
                </tr>
              </thead>
              <tbody>
                {scores.map((s) => (
                  <tr key={s.id}>
                    <th scope="row">{s.name}</th>
                    <td>{scoreValue(s)}</td>
                    <td className="score-comment">{s.comment ?? '—'}</td>
                    <td>
                      {s.traceId ? (
                        <a href={traceHref(s.traceId)}>
                          <code>{s.traceId}</code>
                        </a>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td>
                      {s.observationId && s.traceId ? (
                        <a href={traceHref(s.traceId, s.observationId)}>
                          <code>{s.observationId}</code>
                        </a>
                      ) : s.observationId ? (
                        <code>{s.observationId}</code>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td>{formatTime(s.timestamp)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}
