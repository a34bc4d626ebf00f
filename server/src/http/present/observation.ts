// Stored observation / trace → wire shapes of the spec (types from the generated client).
import type { Observation, TraceWithDetails, TraceWithObservations } from '../../../../generated/client/types.gen.ts';
import { type TraceFieldGroup, traceLatency, type TraceTotals } from '../../domain/traces/list.ts';
import type { ObservationRecord, TraceRecord } from '../../domain/ingestion/types.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const seconds = (from: Date | null, to: Date | null) => (from && to ? (to.getTime() - from.getTime()) / 1000 : null);

export function presentObservation(o: ObservationRecord, projectId: string): Observation {
  return {
    id: o.id,
    projectId,
    traceId: o.traceId,
    parentObservationId: o.parentObservationId,
    type: o.type,
    name: o.name,
    environment: o.environment,
    startTime: o.startTime.toISOString(),
    endTime: iso(o.endTime),
    completionStartTime: iso(o.completionStartTime),
    version: o.version,
    level: o.level as Observation['level'],
    statusMessage: o.statusMessage,
    input: o.input,
    output: o.output,
    metadata: o.metadata,
    model: o.model,
    modelParameters: o.modelParameters,
    promptId: null,
    promptName: o.promptName,
    promptVersion: o.promptVersion,
    usageDetails: o.usageDetails,
    costDetails: o.costDetails,
    usage: { unit: 'TOKENS', input: o.inputUsage, output: o.outputUsage, total: o.totalUsage },
    unit: 'TOKENS',
    promptTokens: o.inputUsage,
    completionTokens: o.outputUsage,
    totalTokens: o.totalUsage,
    calculatedInputCost: o.inputCost,
    calculatedOutputCost: o.outputCost,
    calculatedTotalCost: o.totalCost ?? 0,
    modelId: o.modelId,
    inputPrice: o.pricesUsed?.input ?? null,
    outputPrice: o.pricesUsed?.output ?? null,
    totalPrice: o.pricesUsed?.total ?? null,
    usagePricingTierId: o.usagePricingTierId,
    usagePricingTierName: o.usagePricingTierName,
    latency: seconds(o.startTime, o.endTime),
    timeToFirstToken: seconds(o.startTime, o.completionStartTime),
    costStatus: o.costStatus,
    unpricedUsageKeys: o.unpricedUsageKeys,
    usagePricedAs: o.usagePricedAs ?? {},
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

export function presentTrace(t: TraceRecord, observations: ObservationRecord[], projectId: string): TraceWithObservations {
  const starts = observations.map((o) => o.startTime.getTime());
  const ends = observations.map((o) => (o.endTime ?? o.startTime).getTime());
  // summed as integers of 1e-12 USD so many small costs add up exactly
  const totalPico = observations.reduce((s, o) => s + BigInt(Math.round((o.totalCost ?? 0) * 1e12)), 0n);
  return {
    id: t.id,
    projectId,
    timestamp: t.timestamp.toISOString(),
    name: t.name,
    input: t.input,
    output: t.output,
    sessionId: t.sessionId,
    userId: t.userId,
    release: t.release,
    version: t.version,
    environment: t.environment,
    metadata: t.metadata,
    tags: t.tags,
    public: t.public,
    totalCost: Number(totalPico) / 1e12,
    latency: observations.length ? (Math.max(...ends) - Math.min(...starts)) / 1000 : null,
    observations: observations.map((o) => presentObservation(o, projectId)),
  };
}

/** a trace as GET /traces lists it; `fields` leaves groups out as Langfuse does (empty arrays, -1 metrics, null io) */
export function presentListedTrace(
  t: TraceRecord,
  totals: TraceTotals | undefined,
  scoreIds: string[],
  fields: Set<TraceFieldGroup>,
  projectId: string,
): TraceWithDetails {
  const io = fields.has('io');
  const metrics = fields.has('metrics');
  return {
    id: t.id,
    projectId,
    timestamp: t.timestamp.toISOString(),
    name: t.name,
    input: io ? t.input : null,
    output: io ? t.output : null,
    sessionId: t.sessionId,
    userId: t.userId,
    release: t.release,
    version: t.version,
    environment: t.environment,
    metadata: io ? t.metadata : null,
    tags: t.tags,
    public: t.public,
    htmlPath: `/#/traces/${encodeURIComponent(t.id)}`,
    totalCost: metrics ? (totals?.totalCost ?? 0) : -1,
    latency: metrics ? traceLatency(totals) : -1,
    observations: fields.has('observations') ? (totals?.observationIds ?? []) : [],
    scores: fields.has('scores') ? scoreIds : [],
  };
}
