// The deterministic ids of an evaluation, derived as Langfuse derives them: the same
// observation gets the same sample value for every rule, the same job for the same rule and
// assignment, and a re-run writes the same score ids, so nothing is ever duplicated.
import { createHash, hash } from 'node:crypto';

// One-shot hashes: ingestion samples every observation of a batch while a rule is enabled.
// createHash's object cost ~1 µs more per call (2.6 against 1.6 µs), and a Buffer for the digest
// most of what was left: the digest as 'binary' (latin1) text, one character per byte, takes 0.3-0.4 µs
// against 1.0-1.3 for a Buffer (Node 24, 2026-11-29), and the sampling value is read from it.
const sha256Hex = (s: string) => hash('sha256', s, 'hex');

/** the first 53 bits of SHA-256("langfuse:evaluation-sampling:v1\0" + spanId), in [0, 1) */
export function samplingValue(observationId: string): number {
  const d = hash('sha256', `langfuse:evaluation-sampling:v1\0${observationId}`, 'binary');
  // 53 bits: the top 21 of the first big-endian word and all 32 of the second
  const w0 = ((d.charCodeAt(0) << 24) | (d.charCodeAt(1) << 16) | (d.charCodeAt(2) << 8) | d.charCodeAt(3)) >>> 0;
  const w1 = ((d.charCodeAt(4) << 24) | (d.charCodeAt(5) << 16) | (d.charCodeAt(6) << 8) | d.charCodeAt(7)) >>> 0;
  return ((w0 >>> 11) * 2 ** 32 + w1) / 2 ** 53;
}

/**
 * Whether a rule at `sampling` takes the observation: Langfuse's rule. For several rules, one
 * sampler per observation, so its value is hashed once whatever the number of rules.
 */
export function sampler(observationId: string): (sampling: number) => boolean {
  let value: number | undefined;
  return (sampling) => {
    if (sampling >= 1) return true;
    value ??= samplingValue(observationId);
    return value < sampling;
  };
}

export const sampled = (sampling: number, observationId: string) => sampler(observationId)(sampling);

export const jobId = (ruleId: string, assignmentId: string, traceId: string, observationId: string) =>
  sha256Hex(JSON.stringify(['observation-eval', ruleId, assignmentId, traceId, observationId])).slice(0, 32);

export const executionTraceId = (job: string) => sha256Hex(job).slice(0, 32);

const SCORE_NAMESPACE = '52b93de0-1d6c-4fb3-9f65-e5173184b1cb';

/** RFC 9562 UUIDv5 (SHA-1 of namespace bytes + name) */
export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const h = createHash('sha1').update(ns).update(name).digest().subarray(0, 16);
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export const scoreId = (job: string, scoreName: string, occurrence: number) =>
  uuidV5(JSON.stringify(['eval-score', job, scoreName, occurrence]), SCORE_NAMESPACE);
