// Replays the spec's examples against a server over HTTP: setup steps, the request,
// status + body + response-schema checks, then cleanup. Knows nothing about any one
// endpoint: everything it does comes from the spec and its x-conformance hints.
import { createBackend } from '../server/src/http/openapi.ts';
import { cases, deref, loadSpec, operations, type Case, type Json, type Operation, type Step } from './spec.ts';
import { diff, formatDifferences } from './diff.ts';
import type { Gateway } from './gateway.ts';

/** `gateway`: the suite's fake LLM gateway, reachable from the server; without it, cases that need one are skipped */
export interface Target {
  baseUrl: string;
  publicKey: string;
  secretKey: string;
  gateway?: Gateway;
}
export interface Outcome {
  case: Case;
  ok: boolean;
  skipped?: string;
  problems: string[];
}

function template(value: unknown, vars: Record<string, Json>): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{([\w.]+)\}\}$/.exec(value);
    const lookup = (path: string) => path.split('.').reduce((o: Json, k) => o?.[k], vars);
    if (whole) return lookup(whole[1]!);
    return value.replace(/\{\{([\w.]+)\}\}/g, (_, p) => String(lookup(p)));
  }
  if (Array.isArray(value)) return value.map((v) => template(v, vars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, template(v, vars)]));
  return value;
}

async function call(
  target: Target,
  op: Operation,
  opts: { method?: string; params?: Record<string, unknown>; body?: Json; auth?: string },
) {
  let path = op.path;
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(opts.params ?? {})) {
    const param = op.parameters.find((p) => p.name === k);
    if (param?.in === 'path') path = path.replace(`{${k}}`, encodeURIComponent(String(v)));
    else query.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.auth !== 'none') {
    const secret = opts.auth === 'wrong' ? 'sk-lf-conformance-wrong-secret' : target.secretKey;
    // a valid secret beside a public key that is not its own
    const publicKey = opts.auth === 'mismatched' ? 'pk-lf-conformance-not-this-project' : target.publicKey;
    headers.authorization = `Basic ${Buffer.from(`${publicKey}:${secret}`).toString('base64')}`;
  }
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const qs = query.toString();
  const res = await fetch(`${target.baseUrl}${path}${qs ? `?${qs}` : ''}`, {
    method: (opts.method ?? op.method).toUpperCase(),
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: Json = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* keep the text for the report */
  }
  return { status: res.status, body };
}

type GatewayExpect = NonNullable<NonNullable<Case['x']['gateway']>['expect']>;

/** an expectation that names a webhook example: its headers and body come from the spec's webhooks */
function resolveWebhook(spec: Json, expect: GatewayExpect): GatewayExpect {
  if (!expect.webhook) return expect;
  const op = spec.webhooks?.[expect.webhook]?.post;
  if (!op) throw new Error(`x-conformance names an unknown webhook ${expect.webhook}`);
  const example = deref(spec, op.requestBody?.content?.['application/json']?.examples?.[expect.example ?? ''])?.value;
  if (example === undefined) throw new Error(`webhook ${expect.webhook} has no request example ${expect.example}`);
  const headers: Record<string, string> = {};
  for (const p of (op.parameters ?? []).map((x: Json) => deref(spec, x)))
    if (p.in === 'header' && p.example !== undefined) headers[p.name] = String(p.example);
  return { ...expect, headers: { ...headers, ...expect.headers }, body: example };
}

/** the one request the gateway should have received, checked against the case's `expect` */
function gatewayProblems(expect: GatewayExpect, gateway: Gateway): string[] {
  if (gateway.received.length !== 1) return [`gateway: expected 1 request, received ${gateway.received.length}`];
  const got = gateway.received[0]!;
  const problems: string[] = [];
  if (got.method !== expect.method || got.path !== expect.path)
    problems.push(`gateway: expected ${expect.method} ${expect.path}, received ${got.method} ${got.path}`);
  for (const [k, v] of Object.entries(expect.headers ?? {})) {
    if (got.headers[k.toLowerCase()] !== v)
      problems.push(`gateway: header ${k} expected ${JSON.stringify(v)}, received ${JSON.stringify(got.headers[k.toLowerCase()])}`);
  }
  if (expect.body !== undefined) {
    const diffs = diff(expect.body, got.body, {});
    if (diffs.length) problems.push(`gateway: request body differs from the example:\n${formatDifferences(diffs)}`);
  }
  return problems;
}

export async function replay(target: Target, filter?: (c: Case) => boolean): Promise<Outcome[]> {
  const spec = loadSpec();
  const api = await createBackend(spec);
  const ops = new Map(operations(spec).map((o) => [o.operationId, o]));
  const outcomes: Outcome[] = [];

  const runStep = async (step: Step, vars: Record<string, Json>) => {
    const op = ops.get(step.operationId);
    if (!op) throw new Error(`x-conformance step names unknown operation ${step.operationId}`);
    const body = template(step.body ?? (step.example ? op.requestExamples[step.example] : undefined), vars) as Json;
    const res = await call(target, op, { params: template(step.params, vars) as Record<string, unknown>, body });
    if (res.status >= 300)
      throw new Error(
        `step ${step.operationId}${step.example ? ` (${step.example})` : ''} answered ${res.status}: ${JSON.stringify(res.body)}`,
      );
    if (step.save) vars[step.save] = res.body;
  };

  for (const c of cases(spec).filter(filter ?? (() => true))) {
    if (c.x.skip) {
      outcomes.push({ case: c, ok: true, skipped: c.x.skip, problems: [] });
      continue;
    }
    const gateway = target.gateway;
    if (c.x.gateway && !gateway) {
      outcomes.push({ case: c, ok: true, skipped: 'needs the fake gateway (--gateway-url)', problems: [] });
      continue;
    }
    const vars: Record<string, Json> = gateway ? { gateway: { url: gateway.url } } : {};
    const problems: string[] = [];
    try {
      for (const step of c.x.setup ?? []) await runStep(step, vars);
      const params: Record<string, unknown> = {};
      for (const p of c.op.parameters) if (p.examples?.[c.name]) params[p.name] = p.examples[c.name]!.value;
      Object.assign(params, template(c.x.params ?? {}, vars));
      const hasBody = Object.keys(c.op.requestExamples).length > 0;
      const body = c.op.requestExamples[c.name] ?? (hasBody ? Object.values(c.op.requestExamples)[0] : undefined);
      if (c.x.gateway && gateway) {
        gateway.reply = c.x.gateway.reply;
        gateway.received.length = 0;
      }
      const res = await call(target, c.op, { method: c.x.method, params, body, auth: c.x.auth });
      vars.response = res.body;
      if (c.x.gateway?.expect && gateway) problems.push(...gatewayProblems(resolveWebhook(spec, c.x.gateway.expect), gateway));
      if (res.status !== c.status)
        problems.push(`status: expected ${c.status}, got ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
      else {
        const schemaCheck = c.x.method ? { valid: true, errors: [] } : api.validateResponse(res.body, c.op.operationId, res.status);
        if (!schemaCheck.valid)
          problems.push(
            `response does not match its schema:\n${(schemaCheck.errors ?? []).map((e) => `    at ${e.instancePath || '/'}: ${e.message}`).join('\n')}`,
          );
        const diffs = diff(c.expected, res.body, { ignore: c.x.ignore, only: c.x.only });
        if (diffs.length) problems.push(`body differs from the example:\n${formatDifferences(diffs)}`);
      }
    } catch (e) {
      problems.push(`error: ${(e as Error).message}`);
    } finally {
      for (const step of c.x.cleanup ?? []) {
        try {
          await runStep(step, vars);
        } catch (e) {
          problems.push(`cleanup failed: ${(e as Error).message}`);
        }
      }
    }
    outcomes.push({ case: c, ok: problems.length === 0, problems });
  }
  return outcomes;
}
