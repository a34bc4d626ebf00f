// GET /api/public/metrics/daily (v1): per UTC day, the traces that match (by their timestamp's
// day) and their observations (by their start time's day), with usage and cost per model.
import type { DailyMetric } from '../../../generated/client/types.gen.ts';
import { sql, type Db } from './sql.ts';

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

/** one day as the spec's DailyMetric */
export type DailyRow = DailyMetric;

export async function dailyMetrics(db: Db, projectId: string, f: DailyFilter): Promise<DailyRow[]> {
  const conds = [sql`t.project_id = ${projectId}`];
  if (f.from) conds.push(sql`t.timestamp >= ${f.from}`);
  if (f.to) conds.push(sql`t.timestamp < ${f.to}`);
  if (f.traceName !== undefined) conds.push(sql`t.name = ${f.traceName}`);
  if (f.userId !== undefined) conds.push(sql`t.user_id = ${f.userId}`);
  if (f.tags?.length) conds.push(sql`t.tags @> cast(${f.tags} as text[])`);
  if (f.environments?.length) conds.push(sql`t.environment = any(${f.environments})`);
  const { rows } = await sql<{ day: string; count_traces: string; usage: DailyRow['usage'] }>`
    with t as (select t.id, t.timestamp from traces t where ${sql.join(conds, sql` and `)}),
    o as (select o.trace_id, o.model, to_char(date_trunc('day', o.start_time, 'UTC') at time zone 'UTC', 'YYYY-MM-DD') as day,
            o.input_usage, o.output_usage, o.total_usage, o.total_cost
          from t join observations o on o.project_id = ${projectId} and o.trace_id = t.id),
    td as (select to_char(date_trunc('day', t.timestamp, 'UTC') at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as n from t group by 1),
    od as (select day, model, count(*) as n, count(distinct trace_id) as nt, sum(input_usage) as iu, sum(output_usage) as ou,
             sum(total_usage) as tu, coalesce(sum(total_cost), 0) as c
           from o group by 1, 2),
    days as (select day from td union select day from od)
    select d.day, coalesce(td.n, 0) as count_traces,
      coalesce((select jsonb_agg(jsonb_build_object('model', od.model, 'inputUsage', od.iu, 'outputUsage', od.ou, 'totalUsage', od.tu,
        'countObservations', od.n, 'countTraces', od.nt, 'totalCost', od.c) order by od.model nulls first) from od where od.day = d.day), '[]') as usage
    from days d left join td on td.day = d.day
    order by d.day desc`.execute(db);
  return rows.map((r) => {
    const usage = (typeof r.usage === 'string' ? JSON.parse(r.usage) : r.usage) as DailyRow['usage'];
    return {
      date: r.day,
      countTraces: Number(r.count_traces),
      countObservations: usage.reduce((n, u) => n + u.countObservations, 0),
      // summed in SQL per model; the day's total adds a handful of already exact values
      totalCost: usage.reduce((n, u) => n + u.totalCost, 0),
      usage,
    };
  });
}
