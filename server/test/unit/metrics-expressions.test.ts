// The views as data (domain/metrics/views.ts, expressions.ts, rollup.ts) and the one place they
// become SQL (compile.ts renderExpr): the declarations hold names only, the renderer gives each
// kind of expression its SQL, and the roll-up declaration agrees with what the store writes.
import { describe, expect, it } from 'vitest';
import { renderExpr } from '../../src/domain/metrics/compile.ts';
import { col, columnsOf, LATENCY_MS, msBetween, NULL, ONE, type Expr } from '../../src/domain/metrics/expressions.ts';
import { ROLLUP_KEYS, ROLLUP_SUM_COLUMNS, ROLLUP_SUMS, ROLLUP_TIME } from '../../src/domain/metrics/rollup.ts';
import { VIEWS } from '../../src/domain/metrics/views.ts';
import { ROLLUP_SOURCE_COLUMNS } from '../../src/store/rollups.ts';

/** every string in a declaration, with the key it sits under */
function strings(v: unknown, key = ''): [string, string][] {
  if (typeof v === 'string') return [[key, v]];
  if (Array.isArray(v)) return v.flatMap((x) => strings(x, key));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => strings(x, k));
  return [];
}

describe('metrics views as data', () => {
  it('name tables, columns and aliases only: no SQL before the compile stage', () => {
    for (const [name, view] of Object.entries(VIEWS)) {
      for (const [key, s] of strings(view)) {
        if (key === 'unavailable') continue; // the reason a 400 gives
        expect(s, `${name}.${key}`).toMatch(/^[A-Za-z][A-Za-z0-9_-]*(\[\])?$/);
      }
    }
  });

  it('render each kind of expression', () => {
    const cases: [Expr, string][] = [
      [col('model'), 'o.model'],
      [col('name', 'tr'), 'tr.name'],
      [ONE, '1'],
      [NULL, 'null'],
      [{ kind: 'pair', part: 'key' }, 'pe.key'],
      [{ kind: 'cast', of: { kind: 'pair', part: 'value' }, to: 'numeric' }, 'cast(pe.value as numeric)'],
      [{ kind: 'isNull', of: col('parent_observation_id') }, '(o.parent_observation_id is null)'],
      [{ kind: 'equals', of: col('value'), value: 1 }, '(o.value = 1)'],
      [{ kind: 'calendar', of: col('start_time'), unit: 'month' }, "to_char(o.start_time at time zone 'UTC', 'YYYY-MM')"],
      [{ kind: 'calendar', of: col('timestamp'), unit: 'day' }, "to_char(o.timestamp at time zone 'UTC', 'YYYY-MM-DD')"],
      [LATENCY_MS, '(extract(epoch from (o.end_time - o.start_time)) * 1000)'],
      [
        { kind: 'perSecond', of: col('output_usage'), ms: LATENCY_MS },
        '(o.output_usage / nullif((extract(epoch from (o.end_time - o.start_time)) * 1000) / 1000, 0))',
      ],
      [
        { kind: 'related', table: 'scores', alias: 'sc', key: 'observation_id', value: { kind: 'aggregate', fn: 'count' } },
        '(select count(*) from scores sc where sc.project_id = o.project_id and sc.observation_id = o.id)',
      ],
      [
        {
          kind: 'related',
          table: 'observations',
          alias: 'x',
          key: 'trace_id',
          value: msBetween(
            { kind: 'aggregate', fn: 'min', of: col('start_time', 'x') },
            { kind: 'aggregate', fn: 'max', of: { kind: 'coalesce', of: [col('end_time', 'x'), col('start_time', 'x')] } },
          ),
        },
        '(select (extract(epoch from (max(coalesce(x.end_time, x.start_time)) - min(x.start_time))) * 1000) from observations x where x.project_id = o.project_id and x.trace_id = o.id)',
      ],
    ];
    for (const [e, text] of cases) expect(renderExpr(e, 'o')).toBe(text);
  });

  it('render unqualified for a statement over one table (the roll-up, the observations list)', () => {
    expect(renderExpr(LATENCY_MS, null)).toBe('(extract(epoch from (end_time - start_time)) * 1000)');
    expect(columnsOf(LATENCY_MS)).toEqual(['start_time', 'end_time']);
  });

  it('give the latency one formula: the measure, its roll-up sum and the roll-up value are the same', () => {
    expect(VIEWS.observations.measures.latency!.expr).toBe(LATENCY_MS);
    expect(VIEWS.observations.measures.latency!.rollup).toBe(ROLLUP_SUMS.latency);
    expect(ROLLUP_SUMS.latency.value).toBe(LATENCY_MS);
  });
});

describe('the roll-up declaration', () => {
  it("lists the tables' sum columns in their order", () => {
    expect(ROLLUP_SUM_COLUMNS).toEqual([
      'count',
      'latency_ms',
      'latency_count',
      'input_usage',
      'output_usage',
      'total_usage',
      'input_cost',
      'input_cost_count',
      'output_cost',
      'output_cost_count',
      'total_cost',
      'total_cost_count',
    ]);
  });

  it('reads only observation columns the store reads back from the upsert', () => {
    const read = [ROLLUP_TIME, ...ROLLUP_KEYS, ...Object.values(ROLLUP_SUMS).flatMap((s) => (s.value ? columnsOf(s.value) : []))];
    for (const c of read) expect(ROLLUP_SOURCE_COLUMNS).toContain(c);
  });

  it('serves exactly the dimensions and measures the views say it keeps', () => {
    const { dimensions, measures } = VIEWS.observations;
    // the main roll-ups' keys, and user_id, which only ClickHouse's day × model × user roll-up keeps
    expect(Object.values(dimensions).flatMap((d) => (d.rollup ? [d.rollup] : []))).toEqual([
      'environment',
      'type',
      'name',
      'user_id',
      'model',
    ]);
    expect(ROLLUP_KEYS).not.toContain('user_id');
    for (const [name, m] of Object.entries(measures)) {
      if (!m.rollup) continue;
      expect(Object.values(ROLLUP_SUMS), name).toContain(m.rollup);
      if (m.rollup.value) expect(m.expr, name).toBe(m.rollup.value);
    }
  });
});
