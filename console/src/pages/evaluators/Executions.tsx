// The jobs of one rule, newest first: why a score is there or not, and a failed or cancelled one
// run again once its cause is fixed.
import { useState } from 'react';
import type { EvaluationJob, EvaluationRule, Score } from '../../../../sdk/index.ts';
import { describeError, useTally, type ProblemText } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { useLoad } from '../../hooks.ts';
import { traceHref } from '../../links.ts';
import { formatTime, scoreValue } from './format.ts';

const STATUS_CLASS: Record<string, string> = {
  COMPLETED: 'badge ok',
  ERROR: 'badge bad',
  CANCELLED: 'badge',
  PENDING: 'badge managed',
  RUNNING: 'badge managed',
  DELAYED: 'badge bad',
};

export function Executions({ rule, evaluatorNames }: { rule: EvaluationRule; evaluatorNames: Map<string, string> }) {
  const tally = useTally();
  const loaded = useLoad(async () => {
    const { data } = await tally.evaluationRules.executions({ path: { evaluationRuleId: rule.id }, query: { limit: 50 } });
    // a job names only its first score's id: fetch those scores in one call to show their values
    const ids = [...new Set(data.data.map((j) => j.scoreId).filter((id): id is string => !!id))];
    const scores = new Map<string, Score>();
    if (ids.length) {
      const { data: page } = await tally.scoresV2.list({ query: { scoreIds: ids.join(','), limit: 100 } });
      for (const s of page.data) scores.set(s.id, s);
    }
    return { jobs: data.data, total: data.meta.totalItems, scores };
  }, [rule.id, rule.updatedAt]);
  // a retried job's answer replaces it in place until the next refresh
  const [retried, setRetried] = useState<Record<string, EvaluationJob>>({});
  const [retryProblem, setRetryProblem] = useState<ProblemText>();
  const jobs: EvaluationJob[] = (loaded.data?.jobs ?? []).map((j) => retried[j.id] ?? j);
  const retry = async (j: EvaluationJob) => {
    setRetryProblem(undefined);
    try {
      const { data } = await tally.evaluationRules.retryExecution({ path: { evaluationRuleId: rule.id, executionId: j.id } });
      setRetried((r) => ({ ...r, [j.id]: data }));
    } catch (e) {
      setRetryProblem(describeError(e));
    }
  };
  return (
    <section className="card" aria-labelledby="ev-executions">
      <div className="rule-head">
        <h2 id="ev-executions">Recent executions of {rule.name}</h2>
        <button type="button" className="secondary" onClick={loaded.reload}>
          Refresh executions
        </button>
      </div>
      <ErrorBanner problem={loaded.error} title="Executions" />
      <ErrorBanner problem={retryProblem} title="Not retried" />
      {loaded.loading && !loaded.data ? <p className="muted">Loading…</p> : null}
      {loaded.data && jobs.length === 0 ? (
        <EmptyState title="No executions yet">
          {rule.enabled
            ? 'Ingest an observation that matches the rule’s filters (through /api/public/ingestion or OpenTelemetry); a job appears here for each sampled match.'
            : 'The rule is disabled: enable it, then ingest a matching observation.'}
        </EmptyState>
      ) : null}
      {jobs.length ? (
        <>
          <p className="muted">
            {jobs.length < loaded.data!.total
              ? `The newest ${jobs.length} of ${loaded.data!.total}.`
              : `${jobs.length} execution${jobs.length === 1 ? '' : 's'}.`}
          </p>
          <div className="table-wrap">
            <table aria-label={`Executions of ${rule.name}`}>
              <thead>
                <tr>
                  <th scope="col">Status</th>
                  <th scope="col">Error</th>
                  <th scope="col">Score</th>
                  <th scope="col">Evaluator</th>
                  <th scope="col">Observation / trace</th>
                  <th scope="col" className="num">
                    Attempts
                  </th>
                  <th scope="col">Created</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Next try</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {jobs.map((j) => {
                  const score = j.scoreId ? loaded.data!.scores.get(j.scoreId) : undefined;
                  return (
                    <tr key={j.id}>
                      <td>
                        <span className={STATUS_CLASS[j.status] ?? 'badge'}>{j.status}</span>
                      </td>
                      <td className={j.error ? 'job-error' : undefined}>{j.error ?? '—'}</td>
                      <td>
                        {score ? (
                          <>
                            {score.name}: <strong>{scoreValue(score)}</strong>
                          </>
                        ) : j.scoreId ? (
                          <code>{j.scoreId}</code>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td>{evaluatorNames.get(j.evaluatorId) ?? <code>{j.evaluatorId}</code>}</td>
                      <td>
                        <a href={traceHref(j.traceId, j.observationId)}>
                          <code>{j.observationId}</code>
                        </a>
                        <br />
                        <span className="muted">
                          trace{' '}
                          <a href={traceHref(j.traceId)}>
                            <code>{j.traceId}</code>
                          </a>
                        </span>
                      </td>
                      <td className="num">{j.attempts}</td>
                      <td>{formatTime(j.createdAt)}</td>
                      <td>{formatTime(j.updatedAt)}</td>
                      <td>{j.status === 'DELAYED' || j.status === 'PENDING' ? formatTime(j.runAfter) : '—'}</td>
                      <td>
                        {j.status === 'ERROR' || j.status === 'CANCELLED' ? (
                          <button type="button" className="link" onClick={() => void retry(j)} aria-label={`Retry execution ${j.id}`}>
                            Retry
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}
