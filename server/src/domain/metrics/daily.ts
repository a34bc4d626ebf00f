// GET /api/public/metrics/daily (v1) as two queries of the metrics engine: per UTC day, the
// traces that match (the traces view, by their timestamp's day) and their observations (the
// internal trace-observations view, by their own start time's day) with usage and cost per
// model; then every day of either, newest first. The filters are the trace's in both queries.
import type { DailyMetric, DailyUsage } from '../../../../generated/client/types.gen.ts';
import type { InternalQueryInput } from './parse.ts';
import { TIME_ALIAS } from './parse.ts';
import type { Row } from './shape.ts';
import { sum as exactSum } from '../cost/exact.ts';

export interface DailyFilter {
  traceName?: string;
  userId?: string;
  /** the trace must carry all of them */
  tags?: string[];
  environments?: string[];
  from?: Date;
  /** exclusive */
  to?: Date;
}

/** the two engine queries of one request */
export function dailyQueries(f: DailyFilter): { traces: InternalQueryInput; observations: InternalQueryInput } {
  const filters: InternalQueryInput['filters'] = [];
  if (f.from) filters.push({ column: 'timestamp', operator: '>=', value: f.from.toISOString(), type: 'datetime' });
  if (f.to) filters.push({ column: 'timestamp', operator: '<', value: f.to.toISOString(), type: 'datetime' });
  if (f.traceName !== undefined) filters.push({ column: 'name', operator: '=', value: f.traceName, type: 'string' });
  if (f.userId !== undefined) filters.push({ column: 'userId', operator: '=', value: f.userId, type: 'string' });
  if (f.tags?.length) filters.push({ column: 'tags', operator: 'all of', value: f.tags, type: 'arrayOptions' });
  if (f.environments?.length) filters.push({ column: 'environment', operator: 'any of', value: f.environments, type: 'stringOptions' });
  const perDay = { timeDimension: { granularity: 'day' as const }, filters };
  return {
    traces: {
      view: 'traces',
      metrics: [{ measure: 'count', aggregation: 'count' }],
      ...perDay,
      orderBy: [{ field: TIME_ALIAS, direction: 'desc' }],
    },
    observations: {
      view: 'trace-observations',
      dimensions: [{ field: 'providedModelName' }],
      metrics: [
        { measure: 'count', aggregation: 'count' },
        { measure: 'traceId', aggregation: 'uniq' },
        { measure: 'inputTokens', aggregation: 'sum' },
        { measure: 'outputTokens', aggregation: 'sum' },
        { measure: 'totalTokens', aggregation: 'sum' },
        { measure: 'totalCost', aggregation: 'sum' },
      ],
      ...perDay,
      // a day's models in the database's order, the observations without one first
      orderBy: [{ field: 'providedModelName', direction: 'asc', nulls: 'first' }],
    },
  };
}

const num = (v: unknown) => v as number;

/** the two queries' shaped rows → the days, newest first */
export function dailyMetrics(traceRows: Row[], observationRows: Row[]): DailyMetric[] {
  const traces = new Map(traceRows.map((r) => [String(r[TIME_ALIAS]), num(r.count_count)]));
  const usageByDay = new Map<string, DailyUsage[]>();
  for (const r of observationRows) {
    const day = String(r[TIME_ALIAS]);
    const usage = usageByDay.get(day) ?? [];
    // the keys in the order the endpoint has always sent them
    usage.push({
      model: r.providedModelName as string | null,
      totalCost: num(r.sum_totalCost ?? 0),
      inputUsage: num(r.sum_inputTokens),
      totalUsage: num(r.sum_totalTokens),
      countTraces: num(r.uniq_traceId),
      outputUsage: num(r.sum_outputTokens),
      countObservations: num(r.count_count),
    });
    usageByDay.set(day, usage);
  }
  const days = [...new Set([...traces.keys(), ...usageByDay.keys()])].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return days.map((date) => {
    const usage = usageByDay.get(date) ?? [];
    return {
      date,
      countTraces: traces.get(date) ?? 0,
      countObservations: usage.reduce((n, u) => n + u.countObservations, 0),
      // summed in SQL per model; the day's total adds those decimals exactly (as floats,
      // 0.0162 + 0.0002187 gave 0.016418699999999998)
      totalCost: exactSum(usage.map((u) => u.totalCost)),
      usage,
    };
  });
}
