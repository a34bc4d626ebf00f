// The one way events get in, whoever sends them: the batch endpoint, the OTel endpoint (an
// export's spans mapped to events), Tally's record of its own LLM calls, and the explain
// endpoint, whose one generation goes the whole way but for the storing (a dry run). Each unit of events
// is checked against the spec's event schemas and stands or falls whole (an OTel span's trace
// and observation event), `sdk-log` events are set aside, and what is accepted is applied in one
// transaction by the pipeline. A BatchContentionError from the pipeline means nothing was stored.
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { ValidationIssue as Issue } from '../../../generated/client/types.gen.ts';
import type { Services } from '../app-context.ts';
import { applyObservationEvent, OBSERVATION_EVENT_TYPES, responseOrder } from '../domain/ingestion/merge.ts';
import type { ObservationRecord } from '../domain/ingestion/types.ts';
import type { StoredModel } from '../domain/models/types.ts';
import type { UsageAndCost } from '../domain/usage/index.ts';
import { modelRevision } from '../store/models.ts';
import { kysely } from '../store/sql.ts';
import { readObservationEvent, type ReadObservationEvent } from './observation-event.ts';
import { pricingOf } from './price.ts';
import { createEventValidator, type AcceptedEvent } from './events.ts';
import { applyBatch } from './pipeline.ts';

/** `explain`: a dry run; the events are read, merged and priced as ingestion would, and nothing is stored */
export type IngestSource = 'batch' | 'otel' | 'internal' | 'explain';

/** events that stand or fall together; `id` names the unit in a rejection */
export interface IngestUnit {
  id: string;
  events: unknown[];
}

export interface IngestOutcome {
  /** the events applied, in the order the batch endpoint reports them */
  accepted: AcceptedEvent[];
  rejected: { id: string; issues: Issue[] }[];
  /** what the usage normaliser said, per accepted event id */
  warnings: Map<string, string[]>;
  /** the bodies of `sdk-log` events, for the caller to log */
  sdkLogs: unknown[];
  /** a dry run's observations, each priced as ingestion would have stored it */
  priced: DryRunPricing[];
}

export interface DryRunPricing {
  observation: ObservationRecord;
  model: StoredModel | null;
  pricing: UsageAndCost;
  usageShape: ReadObservationEvent['usageShape'];
  /** what ingestion would have answered for the event */
  warnings: string[];
}

const validateEvent = createEventValidator();

export interface IngestOptions {
  source: IngestSource;
  /** the request body may hold text PostgreSQL cannot store (domain/unstorable-text.ts) */
  checkText?: boolean;
}

/** one event on its own, as ingest() checks it (for a caller that must know before it ingests) */
export const checkEvent = (raw: unknown, checkText = false) => validateEvent(raw, checkText);

export async function ingest(
  em: SqlEntityManager,
  services: Services,
  projectId: string,
  units: IngestUnit[],
  opts: IngestOptions,
): Promise<IngestOutcome> {
  const accepted: AcceptedEvent[] = [];
  const rejected: IngestOutcome['rejected'] = [];
  const sdkLogs: unknown[] = [];
  for (const unit of units) {
    const checked: AcceptedEvent[] = [];
    let failed: Issue[] | null = null;
    for (const raw of unit.events) {
      const check = validateEvent(raw, opts.checkText ?? false);
      if (!check.ok) {
        failed = check.issues;
        break;
      }
      checked.push(opts.source === 'internal' ? { ...check.event, internal: true } : check.event);
    }
    if (failed) {
      rejected.push({ id: unit.id, issues: failed });
      continue;
    }
    for (const e of checked) {
      if (e.type === 'sdk-log') sdkLogs.push(e.body.log);
      else accepted.push(e);
    }
  }
  if (opts.source === 'explain')
    return {
      accepted: responseOrder(accepted),
      rejected,
      warnings: new Map(),
      sdkLogs,
      priced: await dryRun(em, services, projectId, accepted),
    };
  const { warnings } = accepted.length ? await applyBatch(em, services, projectId, accepted) : { warnings: new Map<string, string[]>() };
  return { accepted: responseOrder(accepted), rejected, warnings, sdkLogs, priced: [] };
}

/** each observation event on its own, read, merged into a new observation and priced; nothing is stored */
async function dryRun(em: SqlEntityManager, services: Services, projectId: string, events: AcceptedEvent[]): Promise<DryRunPricing[]> {
  const observations = events.filter((e) => OBSERVATION_EVENT_TYPES.has(e.type));
  if (!observations.length) return [];
  const matcher = await services.models.matcherFor(em, projectId, await modelRevision(kysely(em), projectId));
  const now = new Date();
  return Promise.all(
    observations.map(async (e) => {
      const read = readObservationEvent(e);
      const observation = applyObservationEvent(undefined, read.event, now);
      const { model, result } = await pricingOf(observation, matcher, services.tokenizers);
      return { observation, model, pricing: result, usageShape: read.usageShape, warnings: read.warnings };
    }),
  );
}
