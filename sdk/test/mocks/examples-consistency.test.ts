// The spec's examples are what a frontend sees from the mocks: each page of a paginated example
// must agree with itself (its item count with its limit, page and total; its page count with its
// total), as a server's would; costs and usage must add up; and what the mocks answer by default
// (each operation's first success example, in every media type) and the first request-body
// example the docs show must read like real data, not like the conformance suite's fixtures,
// which come after them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listOperations, pickExample } from '../../mocks/examples.ts';

const spec = JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8'));
const operations = listOperations(spec);

interface Page {
  data: unknown[];
  meta: { page: number; limit: number; totalItems: number; totalPages: number };
}
const isPage = (v: unknown): v is Page => {
  const m = (v as Page | null)?.meta;
  return (
    Array.isArray((v as Page | null)?.data) &&
    !!m &&
    ['page', 'limit', 'totalItems', 'totalPages'].every((k) => typeof m[k as keyof Page['meta']] === 'number')
  );
};

const examples: [string, unknown][] = [];
const pages: [string, Page][] = [];
for (const { operationId, operation } of operations) {
  for (const [status, response] of Object.entries(operation.responses ?? {}))
    for (const [name, example] of Object.entries(response?.content?.['application/json']?.examples ?? {})) {
      examples.push([`${operationId} ${status} ${name}`, example.value]);
      if (isPage(example.value)) pages.push([`${operationId} ${status} ${name}`, example.value]);
    }
}

/** the operations whose success answer is a page: its schema has `meta` */
const paginated = operations.filter(({ operation }) =>
  Object.entries(operation.responses ?? {}).some(([status, r]) => {
    const ref = (r?.content?.['application/json'] as { schema?: { $ref?: string } } | undefined)?.schema?.$ref;
    return status.startsWith('2') && !!ref && !!spec.components.schemas[ref.split('/').pop()!]?.properties?.meta;
  }),
);

describe('paginated examples', () => {
  it('are there to check, for every paginated operation', () => {
    expect(paginated.length).toBeGreaterThan(5);
    for (const { operationId } of paginated)
      expect(
        pages.some(([name]) => name.startsWith(`${operationId} `)),
        operationId,
      ).toBe(true);
  });

  it.each(pages)('%s agrees with itself', (_name, { data, meta }) => {
    expect(meta.totalPages).toBe(Math.ceil(meta.totalItems / meta.limit));
    const expected =
      meta.page < meta.totalPages ? meta.limit : meta.page === meta.totalPages ? meta.totalItems - (meta.page - 1) * meta.limit : 0;
    expect(data).toHaveLength(expected);
  });
});

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
const sumOf = (values: unknown[]) => values.reduce<number>((s, x) => s + (x as number), 0);
const allNumbers = (values: unknown[]) => values.every((x) => typeof x === 'number');

/** where a value's costs and usage do not add up: totals against their parts, cost lines against units × price */
function arithmeticProblems(v: unknown, where: string, out: string[] = []): string[] {
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) arithmeticProblems(x, `${where}/${i}`, out);
    return out;
  }
  if (!v || typeof v !== 'object') return out;
  const o = v as Record<string, any>;
  for (const key of ['costDetails', 'usageDetails']) {
    const d = o[key] as Record<string, unknown> | undefined;
    if (typeof d?.total !== 'number') continue;
    const parts = Object.entries(d).flatMap(([k, x]) => (k === 'total' ? [] : [x]));
    if (parts.length && allNumbers(parts) && !close(d.total, sumOf(parts)))
      out.push(`${where}: ${key}.total ${d.total} is not the sum of the other keys (${sumOf(parts)})`);
  }
  for (const key of ['totalCost', 'calculatedTotalCost'])
    if (typeof o[key] === 'number' && typeof o.costDetails?.total === 'number' && !close(o[key], o.costDetails.total))
      out.push(`${where}: ${key} ${o[key]} is not costDetails.total ${o.costDetails.total}`);
  if (typeof o.units === 'number' && typeof o.price === 'number' && typeof o.cost === 'number' && !close(o.cost, o.units * o.price))
    out.push(`${where}: cost ${o.cost} is not ${o.units} × ${o.price}`);
  // a trace's cost is its observations' (trace_get); a day's cost and observations are its models' (metrics_daily)
  const observations: unknown[] = Array.isArray(o.observations) ? o.observations : [];
  const observationCosts = observations.every((x) => x && typeof x === 'object')
    ? observations.map((x: any) => x.calculatedTotalCost ?? 0)
    : [];
  if (
    typeof o.totalCost === 'number' &&
    observationCosts.length &&
    allNumbers(observationCosts) &&
    !close(o.totalCost, sumOf(observationCosts))
  )
    out.push(`${where}: totalCost ${o.totalCost} is not the sum of its observations' (${sumOf(observationCosts)})`);
  if (Array.isArray(o.usage) && typeof o.totalCost === 'number') {
    for (const key of ['totalCost', 'countObservations']) {
      const parts = o.usage.map((u: any) => u?.[key]);
      if (typeof o[key] === 'number' && allNumbers(parts) && !close(o[key], sumOf(parts)))
        out.push(`${where}: ${key} ${o[key]} is not the sum over its models (${sumOf(parts)})`);
    }
  }
  for (const [k, x] of Object.entries(o)) arithmeticProblems(x, `${where}/${k}`, out);
  return out;
}

describe('costs and usage in the examples', () => {
  it('add up: totals are the sums of their parts, each cost line is units × price', () => {
    expect(examples.length).toBeGreaterThan(100);
    expect(examples.flatMap(([name, value]) => arithmeticProblems(value, name))).toEqual([]);
  });

  it('the check finds a total that does not add up', () => {
    expect(arithmeticProblems({ costDetails: { input: 0.1, output: 0.2, total: 0.4 } }, 'x')).toHaveLength(1);
    expect(arithmeticProblems({ lines: [{ units: 10, price: 0.5, cost: 6 }] }, 'x')).toHaveLength(1);
    expect(arithmeticProblems({ totalCost: 1, observations: [{ calculatedTotalCost: 0.5 }] }, 'x')).toHaveLength(1);
  });
});

// the conformance suite's fixtures: its names (conformance-…), its February 2001 data
const FIXTURE = /conformance|\b2001-\d\d-\d\d/i;
// ids no server hands out: cm-example-…, pk-lf-example, gen-1, trace-1
const PLACEHOLDER = /\b(?:cm|pk-lf|sk-lf)-example\b|\b(?:gen|obs|trace|user|session|score|job)-\d+\b/i;

describe("the mocks' default answers", () => {
  it.each(operations.map((o) => [o.operationId, o.operation] as const))(
    '%s answers a documentation example, not a conformance fixture',
    (_id, operation) => {
      const { body } = pickExample(operation);
      expect(JSON.stringify(body ?? null)).not.toMatch(FIXTURE);
      expect(JSON.stringify(body ?? null)).not.toMatch(PLACEHOLDER);
    },
  );

  it.each(paginated.map((o) => [o.operationId, o.operation] as const))('%s answers a page with items in it', (_id, operation) => {
    expect((pickExample(operation).body as Page).data.length).toBeGreaterThan(0);
  });

  // the other media types of the same response (the playground's text/event-stream)
  const otherMedia = operations.flatMap(({ operationId, operation }) => {
    const status = Object.keys(operation.responses ?? {})
      .filter((s) => /^2\d\d$/.test(s))
      .sort()[0];
    const content = (status && operation.responses?.[status]?.content) || {};
    return Object.entries(content).flatMap(([type, media]) => {
      if (type === 'application/json') return [];
      const example = media.examples ? Object.values(media.examples)[0]?.value : media.example;
      return example === undefined ? [] : [[`${operationId} ${status} ${type}`, example] as const];
    });
  });
  it.each(otherMedia)('%s is a documentation example', (_name, example) => {
    expect(typeof example === 'string' ? example : JSON.stringify(example)).not.toMatch(FIXTURE);
  });
  it('include the event stream', () => expect(otherMedia.map(([name]) => name)).toContain('playground_completions 200 text/event-stream'));
});

// the request a reader sees first in the docs (and the SDK's docs): each operation's first
// request-body example, which should build what its documentation answer shows
const requestExamples = operations.flatMap(({ operationId, operation }) => {
  const examples = (operation.requestBody as { content?: Record<string, { examples?: Record<string, { value?: unknown }> }> } | undefined)
    ?.content?.['application/json']?.examples;
  const first = examples && Object.entries(examples)[0];
  return first ? [[`${operationId} ${first[0]}`, first[1].value] as const] : [];
});

describe('the default request examples', () => {
  it('are there to check', () => expect(requestExamples.length).toBeGreaterThan(15));

  it.each(requestExamples)('%s is a documentation example, not a conformance fixture', (_name, value) => {
    expect(JSON.stringify(value ?? null)).not.toMatch(FIXTURE);
  });
});
