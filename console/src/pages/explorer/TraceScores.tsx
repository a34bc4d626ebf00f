// The scores on a trace and on its observations (GET /api/public/v2/scores?traceId=).
import { useTally } from '../../api.ts';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { formatTime } from '../../format.ts';
import { useLoad } from '../../hooks.ts';
import { traceHref } from '../../links.ts';
import { scoreValue } from '../evaluators/format.ts';

export function TraceScores({ traceId }: { traceId: string }) {
  const tally = useTally();
  const loaded = useLoad(async () => (await tally.scoresV2.list({ query: { traceId, limit: 100 } })).data, [traceId]);
  const scores = loaded.data?.data ?? [];
  return (
    <section className="card" aria-labelledby="trace-scores">
      <h2 id="trace-scores">Scores</h2>
      <ErrorBanner problem={loaded.error} title="Scores" />
      {loaded.loading && !loaded.data ? <p className="muted">Loading…</p> : null}
      {loaded.data && scores.length === 0 ? <p className="muted">No scores on this trace.</p> : null}
      {scores.length ? (
        <div className="table-wrap">
          <table aria-label="Scores of this trace">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
                <th scope="col">Source</th>
                <th scope="col">On</th>
                <th scope="col">Comment</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {scores.map((s) => (
                <tr key={s.id}>
                  <th scope="row">{s.name}</th>
                  <td>{scoreValue(s)}</td>
                  <td>{s.source}</td>
                  <td>
                    {s.observationId ? (
                      <a href={traceHref(traceId, s.observationId)}>
                        <code>{s.observationId}</code>
                      </a>
                    ) : (
                      'the trace'
                    )}
                  </td>
                  <td className="score-comment">{s.comment ?? '—'}</td>
                  <td className="nowrap">{formatTime(s.timestamp)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {loaded.data!.meta.totalItems > scores.length ? (
            <p className="muted">
              The newest {scores.length} of {loaded.data!.meta.totalItems}.
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
