// The values an evaluator's prompt variables take from an observation, as Langfuse extracts
// them: each mapping entry picks a source field, JSON strings in it are parsed, and a jsonPath
// selects inside it (json-path.ts: one match unwrapped, several as an array, none as undefined).
import { extractJsonPath } from './json-path.ts';
import type { Mapping } from './mapping.ts';

export interface ObservationForEvaluation {
  input: unknown;
  output: unknown;
  metadata: unknown;
}

export interface ToolCallView {
  id: string | null;
  name: string;
  arguments: unknown;
  type: string;
  index: number;
}

/** strings holding JSON objects or arrays, at any depth, become those values */
export function deepParse(value: unknown, depth = 0): unknown {
  if (depth > 100) return value;
  if (typeof value === 'string') {
    const t = value.trim();
    if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
      try {
        return deepParse(JSON.parse(t), depth + 1);
      } catch {
        return value;
      }
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => deepParse(v, depth + 1));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepParse(v, depth + 1)]));
  return value;
}

/** the tool calls in a generation's output, in the chat-completions message shapes SDKs record */
export function toolCallsOf(output: unknown): ToolCallView[] {
  const messages = Array.isArray(output) ? output : [output];
  const calls: ToolCallView[] = [];
  for (const m of messages) {
    const list = m && typeof m === 'object' ? (m as { tool_calls?: unknown }).tool_calls : undefined;
    if (!Array.isArray(list)) continue;
    for (const c of list) {
      if (!c || typeof c !== 'object') continue;
      const o = c as Record<string, unknown>;
      const fn = (o.function && typeof o.function === 'object' ? o.function : o) as Record<string, unknown>;
      if (typeof fn.name !== 'string') continue;
      calls.push({
        id: typeof o.id === 'string' ? o.id : null,
        name: fn.name,
        arguments: deepParse(fn.arguments),
        type: typeof o.type === 'string' ? o.type : 'function',
        index: calls.length,
      });
    }
  }
  return calls;
}

/** experiment sources (expected_output, experiment_item_metadata) have no value on an observation */
export function extractVariables(obs: ObservationForEvaluation, mapping: Mapping[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of mapping) {
    const raw =
      m.source === 'tool_calls'
        ? toolCallsOf(deepParse(obs.output))
        : m.source === 'input' || m.source === 'output' || m.source === 'metadata'
          ? deepParse(obs[m.source])
          : undefined;
    out[m.variable] = m.jsonPath ? extractJsonPath(raw, m.jsonPath) : raw;
  }
  return out;
}
