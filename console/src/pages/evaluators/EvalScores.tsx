// The scores evaluators wrote (source EVAL), newest first.
import { useTally } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { useLoad } from '../../hooks.ts';
import { traceHref } from '../../links.ts';
import { type ScoreColumn, ScoresTable } from './ScoresTable.tsx';

const WHERE: ScoreColumn[] = [
  {
    header: 'Trace',
    cell: (s) =>
      s.traceId ? (
        <a href={traceHref(s.traceId)}>
          <code>{s.traceId}</code>
        </a>
      ) : (
        '—'
      ),
  },
  {
    header: 'Observation',
    cell: (s) =>
      s.observationId && s.traceId ? (
        <a href={traceHref(s.traceId, s.observationId)}>
          <code>{s.observationId}</code>
        </a>
      ) : s.observationId ? (
        <code>{s.observationId}</code>
      ) : (
        '—'
      ),
  },
];

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
        <ScoresTable label="Scores written by evaluators" scores={scores} total={loaded.data!.meta.totalItems} where={WHERE} />
      ) : null}
    </section>
  );
}
