// Stage 3, PostgreSQL's dialect (compile.ts picks the dialect): a plan → SQL (Kysely raw builders:
// the text is Tally's, from the view declarations; every value the caller sent is a bind
// parameter). Output columns get positional aliases (d0…, t, m0…) that shape.ts maps back to
// names. Nothing here runs a query.
//
// Base table, daily cost by model:
//   select o.model as d0, date_bin('1 day', o.start_time, timestamptz '0001-01-01 00:00:00+00') as t, sum(o.total_cost) as m0
//   from observations o where o.project_id = $1 and o.start_time >= $2 and o.start_time <= $3
//   group by 1, 2 order by t asc, d0 asc limit $4
// Roll-up, the same query: whole days from observation_daily (day, week and month buckets, or
// none), the other whole hours from observation_hourly, edge hours from observations
//   with parts as (select r.model as d0, …, sum(r.total_cost) as s0, sum(r.total_cost_count) as c0
//                  from observation_hourly r where … and r.hour >= $A and r.hour < $B group by 1, 2
//                  union all
//                  select o.model, …, sum(o.total_cost), count(o.total_cost) from observations o
//                  where … and (o.start_time >= $from and o.start_time < $A or o.start_time >= $B and o.start_time <= $to) group by 1, 2)
//   select d0, t, case when sum(c0) = 0 then null else sum(s0) end as m0 from parts group by 1, 2 having sum(n) > 0 order by …
import { sql, type RawBuilder } from 'kysely';
import { filterCondition } from '../filters/compile.ts';
import type { Expr } from './expressions.ts';
import type { ParsedMetric } from './parse.ts';
import { TIME_ALIAS } from './parse.ts';
import { STRIDES, type Bucket } from './granularity.ts';
import type { Plan } from './plan.ts';
import type { Join, View } from './views.ts';

type Sql = RawBuilder<unknown>;
const raw = (s: string): Sql => sql.raw(s);
const list = (parts: Sql[]) => sql.join(parts, sql`, `);

export interface CompiledMetrics {
  main: Sql;
  /** one query per histogram metric: rows of (d…, t, lower, upper, n) */
  histograms: { alias: string; query: Sql }[];
}

const CALENDAR_FORMATS = { month: 'YYYY-MM', day: 'YYYY-MM-DD' } as const;

/**
 * An expression of the views as SQL text, its columns read from `alias` (null: unqualified, for
 * a statement over one table). Every name in it is Tally's own: nothing of a caller's gets here.
 */
export function renderExpr(e: Expr, alias: string | null): string {
  const r = (x: Expr) => renderExpr(x, alias);
  switch (e.kind) {
    case 'column': {
      const of = e.of ?? alias;
      return of === null ? e.name : `${of}.${e.name}`;
    }
    case 'literal':
      return e.value === null ? 'null' : String(e.value);
    case 'pair':
      return `pe.${e.part}`;
    case 'isNull':
      return `(${r(e.of)} is null)`;
    case 'equals':
      return `(${r(e.of)} = ${e.value})`;
    case 'cast':
      return `cast(${r(e.of)} as ${e.to})`;
    case 'calendar':
      return `to_char(${r(e.of)} at time zone 'UTC', '${CALENDAR_FORMATS[e.unit]}')`;
    case 'msBetween':
      return `(extract(epoch from (${r(e.to)} - ${r(e.from)})) * 1000)`;
    case 'perSecond':
      return `(${r(e.of)} / nullif(${r(e.ms)} / 1000, 0))`;
    case 'aggregate':
      return e.of ? `${e.fn}(${r(e.of)})` : `${e.fn}(*)`;
    case 'coalesce':
      return `coalesce(${e.of.map(r).join(', ')})`;
    case 'related':
      return `(select ${r(e.value)} from ${e.table} ${e.alias} where ${e.alias}.project_id = ${alias}.project_id and ${e.alias}.${e.key} = ${alias}.id)`;
  }
}

const expr = (e: Expr, view: View): Sql => raw(renderExpr(e, view.alias));
const timeOf = (view: View): Sql => raw(`${view.alias}.${view.time}`);
const joinOn = (view: View, as: string, j: Join) =>
  `${j.table} ${as} on ${as}.project_id = ${view.alias}.project_id and ${as}.id = ${view.alias}.${j.key}`;
const quoted = (v: string) => `'${v.replaceAll("'", "''")}'`;

const PERCENTILES: Record<string, string> = { p50: '0.5', p75: '0.75', p90: '0.9', p95: '0.95', p99: '0.99' };

function aggregate(m: ParsedMetric, x: Sql): Sql {
  switch (m.aggregation) {
    case 'sum':
      return sql`sum(${x})`;
    case 'avg':
      return sql`avg(${x})`;
    case 'count':
      return sql`count(${x})`;
    case 'max':
      return sql`max(${x})`;
    case 'min':
      return sql`min(${x})`;
    case 'uniq':
      return sql`count(distinct ${x})`;
    default: {
      const p = PERCENTILES[m.aggregation];
      if (!p) throw new Error(`aggregation ${m.aggregation} has no scalar SQL`);
      // exact, interpolated between the two nearest values
      return sql`percentile_cont(${raw(p)}) within group (order by ${x})`;
    }
  }
}

// date_bin from an origin in UTC on a Monday (0001-01-01) gives date_trunc(bucket, col, 'UTC')'s
// buckets for minute/hour/day/week at a fraction of its cost (no time zone looked up per row:
// about a third of the time of a roll-up read); months are not a fixed stride
const bucketExpr = (bucket: Bucket, col: Sql): Sql => {
  const stride = STRIDES[bucket];
  if (!stride) return sql`date_trunc(${raw(`'${bucket}'`)}, ${col}, 'UTC')`;
  const interval = `'${stride.count} ${stride.unit}${stride.count === 1 ? '' : 's'}'`;
  return sql`date_bin(${raw(interval)}, ${col}, timestamptz '0001-01-01 00:00:00+00')`;
};

/** FROM with the joins the query's fields need */
function fromClause(plan: Plan): Sql {
  const { view, dimensions, metrics, filters } = plan.query;
  const parts: Sql[] = [raw(`${view.table} ${view.alias}`)];
  if (view.join) parts.push(raw(`join ${joinOn(view, view.join.as, view.join)}`));
  const relations = new Set(
    [
      ...dimensions.map((d) => d.dimension.relation),
      ...metrics.map((m) => m.measure.relation),
      ...filters.map((f) => view.dimensions[f.target]?.relation),
    ].filter(Boolean),
  );
  for (const r of relations) parts.push(raw(`left join ${joinOn(view, r!, view.relations![r!]!)}`));
  const pair =
    dimensions.find((d) => d.dimension.pairExpand) ??
    filters.map((f) => ({ dimension: view.dimensions[f.target] })).find((d) => d.dimension?.pairExpand);
  if (pair) {
    const map = `${view.alias}.${view.pairExpand![pair.dimension!.pairExpand!]}`;
    parts.push(raw(`cross join lateral jsonb_each_text(${map}) pe(key, value)`));
  }
  return sql.join(parts, sql` `);
}

/** project, segment and the caller's filters (not the time window) */
function baseConditions(plan: Plan, projectId: string): Sql[] {
  const { view, filters } = plan.query;
  const out: Sql[] = [sql`${raw(view.alias)}.project_id = ${projectId}`];
  if (view.segment) {
    const { column, values } = view.segment;
    const c = `${view.alias}.${column}`;
    out.push(raw(values.length === 1 ? `${c} = ${quoted(values[0]!)}` : `${c} in (${values.map(quoted).join(', ')})`));
  }
  for (const f of filters) out.push(filterCondition(f, expr(f.expr, view)));
  return out;
}

/** the time window, both ends inclusive (none for a query without one) */
function windowConditions(plan: Plan, time: Sql): Sql[] {
  const { window } = plan.query;
  return window ? [sql`${time} >= ${window.from}`, sql`${time} <= ${window.to}`] : [];
}

const and = (conds: Sql[]) => sql.join(conds, sql` and `);

function groupAndOrder(plan: Plan, width: number, having?: Sql): Sql {
  const parts: Sql[] = [];
  if (width) parts.push(sql` group by ${list(Array.from({ length: width }, (_, i) => raw(String(i + 1))))}`);
  if (having) parts.push(having);
  const alias = (field: string) => {
    if (field === TIME_ALIAS) return 't';
    const d = plan.query.dimensions.findIndex((x) => x.field === field);
    if (d >= 0) return `d${d}`;
    return `m${plan.scalars.findIndex((m) => m.alias === field)}`;
  };
  // the caller's order first, then every output key ascending, so equal rows come out the same way
  // nulls last either way, as ClickHouse orders them (PostgreSQL's desc puts them first): a
  // top-N by cost lists costs, not the groups that have none
  const nulls = (o: (typeof plan.order)[number]) => (o.nulls === 'first' ? ' nulls first' : o.direction === 'desc' ? ' nulls last' : '');
  const terms = plan.order.map((o) => `${alias(o.field)} ${o.direction}${nulls(o)}`);
  for (const key of [...(plan.bucket ? ['t'] : []), ...plan.query.dimensions.map((_, i) => `d${i}`)]) {
    if (!plan.order.some((o) => alias(o.field) === key)) terms.push(`${key} asc`);
  }
  if (terms.length) parts.push(sql` order by ${raw(terms.join(', '))}`);
  if (plan.query.rowLimit !== null) parts.push(sql` limit ${plan.query.rowLimit}`);
  return sql.join(parts, sql``);
}

function keyColumns(plan: Plan, time: Sql): Sql[] {
  const cols = plan.query.dimensions.map((d, i) => sql`${expr(d.dimension.expr, plan.query.view)} as ${raw(`d${i}`)}`);
  if (plan.bucket) cols.push(sql`${bucketExpr(plan.bucket, time)} as t`);
  return cols;
}

function compileBase(plan: Plan, projectId: string): Sql {
  const { view } = plan.query;
  const time = timeOf(view);
  const cols = keyColumns(plan, time);
  const metrics = plan.scalars.length
    ? plan.scalars.map((m, i) => sql`${aggregate(m, expr(m.measure.expr, view))} as ${raw(`m${i}`)}`)
    : [sql`count(*) as m0`];
  const where = and([...baseConditions(plan, projectId), ...windowConditions(plan, time)]);
  return sql`select ${list([...cols, ...metrics])} from ${fromClause(plan)} where ${where}${groupAndOrder(plan, cols.length)}`;
}

/** roll-up column for a dimension (the declarations name them) */
const rollupDimension = (plan: Plan, field: string) => `r.${plan.query.view.dimensions[field]!.rollup}`;

function compileRollup(plan: Plan, projectId: string): Sql {
  const { view, dimensions, filters } = plan.query;
  const { from, to } = plan.query.window!; // a roll-up plan has a window (plan.ts)
  const { from: a, to: b } = plan.rollup!;
  const width = dimensions.length + (plan.bucket ? 1 : 0);
  const metrics = plan.scalars.length ? plan.scalars : null;

  // whole hours from the roll-ups: whole days from the daily one where the plan says so, the
  // other whole hours from the hourly one
  const groupBy = width ? sql` group by ${list(Array.from({ length: width }, (_, i) => raw(String(i + 1))))}` : sql``;
  const rollupPart = (table: string, time: string, range: Sql) => {
    const rCols = dimensions.map((d, i) => sql`${raw(rollupDimension(plan, d.field))} as ${raw(`d${i}`)}`);
    if (plan.bucket) rCols.push(sql`${bucketExpr(plan.bucket, raw(`r.${time}`))} as t`);
    const rSums = metrics
      ? metrics.flatMap((m, i) => [
          sql`sum(${raw(`r.${m.measure.rollup!.sum}`)}) as ${raw(`s${i}`)}`,
          sql`sum(${raw(`r.${m.measure.rollup!.count}`)}) as ${raw(`c${i}`)}`,
        ])
      : [sql`sum(r.count) as s0`, sql`sum(r.count) as c0`];
    const rWhere = and([
      sql`r.project_id = ${projectId}`,
      range,
      ...filters.map((f) => filterCondition(f, raw(rollupDimension(plan, f.target)))),
    ]);
    return sql`select ${list([...rCols, ...rSums, sql`sum(r.count) as n`])} from ${raw(table)} r where ${rWhere}${groupBy}`;
  };
  const days = plan.rollup!.days;
  const hourRanges = days
    ? [
        [a, days.from],
        [days.to, b],
      ].filter(([x, y]) => x! < y!)
    : [[a, b]];
  const rollupParts = sql.join(
    [
      ...(days ? [rollupPart('observation_daily', 'day', sql`r.day >= ${days.from} and r.day < ${days.to}`)] : []),
      ...(hourRanges.length
        ? [
            rollupPart(
              'observation_hourly',
              'hour',
              sql`(${sql.join(
                hourRanges.map(([x, y]) => sql`r.hour >= ${x} and r.hour < ${y}`),
                sql` or `,
              )})`,
            ),
          ]
        : []),
    ],
    sql` union all `,
  );

  // the partial hours at the window's edges from the base table
  const time = timeOf(view);
  const bCols = keyColumns(plan, time);
  const bSums = metrics
    ? metrics.flatMap((m, i) => [
        sql`sum(${expr(m.measure.expr, view)}) as ${raw(`s${i}`)}`,
        sql`count(${expr(m.measure.expr, view)}) as ${raw(`c${i}`)}`,
      ])
    : [sql`count(*) as s0`, sql`count(*) as c0`];
  const edges = sql`(${time} >= ${from} and ${time} < ${a} or ${time} >= ${b} and ${time} <= ${to})`;
  const basePart = sql`select ${list([...bCols, ...bSums, sql`count(*) as n`])} from ${fromClause(plan)} where ${and([...baseConditions(plan, projectId), edges])}${groupBy}`;

  const keys = [...dimensions.map((_, i) => raw(`d${i}`)), ...(plan.bucket ? [raw('t')] : [])];
  const outMetrics = metrics
    ? metrics.map((m, i) => {
        const [s, c] = [raw(`s${i}`), raw(`c${i}`)];
        if (m.aggregation === 'count') return sql`sum(${c}) as ${raw(`m${i}`)}`;
        if (m.aggregation === 'avg') return sql`sum(${s}) / nullif(sum(${c}), 0) as ${raw(`m${i}`)}`;
        return sql`case when sum(${c}) = 0 then null else sum(${s}) end as ${raw(`m${i}`)}`; // sum of no values is null, as in the base table
      })
    : [sql`sum(c0) as m0`];
  // a roll-up row whose observations all moved elsewhere holds zeros: no group, as in the base
  // table (without grouping, one row of aggregates over nothing, as there)
  const having = width ? sql` having sum(n) > 0` : undefined;
  return sql`with parts as (${rollupParts} union all ${basePart}) select ${list([...keys, ...outMetrics])} from parts${groupAndOrder(plan, width, having)}`;
}

/** per group (and bucket): `bins` equal-width bins between the group's min and max, empty bins left out */
function compileHistogram(plan: Plan, m: ParsedMetric, projectId: string): Sql {
  const { view, bins } = plan.query;
  const time = timeOf(view);
  const cols = keyColumns(plan, time);
  const keys = cols.map((_, i) => (i < plan.query.dimensions.length ? `d${i}` : 't'));
  const where = and([...baseConditions(plan, projectId), ...windowConditions(plan, time), sql`${expr(m.measure.expr, view)} is not null`]);
  const join = keys.length ? raw(keys.map((k) => `v.${k} is not distinct from g.${k}`).join(' and ')) : raw('true');
  const keyList = keys.map((k) => `v.${k}`).join(', ');
  const groupKeys = keys.length ? `${keyList}, ` : '';
  return sql`with v as (select ${list([...cols, sql`cast(${expr(m.measure.expr, view)} as numeric) as x`])} from ${fromClause(plan)} where ${where}),
    g as (select ${raw(keys.length ? `${keys.join(', ')}, ` : '')}min(x) as lo, max(x) as hi from v${raw(keys.length ? ` group by ${keys.join(', ')}` : '')}),
    binned as (select ${raw(groupKeys)}g.lo, g.hi, case when g.hi = g.lo then 1 else least(width_bucket(v.x, g.lo, g.hi, ${bins}), ${bins}) end as bin
      from v join g on ${join})
    select ${raw(groupKeys.replaceAll('v.', ''))}case when hi = lo then lo else lo + (hi - lo) * (bin - 1) / ${bins} end as lower,
      case when hi = lo then hi else lo + (hi - lo) * bin / ${bins} end as upper, count(*) as n
    from binned group by ${raw(`${keys.length ? `${keys.join(', ')}, ` : ''}lo, hi, bin`)} order by ${raw(`${keys.length ? `${keys.join(', ')}, ` : ''}bin`)}`;
}

export function compilePostgres(plan: Plan, projectId: string): CompiledMetrics {
  // with gap filling the limit applies to the filled rows (shape.ts), as ClickHouse's WITH FILL then
  // LIMIT; the same limit in SQL changes nothing there (rows come in time order and filling only
  // adds rows, so the first N filled rows are made of the first N rows and empty buckets) but
  // spares computing the groups past it (an hourly p95 by name over 7 days: 3,380 groups, 1,000 kept)
  return {
    main: plan.rollup ? compileRollup(plan, projectId) : compileBase(plan, projectId),
    histograms: plan.histograms.map((m) => ({ alias: m.alias, query: compileHistogram(plan, m, projectId) })),
  };
}
