// An accepted observation event read for merging: its usage and cost as the mutually exclusive
// buckets Tally stores (usageDetails read strictly, merged with the legacy `usage` object, the
// provider's overlap repaired), and the warnings that describe the payload as sent. The batch
// pipeline and explain's dry run both read events here, so they agree on every number.
import type { ObservationEvent } from '../domain/ingestion/merge.ts';
import { readProvided } from '../domain/usage/index.ts';
import { finaliseUsage, parseLegacyUsage } from '../domain/usage/normalise.ts';
import { repairOverlap } from '../domain/usage/overlap.ts';
import { droppedValueWarnings, legacyDroppedWarnings, usageWarnings } from '../domain/usage/warnings.ts';
import type { AcceptedEvent } from './events.ts';

export interface ReadObservationEvent {
  event: ObservationEvent;
  /** what the usage reader said about the payload (empty when nothing) */
  warnings: string[];
  /** the shape the usageDetails were recognised as (explain shows it) */
  usageShape: ReturnType<typeof readProvided>['parsed']['shape'];
}

export function readObservationEvent(e: AcceptedEvent): ReadObservationEvent {
  const b = e.body;
  // the validator parsed it already and refused the event when it could not be read
  const legacy = e.legacyUsage ?? (b.usage != null ? parseLegacyUsage(b.usage) : {});
  const {
    parsed,
    providedUsage: usage,
    providedCost: cost,
  } = readProvided({
    legacyUsage: legacy.value,
    usageDetails: b.usageDetails,
    costDetails: b.costDetails,
  });
  const final = finaliseUsage(usage).usage;
  const repair = repairOverlap(final, usage);
  const warnings = [
    ...(repair ? [repair.note] : []),
    ...(b.usageDetails != null ? usageWarnings(b.usageDetails, parsed, repair?.usage ?? final, usage) : []),
    ...droppedValueWarnings(b.usageDetails, parsed, b.costDetails),
    ...legacyDroppedWarnings(legacy.dropped),
  ];
  return {
    event: { eventId: e.id, type: e.type, timestamp: e.timestamp, body: b, providedUsage: usage, providedCost: cost, internal: e.internal },
    warnings,
    usageShape: parsed.shape,
  };
}
