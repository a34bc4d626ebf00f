// The evaluation jobs of a batch, written in the statement that stores its observations
// (pipeline.ts): one job per enabled rule assignment whose filters match the observation as it is
// now and whose deterministic sample takes it. Blocked evaluators get no jobs; internal
// environments never match (rule-match.ts).
import type { ObservationRecord } from '../domain/ingestion/types.ts';
import { jobId, sampler } from '../domain/evaluation/ids.ts';
import { ruleMatches, type ObservationForMatching } from '../domain/evaluation/rule-match.ts';
import type { EnabledRule } from '../store/evaluation-rules.ts';
import type { NewJob } from '../store/evaluation-jobs.ts';

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
    const takes = sampler(o.id);
    for (const rule of rules) {
      // the sample first: it is the cheap test, and at 10% it spares nine matches in ten
      if (!takes(rule.sampling)) continue;
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
