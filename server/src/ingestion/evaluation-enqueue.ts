// After a batch's observations are written, in the same transaction: one job per enabled rule
// assignment whose filters match the observation as it is now and whose deterministic sample
// takes it. Blocked evaluators get no jobs; internal environments
// never match (rule-match.ts).
import type { ObservationRecord } from '../domain/ingestion/types.ts';
import { jobId, sampled } from '../domain/evaluation/ids.ts';
import { ruleMatches, type ObservationForMatching } from '../domain/evaluation/rule-match.ts';
import type { EnabledRule } from '../store/evaluation-rules.ts';
import { enqueueJobs, type NewJob } from '../store/evaluation-jobs.ts';
import type { Db } from '../store/sql.ts';

const forMatching = (o: ObservationRecord): ObservationForMatching => ({
  id: o.id,
  type: o.type,
  level: o.level,
  name: o.name,
  environment: o.environment,
  traceName: o.traceName,
  version: o.version,
  userId: o.userId,
  sessionId: o.sessionId,
  tags: o.tags,
  metadata: o.metadata,
  parentObservationId: o.parentObservationId,
  output: o.output,
});

export function jobsFor(rules: EnabledRule[], observations: ObservationRecord[]): NewJob[] {
  const jobs: NewJob[] = [];
  for (const o of observations) {
    let view: ObservationForMatching | undefined;
    for (const rule of rules) {
      // the sample first: it is the cheap test, and at 10% it spares nine matches in ten
      if (!sampled(rule.sampling, o.id)) continue;
      view ??= forMatching(o);
      if (!ruleMatches(view, rule.filters)) continue;
      const traceId = o.traceId ?? '';
      for (const a of rule.assignments) {
        if (a.blocked) continue;
        jobs.push({
          id: jobId(rule.id, a.assignmentId, traceId, o.id),
          ruleId: rule.id,
          assignmentId: a.assignmentId,
          evaluatorId: a.evaluatorId,
          traceId,
          observationId: o.id,
        });
      }
    }
  }
  return jobs;
}

/** the number of jobs enqueued */
export async function enqueueEvaluations(
  db: Db,
  projectId: string,
  rules: EnabledRule[],
  observations: ObservationRecord[],
): Promise<number> {
  if (!rules.length || !observations.length) return 0;
  const jobs = jobsFor(rules, observations);
  await enqueueJobs(db, projectId, jobs);
  return jobs.length;
}
