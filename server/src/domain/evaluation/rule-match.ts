// Whether an observation matches an evaluation rule's filters:
// every condition must hold (an empty list matches everything), and observations in Tally's or
// Langfuse's internal environments never match, so a judge never judges itself.
import { toolCallsOf } from './variables.ts';

export interface RuleFilter {
  column: string;
  type: string;
  operator: string;
  value: unknown;
  key?: string;
}

/** what the matcher reads of an observation (its trace's fields copied onto it) */
export interface ObservationForMatching {
  id: string;
  type: string;
  level: string;
  name: string | null;
  environment: string;
  traceName: string | null;
  version: string | null;
  userId: string | null;
  sessionId: string | null;
  tags: string[];
  metadata: unknown;
  parentObservationId: string | null;
  output: unknown;
}

/** internal environments: the judge's own traces, the playground, Langfuse's reserved names */
export const isInternalEnvironment = (env: string) => env.startsWith('langfuse') || env === 'llm-as-a-judge' || env.startsWith('tally-');

function stringOp(actual: string | null, operator: string, expected: string): boolean {
  const a = actual ?? '';
  switch (operator) {
    case '=':
      return a === expected;
    case 'contains':
      return a.includes(expected);
    case 'does not contain':
      return !a.includes(expected);
    case 'starts with':
      return a.startsWith(expected);
    case 'ends with':
      return a.endsWith(expected);
    default:
      return false;
  }
}

function numberOp(a: number, operator: string, e: number): boolean {
  switch (operator) {
    case '=':
      return a === e;
    case '>':
      return a > e;
    case '<':
      return a < e;
    case '>=':
      return a >= e;
    case '<=':
      return a <= e;
    default:
      return false;
  }
}

function metadataValue(metadata: unknown, key: string | undefined): string | null {
  if (!key || !metadata || typeof metadata !== 'object' || Array.isArray(metadata)) return null;
  const v = (metadata as Record<string, unknown>)[key];
  return v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v);
}

function column(o: ObservationForMatching, f: RuleFilter): unknown {
  switch (f.column) {
    case 'type':
      return o.type;
    case 'level':
      return o.level;
    case 'name':
      return o.name;
    case 'environment':
      return o.environment;
    case 'traceName':
      return o.traceName;
    case 'experimentId':
      return null;
    case 'version':
      return o.version;
    case 'userId':
      return o.userId;
    case 'sessionId':
      return o.sessionId;
    case 'tags':
      return o.tags;
    case 'calledToolNames':
      return toolCallsOf(o.output).map((c) => c.name);
    case 'metadata':
      return metadataValue(o.metadata, f.key);
    case 'isRootObservation':
      return o.parentObservationId === null;
    case 'parentObservationId':
      return o.parentObservationId;
    case 'toolCalls':
      return toolCallsOf(o.output).length;
    default:
      return undefined;
  }
}

export function filterMatches(o: ObservationForMatching, f: RuleFilter): boolean {
  const actual = column(o, f);
  switch (f.type) {
    case 'string':
    case 'stringObject':
      return stringOp(actual as string | null, f.operator, String(f.value));
    case 'number':
      return numberOp(Number(actual), f.operator, Number(f.value));
    case 'boolean':
      return f.operator === '<>' ? actual !== f.value : actual === f.value;
    case 'null':
      return f.operator === 'is null' ? actual === null || actual === undefined : actual !== null && actual !== undefined;
    case 'stringOptions': {
      const values = f.value as string[];
      const hit = actual !== null && actual !== undefined && values.includes(String(actual));
      return f.operator === 'none of' ? !hit : hit;
    }
    case 'arrayOptions': {
      const have = (actual as string[]) ?? [];
      const values = f.value as string[];
      if (f.operator === 'all of') return values.every((v) => have.includes(v));
      const any = values.some((v) => have.includes(v));
      return f.operator === 'none of' ? !any : any;
    }
    default:
      return false;
  }
}

export function ruleMatches(o: ObservationForMatching, filters: RuleFilter[]): boolean {
  if (isInternalEnvironment(o.environment)) return false;
  return filters.every((f) => filterMatches(o, f));
}
