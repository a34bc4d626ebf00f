// The one way events get in, whoever sends them: the batch endpoint, the OTel endpoint (an
// export's spans mapped to events) and Tally's record of its own LLM calls. Each unit of events
// is checked against the spec's event schemas and stands or falls whole (an OTel span's trace
// and observation event), `sdk-log` events are set aside, and what is accepted is applied in one
// transaction by the pipeline. A BatchContentionError from the pipeline means nothing was stored.
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { ValidationIssue as Issue } from '../../../generated/client/types.gen.ts';
import type { Services } from '../app-context.ts';
import { responseOrder } from '../domain/ingestion/merge.ts';
import { createEventValidator, type AcceptedEvent } from './events.ts';
import { applyBatch } from './pipeline.ts';

export type IngestSource = 'batch' | 'otel' | 'internal';

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
  const { warnings } = accepted.length ? await applyBatch(em, services, projectId, accepted) : { warnings: new Map<string, string[]>() };
  return { accepted: responseOrder(accepted), rejected, warnings, sdkLogs };
}
