// The scores on a trace and on its observations (GET /api/public/v2/scores?traceId=).
import { useTally } from '../../api.ts';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { useLoad } from '../../hooks.ts';
import { traceHref } from '../../links.ts';
import { type ScoreColumn, ScoresTable } from '../evaluators/ScoresTable.tsx';

export function TraceScores({ traceId }: { traceId: string }) {
  const tally = useTally();
  const where: ScoreColumn[] = [
    { header: 'Source', cell: (s) => s.source },
    {
      header: 'On',
      cell: (s) =>
        s.observationId ? (
          <a href={traceHref(traceId, s.observationId)}>
            <code>{s.observationId}</code>
          </a>
        ) : (
          'the trace'
        ),
    },
  ];
  const loaded = useLoad(async () => (await tally.scoresV2.list({ query: { traceId, limit: 100 } })).data, [traceId]);
  const scores = loaded.data?.data ?? [];
  return (
    <section className="card" aria-labelledby="trace-scores">
      <h2 id="trace-scores">Scores</h2>
      <ErrorBanner problem={loaded.error} title="Scores" />
      {loaded.loading && !loaded.data ? <p className="muted">Loading…</p> : null}
      {loaded.data && scores.length === 0 ? <p className="muted">No scores on this trace.</p> : null}
      {scores.length ? (
        <ScoresTable label="Scores of this trace" scores={scores} total={loaded.data!.meta.totalItems} where={where} />
      ) : null}
    </section>
  );
}
