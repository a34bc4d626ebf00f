// GET /api/public/metrics/daily byte for byte: per UTC day the traces that match (by their
// timestamp's day) and their observations (by their start time's day), usage and cost per model.
// The expected bodies are the ones the endpoint's own SQL answered before it became two metrics
// engine queries (domain/metrics/daily.ts), key order included.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { raw, unique } from '../support/client.ts';
import { basic } from '../support/start.ts';
import { dailyBatch, dailyCases } from '../fixtures/metrics-suites.ts';

const env = unique('daily-env');
const other = unique('daily-other');
const tag = unique('daily-tag');

beforeAll(async () => {
  const batch = dailyBatch(env, other, tag);
  const res = await raw('/api/public/ingestion', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  expect(res.body.errors).toEqual([]);
});

/** the body exactly as sent */
async function daily(params: Record<string, string | string[]>): Promise<string> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const x of ([] as string[]).concat(v)) q.append(k, x);
  const res = await fetch(`${inject('baseUrl')}/api/public/metrics/daily?${q}`, { headers: { authorization: basic(inject('projectA')) } });
  expect(res.status).toBe(200);
  return res.text();
}

const CASES = dailyCases(env, other, tag).map((c) => [c.name, c.params] as const);

describe('GET /api/public/metrics/daily', () => {
  it.each(CASES)('answers %s as before', async (name, params) => {
    const body = await daily(params);
    expect(body).toBe(EXPECTED[name]);
  });
});

const EXPECTED: Record<string, string> = {
  'every day of an environment':
    '{"data":[{"date":"2003-06-05","countTraces":1,"countObservations":0,"totalCost":0,"usage":[]},{"date":"2003-06-02","countTraces":1,"countObservations":3,"totalCost":0.375,"usage":[{"model":"a-model","totalCost":0,"inputUsage":1,"totalUsage":2,"countTraces":1,"outputUsage":1,"countObservations":1},{"model":"gpt-x","totalCost":0.375,"inputUsage":22,"totalUsage":24,"countTraces":2,"outputUsage":2,"countObservations":2}]},{"date":"2003-06-01","countTraces":2,"countObservations":4,"totalCost":1.75,"usage":[{"model":null,"totalCost":0,"inputUsage":7,"totalUsage":7,"countTraces":2,"outputUsage":0,"countObservations":2},{"model":"claude-y","totalCost":1.25,"inputUsage":30,"totalUsage":40,"countTraces":1,"outputUsage":3,"countObservations":1},{"model":"gpt-x","totalCost":0.5,"inputUsage":10,"totalUsage":11,"countTraces":1,"outputUsage":1,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":3,"totalPages":1}}',
  'two environments':
    '{"data":[{"date":"2003-06-05","countTraces":1,"countObservations":0,"totalCost":0,"usage":[]},{"date":"2003-06-03","countTraces":1,"countObservations":1,"totalCost":2,"usage":[{"model":"gpt-x","totalCost":2,"inputUsage":5,"totalUsage":10,"countTraces":1,"outputUsage":5,"countObservations":1}]},{"date":"2003-06-02","countTraces":1,"countObservations":3,"totalCost":0.375,"usage":[{"model":"a-model","totalCost":0,"inputUsage":1,"totalUsage":2,"countTraces":1,"outputUsage":1,"countObservations":1},{"model":"gpt-x","totalCost":0.375,"inputUsage":22,"totalUsage":24,"countTraces":2,"outputUsage":2,"countObservations":2}]},{"date":"2003-06-01","countTraces":2,"countObservations":4,"totalCost":1.75,"usage":[{"model":null,"totalCost":0,"inputUsage":7,"totalUsage":7,"countTraces":2,"outputUsage":0,"countObservations":2},{"model":"claude-y","totalCost":1.25,"inputUsage":30,"totalUsage":40,"countTraces":1,"outputUsage":3,"countObservations":1},{"model":"gpt-x","totalCost":0.5,"inputUsage":10,"totalUsage":11,"countTraces":1,"outputUsage":1,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":4,"totalPages":1}}',
  'the other environment':
    '{"data":[{"date":"2003-06-03","countTraces":1,"countObservations":1,"totalCost":2,"usage":[{"model":"gpt-x","totalCost":2,"inputUsage":5,"totalUsage":10,"countTraces":1,"outputUsage":5,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":1,"totalPages":1}}',
  'traces carrying all the tags':
    '{"data":[{"date":"2003-06-02","countTraces":0,"countObservations":1,"totalCost":0.25,"usage":[{"model":"gpt-x","totalCost":0.25,"inputUsage":20,"totalUsage":22,"countTraces":1,"outputUsage":2,"countObservations":1}]},{"date":"2003-06-01","countTraces":1,"countObservations":2,"totalCost":0.5,"usage":[{"model":null,"totalCost":0,"inputUsage":7,"totalUsage":7,"countTraces":1,"outputUsage":0,"countObservations":1},{"model":"gpt-x","totalCost":0.5,"inputUsage":10,"totalUsage":11,"countTraces":1,"outputUsage":1,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":2,"totalPages":1}}',
  'one tag':
    '{"data":[{"date":"2003-06-02","countTraces":0,"countObservations":1,"totalCost":0.25,"usage":[{"model":"gpt-x","totalCost":0.25,"inputUsage":20,"totalUsage":22,"countTraces":1,"outputUsage":2,"countObservations":1}]},{"date":"2003-06-01","countTraces":2,"countObservations":4,"totalCost":1.75,"usage":[{"model":null,"totalCost":0,"inputUsage":7,"totalUsage":7,"countTraces":2,"outputUsage":0,"countObservations":2},{"model":"claude-y","totalCost":1.25,"inputUsage":30,"totalUsage":40,"countTraces":1,"outputUsage":3,"countObservations":1},{"model":"gpt-x","totalCost":0.5,"inputUsage":10,"totalUsage":11,"countTraces":1,"outputUsage":1,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":2,"totalPages":1}}',
  'a tag alone':
    '{"data":[{"date":"2003-06-05","countTraces":1,"countObservations":0,"totalCost":0,"usage":[]},{"date":"2003-06-02","countTraces":1,"countObservations":3,"totalCost":0.375,"usage":[{"model":"a-model","totalCost":0,"inputUsage":1,"totalUsage":2,"countTraces":1,"outputUsage":1,"countObservations":1},{"model":"gpt-x","totalCost":0.375,"inputUsage":22,"totalUsage":24,"countTraces":2,"outputUsage":2,"countObservations":2}]},{"date":"2003-06-01","countTraces":1,"countObservations":2,"totalCost":0.5,"usage":[{"model":null,"totalCost":0,"inputUsage":7,"totalUsage":7,"countTraces":1,"outputUsage":0,"countObservations":1},{"model":"gpt-x","totalCost":0.5,"inputUsage":10,"totalUsage":11,"countTraces":1,"outputUsage":1,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":3,"totalPages":1}}',
  'a trace name':
    '{"data":[{"date":"2003-06-02","countTraces":1,"countObservations":3,"totalCost":0.375,"usage":[{"model":"a-model","totalCost":0,"inputUsage":1,"totalUsage":2,"countTraces":1,"outputUsage":1,"countObservations":1},{"model":"gpt-x","totalCost":0.375,"inputUsage":22,"totalUsage":24,"countTraces":2,"outputUsage":2,"countObservations":2}]},{"date":"2003-06-01","countTraces":1,"countObservations":2,"totalCost":0.5,"usage":[{"model":null,"totalCost":0,"inputUsage":7,"totalUsage":7,"countTraces":1,"outputUsage":0,"countObservations":1},{"model":"gpt-x","totalCost":0.5,"inputUsage":10,"totalUsage":11,"countTraces":1,"outputUsage":1,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":2,"totalPages":1}}',
  'an empty trace name': '{"data":[],"meta":{"page":1,"limit":50,"totalItems":0,"totalPages":0}}',
  'a user':
    '{"data":[{"date":"2003-06-02","countTraces":0,"countObservations":1,"totalCost":0.25,"usage":[{"model":"gpt-x","totalCost":0.25,"inputUsage":20,"totalUsage":22,"countTraces":1,"outputUsage":2,"countObservations":1}]},{"date":"2003-06-01","countTraces":1,"countObservations":2,"totalCost":0.5,"usage":[{"model":null,"totalCost":0,"inputUsage":7,"totalUsage":7,"countTraces":1,"outputUsage":0,"countObservations":1},{"model":"gpt-x","totalCost":0.5,"inputUsage":10,"totalUsage":11,"countTraces":1,"outputUsage":1,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":2,"totalPages":1}}',
  'nothing matching': '{"data":[],"meta":{"page":1,"limit":50,"totalItems":0,"totalPages":0}}',
  'from inclusive, to exclusive':
    '{"data":[{"date":"2003-06-01","countTraces":1,"countObservations":2,"totalCost":1.25,"usage":[{"model":null,"totalCost":0,"inputUsage":0,"totalUsage":0,"countTraces":1,"outputUsage":0,"countObservations":1},{"model":"claude-y","totalCost":1.25,"inputUsage":30,"totalUsage":40,"countTraces":1,"outputUsage":3,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":1,"totalPages":1}}',
  'from alone':
    '{"data":[{"date":"2003-06-05","countTraces":1,"countObservations":0,"totalCost":0,"usage":[]},{"date":"2003-06-02","countTraces":1,"countObservations":2,"totalCost":0.125,"usage":[{"model":"a-model","totalCost":0,"inputUsage":1,"totalUsage":2,"countTraces":1,"outputUsage":1,"countObservations":1},{"model":"gpt-x","totalCost":0.125,"inputUsage":2,"totalUsage":2,"countTraces":1,"outputUsage":0,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":2,"totalPages":1}}',
  'to alone':
    '{"data":[{"date":"2003-06-02","countTraces":1,"countObservations":3,"totalCost":0.375,"usage":[{"model":"a-model","totalCost":0,"inputUsage":1,"totalUsage":2,"countTraces":1,"outputUsage":1,"countObservations":1},{"model":"gpt-x","totalCost":0.375,"inputUsage":22,"totalUsage":24,"countTraces":2,"outputUsage":2,"countObservations":2}]},{"date":"2003-06-01","countTraces":2,"countObservations":4,"totalCost":1.75,"usage":[{"model":null,"totalCost":0,"inputUsage":7,"totalUsage":7,"countTraces":2,"outputUsage":0,"countObservations":2},{"model":"claude-y","totalCost":1.25,"inputUsage":30,"totalUsage":40,"countTraces":1,"outputUsage":3,"countObservations":1},{"model":"gpt-x","totalCost":0.5,"inputUsage":10,"totalUsage":11,"countTraces":1,"outputUsage":1,"countObservations":1}]}],"meta":{"page":1,"limit":50,"totalItems":2,"totalPages":1}}',
  'a page':
    '{"data":[{"date":"2003-06-01","countTraces":2,"countObservations":4,"totalCost":1.75,"usage":[{"model":null,"totalCost":0,"inputUsage":7,"totalUsage":7,"countTraces":2,"outputUsage":0,"countObservations":2},{"model":"claude-y","totalCost":1.25,"inputUsage":30,"totalUsage":40,"countTraces":1,"outputUsage":3,"countObservations":1},{"model":"gpt-x","totalCost":0.5,"inputUsage":10,"totalUsage":11,"countTraces":1,"outputUsage":1,"countObservations":1}]}],"meta":{"page":2,"limit":2,"totalItems":3,"totalPages":2}}',
  'a page past the end': '{"data":[],"meta":{"page":5,"limit":2,"totalItems":3,"totalPages":2}}',
};
