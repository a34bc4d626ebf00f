// The newest reprice jobs of the project (the audit trail): when, who asked, the window, dry run
// or applied, how it ended and what it changed. Read again whenever `refresh` changes.
import { useTally } from '../../api.ts';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { useLoad } from '../../hooks.ts';
import type { RepriceJob } from '../../../../sdk/index.ts';
import { formatCount, formatTime } from '../../format.ts';
import { costChange, jobKind } from './reprice-format.ts';
import { windowText } from './reprice-window.ts';

const SHOWN = 10;

/** `modelNames` by definition id, for the models a job was narrowed to (an id where unknown) */
export function RecentJobs({ refresh, modelNames }: { refresh: number; modelNames: ReadonlyMap<string, string> }) {
  const tally = useTally();
  const jobs = useLoad(async () => (await tally.models.repriceList({ query: { page: 1, limit: SHOWN } })).data, [tally, refresh]);
  const list = jobs.data?.data ?? [];
  const total = jobs.data?.meta.totalItems ?? list.length;

  return (
    <section aria-labelledby="reprice-jobs-title" className="reprice-jobs">
      <h3 id="reprice-jobs-title">Recent reprice jobs</h3>
      <ErrorBanner problem={jobs.error} title="Could not load the reprice jobs" />
      {jobs.error ? (
        <button type="button" className="secondary" onClick={jobs.reload}>
          Try again
        </button>
      ) : null}
      {jobs.data ? (
        list.length === 0 ? (
          <p className="muted">No reprice job yet.</p>
        ) : (
          <>
            {total > list.length ? (
              <p className="muted small">
                The newest {list.length} of {formatCount(total)} jobs.
              </p>
            ) : null}
            <div className="table-wrap">
              <table aria-label="Recent reprice jobs">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Who</th>
                    <th scope="col">Window</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="num">
                      Changed
                    </th>
                    <th scope="col">Cost before → after</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((j) => (
                    <JobRow key={j.id} job={j} modelNames={modelNames} />
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )
      ) : jobs.loading ? (
        <p className="muted">Loading the reprice jobs…</p>
      ) : null}
    </section>
  );
}

const STATUS_BADGE: Record<RepriceJob['status'], string> = {
  queued: 'badge',
  running: 'badge',
  succeeded: 'badge ok',
  failed: 'badge bad',
};

function JobRow({ job, modelNames }: { job: RepriceJob; modelNames: ReadonlyMap<string, string> }) {
  return (
    <tr>
      <td>{formatTime(job.createdAt)}</td>
      <td>
        <code>{job.requestedBy}</code>
      </td>
      <td>
        {windowText(job.fromTimestamp, job.toTimestamp)}
        {job.modelIds?.length ? (
          <div className="muted small">only {job.modelIds.map((id) => modelNames.get(id) ?? id).join(', ')}</div>
        ) : null}
      </td>
      <td>{jobKind(job)}</td>
      <td>
        <span className={STATUS_BADGE[job.status]}>{job.status}</span>
        {job.error ? <div className="field-error small">{job.error}</div> : null}
      </td>
      <td className="num">
        {formatCount(job.generationsChanged)} of {formatCount(job.generationsScanned)}
      </td>
      <td>{costChange(job.costBefore, job.costAfter)}</td>
    </tr>
  );
}
