// The inclusive → exclusive usage rule, in the one place both the server and the SDK import
// (the SDK is published apart and cannot import the server; the server's domain must not
// depend on the SDK). OpenAI's usage counts are inclusive: prompt_tokens / input_tokens include
// the cached and audio tokens, completion_tokens / output_tokens the reasoning, audio and
// prediction tokens. Tally stores mutually exclusive buckets: each detail is a bucket of its own,
// taken off its parent once, the parent clamped at 0. The server applies it to a raw OpenAI
// usage object (server/src/domain/usage/normalise.ts) and to span attributes
// (server/src/ingestion/otel/usage.ts), the SDK in usageFromOpenAI (sdk/src/usage.ts).
// Pure, no dependencies, no Node-only APIs.

/** An inclusive count without its parts: their sum taken off once, clamped at 0. */
export function exclusiveOf(inclusive: number, parts: Iterable<number>): number {
  let taken = 0;
  for (const p of parts) taken += p;
  return Math.max(inclusive - taken, 0);
}

/**
 * OpenAI usage, its counts and details already read, as Tally's buckets: `input` and `output`
 * without their details, then each input detail `k` as `input_<k>` and each output detail as
 * `output_<k>`, in the order given.
 */
export function openAIBuckets(
  input: number,
  output: number,
  inputDetails: readonly (readonly [string, number])[],
  outputDetails: readonly (readonly [string, number])[],
): { input: number; output: number; details: [string, number][] } {
  return {
    input: exclusiveOf(
      input,
      inputDetails.map(([, v]) => v),
    ),
    output: exclusiveOf(
      output,
      outputDetails.map(([, v]) => v),
    ),
    details: [
      ...inputDetails.map(([k, v]): [string, number] => [`input_${k}`, v]),
      ...outputDetails.map(([k, v]): [string, number] => [`output_${k}`, v]),
    ],
  };
}
