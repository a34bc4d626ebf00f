// Reads the bundled spec and lists every replayable case: one per named response example.
import { readFileSync } from 'node:fs';
import { deref } from '../server/src/http/openapi.ts';

export { deref };

export const SPEC_URL = new URL('../generated/openapi.json', import.meta.url);
export type Json = any;

export interface Step {
  operationId: string;
  example?: string;
  params?: Record<string, unknown>;
  body?: Json;
  save?: string;
}

export interface Conformance {
  setup?: Step[];
  cleanup?: Step[];
  params?: Record<string, unknown>;
  auth?: 'none' | 'wrong' | 'mismatched';
  method?: string;
  ignore?: string[];
  only?: string[];
  skip?: string;
  /** the case calls a provider: the fake gateway answers `reply` and must have received `expect` */
  gateway?: {
    reply: { status: number; body: Json; headers?: Record<string, string> };
    /** `webhook` + `example`: the headers and body are the spec's webhook request example (its header parameters' examples) */
    expect?: { method: string; path: string; headers?: Record<string, string>; body?: Json; webhook?: string; example?: string };
  };
}

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  parameters: { name: string; in: string; examples?: Record<string, { value: unknown }> }[];
  requestExamples: Record<string, Json>;
  responses: Record<string, Json>;
}

export interface Case {
  op: Operation;
  status: number;
  name: string;
  expected: Json;
  x: Conformance;
}

export function loadSpec(): Json {
  return JSON.parse(readFileSync(SPEC_URL, 'utf8'));
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function operations(spec: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, rawItem] of Object.entries<Json>(spec.paths ?? {})) {
    const item = deref(spec, rawItem);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => deref(spec, p));
      const body = deref(spec, op.requestBody)?.content?.['application/json'];
      const requestExamples = Object.fromEntries(Object.entries<Json>(body?.examples ?? {}).map(([k, v]) => [k, deref(spec, v).value]));
      const responses = Object.fromEntries(Object.entries<Json>(op.responses ?? {}).map(([s, r]) => [s, deref(spec, r)]));
      ops.push({ operationId: op.operationId, method, path, parameters, requestExamples, responses });
    }
  }
  return ops;
}

export function cases(spec: Json): Case[] {
  const out: Case[] = [];
  for (const op of operations(spec)) {
    for (const [status, response] of Object.entries<Json>(op.responses)) {
      const examples = response?.content?.['application/json']?.examples ?? {};
      for (const [name, raw] of Object.entries<Json>(examples)) {
        const ex = deref(spec, raw);
        out.push({ op, status: Number(status), name, expected: ex.value, x: ex['x-conformance'] ?? {} });
      }
    }
  }
  return out;
}
