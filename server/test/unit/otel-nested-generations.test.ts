// Two instrumentations of one call nest two generations with the same usage: one is kept.
import { describe, expect, it } from 'vitest';
import type { MappedSpan } from '../../src/ingestion/otel/map.ts';
import { keepOneGenerationPerCall, RecentGenerations } from '../../src/ingestion/otel/nested-generations.ts';

const T = 'a'.repeat(32);
const usage = { input: 1000, input_cached_tokens: 200, input_cache_creation: 100, output: 300 };
const gen = (spanId: string, parent: string | null, usageDetails: Record<string, number> = usage): MappedSpan => ({
  traceId: T,
  spanId,
  events: [
    { id: `otel-trace-${T}-${spanId}-x`, timestamp: 't', type: 'trace-create', body: { id: T } },
    {
      id: `otel-generation-${T}-${spanId}-h`,
      timestamp: 't',
      type: 'generation-create',
      body: { id: spanId, traceId: T, parentObservationId: parent, usageDetails, model: 'm', metadata: { a: 1 } },
    },
  ],
});
const types = (spans: MappedSpan[]) => spans.map((s) => ('events' in s ? s.events[1]!.type : 'rejected'));

describe('one generation per call', () => {
  it('keeps the first of a nested pair and turns the second into a span, whichever arrives first, across exports', () => {
    const recent = new RecentGenerations();
    // the inner span ends first and comes in its own export; the outer follows with a total
    expect(types(keepOneGenerationPerCall([gen('inner', 'outer')], recent, 'p'))).toEqual(['generation-create']);
    const [outer] = keepOneGenerationPerCall([gen('outer', null, { ...usage, total: 1600 })], recent, 'p');
    expect(types([outer!])).toEqual(['span-create']);
    const body = (outer as { events: { id: string; body: Record<string, unknown> }[] }).events[1]!;
    expect(body.body.usageDetails).toBeUndefined();
    expect(body.body.metadata).toEqual({ a: 1, duplicateGenerationOf: 'inner' });
    expect(body.id).toBe(`otel-span-${T}-outer-h`);
    // in one export, parent after child or child after parent
    expect(types(keepOneGenerationPerCall([gen('c2', 'p2'), gen('p2', null)], new RecentGenerations(), 'p'))).toEqual([
      'generation-create',
      'span-create',
    ]);
    expect(types(keepOneGenerationPerCall([gen('p3', null), gen('c3', 'p3')], new RecentGenerations(), 'p'))).toEqual([
      'generation-create',
      'span-create',
    ]);
  });

  it('keeps both when the usage differs, they are not parent and child, or they belong to two projects', () => {
    expect(types(keepOneGenerationPerCall([gen('p', null), gen('c', 'p', { input: 5, output: 1 })], new RecentGenerations(), 'p'))).toEqual(
      ['generation-create', 'generation-create'],
    );
    expect(types(keepOneGenerationPerCall([gen('x', 'r'), gen('y', 'r')], new RecentGenerations(), 'p'))).toEqual([
      'generation-create',
      'generation-create',
    ]);
    const recent = new RecentGenerations();
    keepOneGenerationPerCall([gen('c', 'p')], recent, 'project-1');
    expect(types(keepOneGenerationPerCall([gen('p', null)], recent, 'project-2'))).toEqual(['generation-create']);
  });

  it('forgets the oldest beyond its bound', () => {
    const recent = new RecentGenerations(2);
    keepOneGenerationPerCall([gen('c', 'p'), gen('x1', null, { input: 1 }), gen('x2', null, { input: 2 })], recent, 'p');
    expect(types(keepOneGenerationPerCall([gen('p', null)], recent, 'p'))).toEqual(['generation-create']);
  });
});
