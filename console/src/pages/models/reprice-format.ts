// How the reprice panel words a job: its progress line and a cost difference (money through
// ../../format.ts, as the dashboard writes totals over many calls).
import type { RepriceJob } from '../../../../sdk/index.ts';
import { formatCount, formatUsd } from '../../format.ts';
import type { FollowedJob } from './useRepriceJob.ts';

/** +$1.50 / -$0.20; float noise below a billionth of a dollar is no change */
export function signedUsd(v: number): string {
  const rounded = Math.round(v * 1e9) / 1e9;
  return rounded > 0 ? `+${formatUsd(rounded)}` : formatUsd(rounded);
}

export const costChange = (before: number, after: number) => `${formatUsd(before)} → ${formatUsd(after)}`;

export function jobKind(job: Pick<RepriceJob, 'dryRun'>): string {
  return job.dryRun ? 'Dry run' : 'Applied';
}

/** The live region's sentence for a followed job; empty when there is nothing to say. */
export function progressText(f: FollowedJob): string {
  const dry = f.request?.dryRun !== false;
  const what = dry ? 'Preview' : 'Reprice';
  if (f.starting) return `${what}: starting…`;
  if (f.problemIn === 'start') return `${what} not started.`;
  if (!f.status) return '';
  const job = f.job;
  const counts = job
    ? `${formatCount(job.generationsScanned)} generations scanned, ${formatCount(job.generationsChanged)} ${dry ? 'would change' : 'changed'}`
    : '';
  switch (f.status) {
    case 'queued':
      return `${what} queued: waiting for a worker…`;
    case 'running':
      return `${what} running: ${counts || 'starting'} so far…`;
    case 'succeeded':
      return `${what} done: ${counts}, ${costChange(job?.costBefore ?? 0, job?.costAfter ?? 0)}.`;
    case 'failed':
      return `${what} failed${counts ? ` after ${counts}` : ''}.`;
  }
}
