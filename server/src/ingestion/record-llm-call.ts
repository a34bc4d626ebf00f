// A call Tally made to a model (playground, judge), recorded as ingestion records it: a trace
// with one generation whose usage is the provider's usage object, so the ingestion normaliser
// maps it (or stores it unmapped with the warning), the models list prices it, and metrics see
// it. Further events (the judge's scores) go in the same batch: one transaction.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { randomUUID } from 'node:crypto';
import type { LlmMessage, LlmParams, LlmResult } from '../domain/llm/call.ts';
import type { ObservationRecord } from '../domain/ingestion/types.ts';
import type { Services } from '../app-context.ts';
import { getObservation } from '../store/observations.ts';
import { kysely } from '../store/sql.ts';
import { checkEvent, ingest } from './ingest.ts';

export interface LlmCallRecord {
  traceId: string;
  traceName: string;
  environment: string;
  generationName: string;
  model: string;
  messages: LlmMessage[];
  params: LlmParams;
  result: LlmResult;
  started: Date;
  ended: Date;
  /** when the first streamed text arrived */
  firstText?: Date | null;
  metadata: Record<string, unknown>;
  /** more raw events for the same batch (validated like any ingested event) */
  extraEvents?: Record<string, unknown>[];
}

export interface RecordedCall {
  observation: ObservationRecord;
  /** what the normaliser said about the provider's usage object */
  warnings: string[];
}

export async function recordLlmCall(em: SqlEntityManager, services: Services, projectId: string, r: LlmCallRecord): Promise<RecordedCall> {
  const observationId = randomUUID();
  const at = r.started.toISOString();
  const generation = (usageDetails: unknown) => ({
    id: randomUUID(),
    timestamp: at,
    type: 'generation-create',
    body: {
      id: observationId,
      traceId: r.traceId,
      name: r.generationName,
      environment: r.environment,
      startTime: at,
      endTime: r.ended.toISOString(),
      ...(r.firstText ? { completionStartTime: r.firstText.toISOString() } : {}),
      model: r.model,
      modelParameters: r.params,
      input: r.messages,
      output: { role: 'assistant', content: r.result.text, ...(r.result.toolCalls.length ? { tool_calls: r.result.toolCalls } : {}) },
      metadata: { ...r.metadata, responseModel: r.result.model },
      ...(usageDetails == null ? {} : { usageDetails }),
    },
  });
  const warnings: string[] = [];
  let generationEvent = generation(r.result.usage);
  const gen = checkEvent(generationEvent);
  if (!gen.ok && r.result.usage != null) {
    // a usage object ingestion would refuse (a count beyond 2^53): the call is still recorded, its usage counted by the tokenizer
    warnings.push(`the provider's usage object was not stored: ${gen.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    generationEvent = generation(null);
  }
  const trace = {
    id: randomUUID(),
    timestamp: at,
    type: 'trace-create',
    body: { id: r.traceId, name: r.traceName, environment: r.environment, timestamp: at, metadata: r.metadata },
  };
  const events = [trace, generationEvent, ...(r.extraEvents ?? [])];
  // all or nothing: Tally's own events that do not validate are a bug, not a client's mistake
  const outcome = await ingest(em, services, projectId, [{ id: 'recorded call', events }], { source: 'internal' });
  if (outcome.rejected.length) throw new Error(`a recorded event does not validate: ${JSON.stringify(outcome.rejected[0]!.issues)}`);
  warnings.push(...(outcome.warnings.get(generationEvent.id) ?? []));
  const observation = await getObservation(kysely(em), projectId, observationId);
  if (!observation) throw new Error('the recorded generation was not stored');
  return { observation, warnings };
}
