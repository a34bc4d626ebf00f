// The structured call that grades (the `llmJudgeRequest` webhook of openapi/openapi.yaml) and that probes a connection: one function tool
// `extract` whose arguments are a string `score` and a string `reasoning`, forced. Both are
// strings on the wire whatever the evaluator's output type; the caller converts the score.
import type { LlmTool } from './call.ts';

export const EXTRACT_TOOL: LlmTool = {
  name: 'extract',
  description: 'Extract the score and the reasoning behind it.',
  parameters: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { score: { type: 'string' }, reasoning: { type: 'string' } },
    required: ['score', 'reasoning'],
    additionalProperties: false,
  },
};

/** the message Langfuse sends when it checks a default evaluation model */
export const PROBE_MESSAGE =
  'Extract a score (1-5) and reasoning from this text: "This is a test. It worked perfectly because it matched all passing criteria."';

/** the arguments of the answer's `extract` call, or why there is no usable one */
export function extractArguments(
  toolCalls: { name: string; arguments: string }[],
): { ok: true; score: unknown; reasoning: unknown } | { ok: false; reason: string } {
  const call = toolCalls.find((t) => t.name === EXTRACT_TOOL.name);
  if (!call)
    return {
      ok: false,
      reason: toolCalls.length
        ? `the model called ${toolCalls.map((t) => t.name).join(', ')} instead of extract`
        : 'the model answered without calling extract',
    };
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return { ok: false, reason: "the extract call's arguments are not JSON" };
  }
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return { ok: false, reason: "the extract call's arguments are not an object" };
  const { score, reasoning } = args as Record<string, unknown>;
  if (score === undefined || score === null) return { ok: false, reason: 'the extract call has no score' };
  if (reasoning === undefined || reasoning === null) return { ok: false, reason: 'the extract call has no reasoning' };
  return { ok: true, score, reasoning };
}
