// Per-event validation of an ingestion batch, against the spec's event schemas (picked by
// the `type` discriminator mapping, so the spec stays the only definition).
import type { ValidateFunction } from 'ajv';
import type { Document } from 'openapi-backend';
import { parseLegacyUsage } from '../domain/usage/normalise.ts';
import {
  findInexactCount,
  findOversizedCost,
  inexactCountMessage,
  LEGACY_COST_KEYS,
  oversizedCostMessage,
} from '../domain/usage/exact-counts.ts';
import type { ValidationIssue as Issue } from '../../../generated/client/types.gen.ts';
import { componentValidators, loadSpec } from '../spec/spec.ts';
import { findTooDeep } from '../domain/json-depth.ts';
import { findUnstorableText } from '../domain/unstorable-text.ts';
import { issuesFromAjv } from '../spec/issues.ts';
import type { BodyFields } from '../domain/ingestion/merge.ts';

const LEGACY_OBSERVATION_TYPES = new Set(['observation-create', 'observation-update']);

/**
 * An accepted event's body, valid for its event type. Typed field by field as any event type's
 * body may hold it (BodyFields), for readers that do not narrow on `type` (ingestion/pipeline.ts),
 * except `id`: a string for every observation event (its schema requires one, or the validator
 * fills in the event's own); a trace-create's or score-create's may still be null or absent, and
 * their readers check it.
 */
export type EventBody = BodyFields & { id: string };

/** `internal`: written by Tally itself (record-llm-call.ts), never set from a request */
export interface AcceptedEvent {
  id: string;
  type: string;
  timestamp: Date;
  body: EventBody;
  internal?: boolean;
  /** the legacy `usage` object as the validator read it (read once, then kept for the pipeline) */
  legacyUsage?: ReturnType<typeof parseLegacyUsage>;
}
export type EventCheck = { ok: true; event: AcceptedEvent } | { ok: false; id: string; issues: Issue[] };

export function createEventValidator(definition: Document = loadSpec()) {
  const schema = componentValidators(definition);
  const base = schema('IngestionEventBase');
  const ingestionEvent = definition.components?.schemas?.IngestionEvent;
  const mapping = ingestionEvent && 'discriminator' in ingestionEvent ? ingestionEvent.discriminator?.mapping : undefined;
  if (!mapping) throw new Error('the spec has no discriminator mapping for IngestionEvent');
  const byType = new Map<string, ValidateFunction>();
  for (const [type, ref] of Object.entries(mapping)) byType.set(type, schema(ref.split('/').pop()!));

  /** `checkText`: the request body may hold text PostgreSQL cannot store (unstorable-text.ts) */
  return (raw: unknown, checkText = false): EventCheck => {
    const id = raw && typeof raw === 'object' && 'id' in raw && typeof raw.id === 'string' ? raw.id : 'unknown';
    // ajv reports paths from the event root; drop the leading "" segment Ajv paths start with
    const deep = findTooDeep(raw, []);
    if (deep) return { ok: false, id, issues: [deep] };
    const fail = (v: ValidateFunction) => ({
      ok: false as const,
      id,
      issues: issuesFromAjv((v.errors ?? []).map((e) => ({ ...e, instancePath: `/event${e.instancePath}` }))),
    });
    if (!base(raw)) return fail(base);
    const ev = raw as { id: string; type: string; timestamp: string; body: BodyFields };
    const validate = byType.get(ev.type);
    // Langfuse's own words for the one type it knows but refuses on the public endpoint
    if (ev.type === 'dataset-run-item-create')
      return {
        ok: false,
        id,
        issues: [{ code: 'custom', path: ['type'], message: 'Dataset run item creation is only allowed for internal usage' }],
      };
    if (!validate)
      return {
        ok: false,
        id,
        issues: [
          {
            code: 'invalid_value',
            path: ['type'],
            message: `Unknown event type "${ev.type}". Expected one of: ${[...byType.keys()].join(', ')}`,
          },
        ],
      };
    if (!validate(raw)) return fail(validate);
    const b = ev.body;
    if ((b.promptName == null) !== (b.promptVersion == null)) {
      return {
        ok: false,
        id,
        issues: [{ code: 'custom', path: ['body', 'promptName'], message: 'promptName and promptVersion must be set together' }],
      };
    }
    const inexact = findInexactCount(b.usageDetails, ['body', 'usageDetails']) ?? findInexactCount(b.usage, ['body', 'usage']);
    if (inexact) return { ok: false, id, issues: [{ code: 'too_big', path: inexact.path, message: inexactCountMessage(inexact) }] };
    const oversized =
      findOversizedCost(b.costDetails, ['body', 'costDetails']) ?? findOversizedCost(b.usage, ['body', 'usage'], LEGACY_COST_KEYS);
    if (oversized) return { ok: false, id, issues: [{ code: 'too_big', path: oversized.path, message: oversizedCostMessage(oversized) }] };
    const legacyUsage = b.usage != null ? parseLegacyUsage(b.usage) : undefined;
    if (legacyUsage?.error) return { ok: false, id, issues: [{ code: 'custom', path: ['body', 'usage'], message: legacyUsage.error }] };
    if (checkText) {
      const issue = findUnstorableText(raw);
      if (issue) return { ok: false, id, issues: [issue] };
    }
    // a legacy observation event may omit the observation id: the event's own id names it, so a replay still changes nothing
    // (so every observation event's body has an id from here on: EventBody)
    const body = (b.id == null && LEGACY_OBSERVATION_TYPES.has(ev.type) ? { ...b, id: ev.id } : b) as EventBody;
    return { ok: true, event: { id: ev.id, type: ev.type, timestamp: new Date(ev.timestamp), body, legacyUsage } };
  };
}
