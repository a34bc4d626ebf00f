// GET /api/public/metrics/daily as two metrics engine queries (domain/metrics/daily.ts): the
// queries it asks, the SQL they compile to, and how their rows become days.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { dailyMetrics, dailyQueries, prepareInternal } from '../../src/domain/metrics/index.ts';
import { parseInternalQuery, parseQuery } from '../../src/domain/metrics/parse.ts';

const compiler = new Kysely<Record<string, never>>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe('daily metrics through the engine', () => {
  const filter = {
    traceName: 'checkout',
    userId: 'u1',
    tags: ['a', 'b'],
    environments: ['prod', 'dev'],
    from: new Date('2026-01-01T00:00:00Z'),
    to: new Date('2026-02-01T00:00:00Z'),
  };

  it("counts the matching traces per day, newest first, with no window of the engine's own", () => {
    const c = prepareInternal(dailyQueries(filter).traces, 'p1').compiled.main.compile(compiler);
    expect(c.sql).toBe(
      `select date_bin('1 day', t.timestamp, timestamptz '0001-01-01 00:00:00+00') as t, count(1) as m0 from traces t where t.project_id = $1 and t.timestamp >= $2 and t.timestamp < $3 and t.name = $4 and t.user_id = $5 and t.tags @> cast($6 as text[]) and t.environment = any($7) group by 1 order by t desc nulls last`,
    );
    expect(c.parameters).toEqual(['p1', filter.from, filter.to, 'checkout', 'u1', ['a', 'b'], ['prod', 'dev']]);
  });

  it("sums their observations per day and model, each filter on the observation's trace, models without a name first", () => {
    const c = prepareInternal(dailyQueries(filter).observations, 'p1').compiled.main.compile(compiler);
    expect(c.sql).toBe(
      `select o.model as d0, date_bin('1 day', o.start_time, timestamptz '0001-01-01 00:00:00+00') as t, count(1) as m0, count(distinct o.trace_id) as m1, sum(o.input_usage) as m2, sum(o.output_usage) as m3, sum(o.total_usage) as m4, sum(o.total_cost) as m5 from observations o join traces tr on tr.project_id = o.project_id and tr.id = o.trace_id where o.project_id = $1 and tr.timestamp >= $2 and tr.timestamp < $3 and tr.name = $4 and tr.user_id = $5 and tr.tags @> cast($6 as text[]) and tr.environment = any($7) group by 1, 2 order by d0 asc nulls first, t asc`,
    );
  });

  it('asks nothing of the trace when nothing is filtered, but still pairs each observation with its trace', () => {
    const q = dailyQueries({});
    expect(prepareInternal(q.traces, 'p1').compiled.main.compile(compiler).sql).toContain(
      'from traces t where t.project_id = $1 group by 1',
    );
    expect(prepareInternal(q.observations, 'p1').compiled.main.compile(compiler).sql).toContain(
      'from observations o join traces tr on tr.project_id = o.project_id and tr.id = o.trace_id where o.project_id = $1 group by 1, 2',
    );
  });

  it('keeps the internal view and nulls-first order away from callers', () => {
    expect(() =>
      parseQuery(
        {
          view: 'trace-observations' as 'observations',
          metrics: [],
          fromTimestamp: '2026-01-01T00:00:00Z',
          toTimestamp: '2026-01-02T00:00:00Z',
        },
        { version: 'v1' },
      ),
    ).toThrow('Invalid view trace-observations');
    const wire = parseQuery(
      {
        view: 'observations',
        dimensions: [{ field: 'name' }],
        metrics: [],
        orderBy: [{ field: 'name', direction: 'asc', nulls: 'first' } as { field: string; direction: 'asc' }],
        fromTimestamp: '2026-01-01T00:00:00Z',
        toTimestamp: '2026-01-02T00:00:00Z',
      },
      { version: 'v1' },
    );
    expect(wire.orderBy).toEqual([{ field: 'name', direction: 'asc' }]);
    expect(parseInternalQuery(dailyQueries({}).observations).window).toBeNull();
  });

  it('merges the days of both, newest first; a day with traces only or observations only; cost 0 when none was known', () => {
    const days = dailyMetrics(
      [
        { time_dimension: '2026-01-03', count_count: 2 },
        { time_dimension: '2026-01-01', count_count: 1 },
      ],
      [
        {
          providedModelName: null,
          time_dimension: '2026-01-02',
          count_count: 2,
          uniq_traceId: 1,
          sum_inputTokens: 5,
          sum_outputTokens: 0,
          sum_totalTokens: 5,
          sum_totalCost: null,
        },
        {
          providedModelName: 'gpt-x',
          time_dimension: '2026-01-02',
          count_count: 1,
          uniq_traceId: 1,
          sum_inputTokens: 3,
          sum_outputTokens: 4,
          sum_totalTokens: 7,
          sum_totalCost: 0.25,
        },
        {
          providedModelName: 'gpt-x',
          time_dimension: '2026-01-03',
          count_count: 3,
          uniq_traceId: 2,
          sum_inputTokens: 1,
          sum_outputTokens: 1,
          sum_totalTokens: 2,
          sum_totalCost: 0.5,
        },
      ],
    );
    expect(JSON.stringify(days)).toBe(
      JSON.stringify([
        {
          date: '2026-01-03',
          countTraces: 2,
          countObservations: 3,
          totalCost: 0.5,
          usage: [{ model: 'gpt-x', totalCost: 0.5, inputUsage: 1, totalUsage: 2, countTraces: 2, outputUsage: 1, countObservations: 3 }],
        },
        {
          date: '2026-01-02',
          countTraces: 0,
          countObservations: 3,
          totalCost: 0.25,
          usage: [
            { model: null, totalCost: 0, inputUsage: 5, totalUsage: 5, countTraces: 1, outputUsage: 0, countObservations: 2 },
            { model: 'gpt-x', totalCost: 0.25, inputUsage: 3, totalUsage: 7, countTraces: 1, outputUsage: 4, countObservations: 1 },
          ],
        },
        { date: '2026-01-01', countTraces: 1, countObservations: 0, totalCost: 0, usage: [] },
      ]),
    );
  });

  it("adds a day's model costs as decimals, not floats", () => {
    const row = (model: string, cost: number) => ({
      providedModelName: model,
      time_dimension: '2026-01-02',
      count_count: 1,
      uniq_traceId: 1,
      sum_inputTokens: 1,
      sum_outputTokens: 1,
      sum_totalTokens: 2,
      sum_totalCost: cost,
    });
    // as floats: 0.016418699999999998 and 0.30000000000000004
    expect(dailyMetrics([], [row('a', 0.0162), row('b', 0.0002187)])[0]!.totalCost).toBe(0.0164187);
    expect(dailyMetrics([], [row('a', 0.1), row('b', 0.2)])[0]!.totalCost).toBe(0.3);
  });
});
