// The judge's call and the reading of its answer (the `llmJudgeRequest` webhook of openapi/openapi.yaml,
// which wins where Langfuse differs): one
// user message holding the compiled prompt, the `extract` tool forced, all six model parameters
// always sent (those the caller leaves unset take JUDGE_DEFAULT_PARAMS), and the tool call's
// string `score` converted per the evaluator's output definition.
import type { LlmCall, LlmParams, LlmToolCall } from '../llm/call.ts';
import { EXTRACT_TOOL } from '../llm/extract-tool.ts';
import type { OutputDefinition } from './output-definition.ts';

export type { OutputDefinition };

/** the model parameters a judge call sends when the evaluator does not set them */
export const JUDGE_DEFAULT_PARAMS: Required<LlmParams> = {
  temperature: 0,
  top_p: 1,
  frequency_penalty: 0,
  presence_penalty: 0,
  max_tokens: 1024,
  n: 1,
};

/** the tool as the judge sees it: EXTRACT_TOOL's schema, with the definition's descriptions on its two properties */
function judgeTool(def: OutputDefinition | null) {
  if (!def) return EXTRACT_TOOL;
  const p = EXTRACT_TOOL.parameters as { properties: Record<string, object> };
  return {
    ...EXTRACT_TOOL,
    parameters: {
      ...EXTRACT_TOOL.parameters,
      properties: {
        score: { ...p.properties.score, description: def.score.description },
        reasoning: { ...p.properties.reasoning, description: def.reasoning.description },
      },
    },
  };
}

export function judgeCall(opts: {
  model: string;
  prompt: string;
  params?: LlmParams;
  providerOptions?: Record<string, unknown>;
  outputDefinition: OutputDefinition | null;
}): Omit<LlmCall, 'timeoutMs'> {
  const params = { ...JUDGE_DEFAULT_PARAMS };
  for (const [k, v] of Object.entries(opts.params ?? {})) if (v !== undefined && v !== null) (params as Record<string, number>)[k] = v;
  const tool = judgeTool(opts.outputDefinition);
  return {
    model: opts.model,
    messages: [{ role: 'user', content: opts.prompt }],
    params,
    tools: [tool],
    toolChoice: { name: tool.name },
    ...(opts.providerOptions && Object.keys(opts.providerOptions).length ? { providerOptions: opts.providerOptions } : {}),
  };
}

export interface JudgedScore {
  dataType: 'NUMERIC' | 'BOOLEAN' | 'CATEGORICAL';
  /** a number for NUMERIC and BOOLEAN (1/0), the category for CATEGORICAL */
  value: number | string;
}

export type JudgeAnswer = { ok: true; scores: JudgedScore[]; reasoning: string } | { ok: false; message: string };

const BOOLEAN_WORDS: Record<string, number> = { true: 1, false: 0, yes: 1, no: 0, '1': 1, '0': 0 };

function categoriesOf(raw: string): string[] {
  const t = raw.trim();
  if (t.startsWith('[')) {
    try {
      const parsed = JSON.parse(t);
      if (Array.isArray(parsed)) return parsed.map((x) => String(x).trim());
    } catch {
      // not JSON: read as a comma-separated list
    }
  }
  return t
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/** the scores of the answer's `extract` call; `model` names the judge in the error message, as Langfuse's does */
export function readJudgeAnswer(toolCalls: LlmToolCall[], def: OutputDefinition | null, model: string): JudgeAnswer {
  const fail = (why: string): JudgeAnswer => ({ ok: false, message: `Invalid LLM response format from model ${model}. Error: ${why}` });
  const call = toolCalls.find((t) => t.name === EXTRACT_TOOL.name);
  if (!call)
    return fail(
      toolCalls.length
        ? `expected a call of extract, got ${toolCalls.map((t) => t.name).join(', ')}`
        : 'the answer has no extract tool call',
    );
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return fail('the extract arguments are not JSON');
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) return fail('the extract arguments are not an object');
  const { score, reasoning } = args as Record<string, unknown>;
  if (typeof reasoning !== 'string') return fail('reasoning must be a string');
  if (score === undefined || score === null || typeof score === 'object') return fail('score must be a string');
  const text = String(score).trim();
  const kind = def?.dataType ?? 'NUMERIC';
  if (kind === 'NUMERIC') {
    const n = text === '' ? Number.NaN : Number(text);
    if (!Number.isFinite(n)) return fail(`score "${text}" is not a number`);
    const s: { minValue?: number | null; maxValue?: number | null } = def?.dataType === 'NUMERIC' ? def.score : {};
    if (s.minValue != null && n < s.minValue) return fail(`score ${n} is below the minimum ${s.minValue}`);
    if (s.maxValue != null && n > s.maxValue) return fail(`score ${n} is above the maximum ${s.maxValue}`);
    return { ok: true, scores: [{ dataType: 'NUMERIC', value: n }], reasoning };
  }
  if (kind === 'BOOLEAN') {
    const b = BOOLEAN_WORDS[text.toLowerCase()];
    if (b === undefined) return fail(`score "${text}" is not a boolean (true or false)`);
    return { ok: true, scores: [{ dataType: 'BOOLEAN', value: b }], reasoning };
  }
  const { categories, shouldAllowMultipleMatches } = (def as Extract<OutputDefinition, { dataType: 'CATEGORICAL' }>).score;
  // the label as defined, whatever case the model used
  const canonical = (c: string) => categories.find((k) => k === c) ?? categories.find((k) => k.toLowerCase() === c.toLowerCase());
  const picked = shouldAllowMultipleMatches ? categoriesOf(text) : [text];
  if (!picked.length) return fail('score names no category');
  const labels: string[] = [];
  for (const p of picked) {
    const c = canonical(p);
    if (c === undefined) return fail(`score "${p}" is not one of the categories ${JSON.stringify(categories)}`);
    if (labels.includes(c)) return fail(`category "${c}" is named twice`);
    labels.push(c);
  }
  return { ok: true, scores: labels.map((value) => ({ dataType: 'CATEGORICAL', value })), reasoning };
}
