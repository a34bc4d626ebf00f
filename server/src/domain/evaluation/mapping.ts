// Evaluator variable mappings, of an evaluator and of a rule's assignment. Pure: each check
// returns the first problem in Langfuse's order and words, or null.
import { jsonPathSyntaxProblem, unsupportedJsonPath } from './json-path.ts';

export type MappingSource = 'input' | 'output' | 'metadata' | 'tool_calls' | 'expected_output' | 'experiment_item_metadata';
export type RuleTarget = 'observation' | 'experiment';

export interface Mapping {
  variable: string;
  source: MappingSource | null;
  jsonPath?: string;
}

export const OBSERVATION_SOURCES: MappingSource[] = ['input', 'output', 'metadata', 'tool_calls'];
export const EXPERIMENT_SOURCES: MappingSource[] = [...OBSERVATION_SOURCES, 'expected_output', 'experiment_item_metadata'];
export const sourcesFor = (target: RuleTarget) => (target === 'observation' ? OBSERVATION_SOURCES : EXPERIMENT_SOURCES);

/** the fixed mapping of a code evaluator */
export const CODE_EVALUATOR_MAPPING: Mapping[] = [
  { variable: 'input', source: 'input' },
  { variable: 'output', source: 'output' },
  { variable: 'metadata', source: 'metadata' },
  { variable: 'toolCalls', source: 'tool_calls' },
  { variable: 'experimentItemExpectedOutput', source: 'expected_output' },
  { variable: 'experimentItemMetadata', source: 'experiment_item_metadata' },
];
export const CODE_EVALUATOR_VARIABLES = CODE_EVALUATOR_MAPPING.map((m) => m.variable);

export type MappingProblemCode =
  | 'invalid_variable_mapping'
  | 'duplicate_variable_mapping'
  | 'missing_variable_mapping'
  | 'invalid_json_path';

export interface MappingProblem {
  code: MappingProblemCode;
  message: string;
  details: Record<string, unknown>;
}

/**
 * The API-level mapping check of a rule assignment or an evaluator's default mapping, against
 * the prompt's variables: per entry (source for the target, variable in the prompt, repeated
 * variable), then the missing variables, then each jsonPath's syntax.
 */
export function checkMapping(mapping: Mapping[], variables: string[], target: RuleTarget): MappingProblem | null {
  const allowed = sourcesFor(target);
  const known = new Set(variables);
  const seen = new Set<string>();
  for (const [i, m] of mapping.entries()) {
    if (m.source === null || !allowed.includes(m.source)) {
      return {
        code: 'invalid_variable_mapping',
        message: `Mapping source "${m.source}" is not supported for target "${target}"`,
        details: { field: `mapping[${i}].source`, variable: m.variable, allowedValues: allowed },
      };
    }
    if (!known.has(m.variable)) {
      return {
        code: 'invalid_variable_mapping',
        message: `Mapping variable "${m.variable}" is not present in the evaluator prompt`,
        details: { field: `mapping[${i}].variable`, variable: m.variable },
      };
    }
    if (seen.has(m.variable)) {
      return {
        code: 'duplicate_variable_mapping',
        message: `Mapping variable "${m.variable}" can only be mapped once`,
        details: { field: 'mapping', variable: m.variable },
      };
    }
    seen.add(m.variable);
  }
  const missing = variables.filter((v) => !seen.has(v));
  if (missing.length)
    return {
      code: 'missing_variable_mapping',
      message: `Missing mappings for evaluator variables: ${missing.join(', ')}`,
      details: { field: 'mapping', variables: missing },
    };
  for (const [i, m] of mapping.entries()) {
    if (m.jsonPath === undefined) continue;
    const problem = jsonPathSyntaxProblem(m.jsonPath);
    if (problem) {
      return {
        code: 'invalid_json_path',
        message: `Mapping for variable "${m.variable}" has an invalid jsonPath "${m.jsonPath}". ${problem}`,
        details: { field: `mapping[${i}].jsonPath`, variable: m.variable, value: m.jsonPath },
      };
    }
  }
  return null;
}

/**
 * The storage-level check (400 invalid_request): duplicates, unknown and missing variables,
 * then the jsonPath forms the evaluator does not apply. Returns the message or null.
 */
export function storageMappingProblem(mapping: Mapping[], variables: string[]): string | null {
  const counts = new Map<string, number>();
  for (const m of mapping) counts.set(m.variable, (counts.get(m.variable) ?? 0) + 1);
  const dup = [...counts].filter(([, n]) => n > 1).map(([v]) => v);
  if (dup.length) return `Duplicate mappings for evaluator variables: ${dup.join(', ')}`;
  const unknown = [...counts.keys()].filter((v) => !variables.includes(v));
  if (unknown.length) return `Mappings reference unknown evaluator variables: ${unknown.join(', ')}`;
  const missing = variables.filter((v) => !counts.has(v));
  if (missing.length) return `Missing mappings for evaluator variables: ${missing.join(', ')}`;
  if (mapping.some((m) => m.source === null)) return 'Evaluator variable mapping is invalid';
  for (const m of mapping) {
    const unsupported = m.jsonPath === undefined ? null : unsupportedJsonPath(m.jsonPath);
    if (unsupported) return unsupported;
  }
  return null;
}

/** the variables a mapping leaves unmapped (for re-checking assignments against a new prompt) */
export function missingVariables(mapping: Mapping[] | null, variables: string[]): string[] {
  const mapped = new Set((mapping ?? []).map((m) => m.variable));
  return variables.filter((v) => !mapped.has(v));
}

/** the write shape with `jsonPath` only when present */
export function normaliseMapping(mapping: { variable: string; source: MappingSource | null; jsonPath?: string | null }[]): Mapping[] {
  return mapping.map((m) =>
    m.jsonPath === undefined || m.jsonPath === null
      ? { variable: m.variable, source: m.source }
      : { variable: m.variable, source: m.source, jsonPath: m.jsonPath },
  );
}
