// The rows that come back → chart series, model entries and the costStatus figures: every bucket
// present, the long tail folded into "other", unpriced models kept in the legend. Pure, so the
// tests check the folding.
import { colorFor, NEUTRAL } from '../../components/colors.ts';
import type { Row } from './queries.ts';

export interface ChartData {
  labels: string[];
  series: { label: string; values: number[]; color?: string }[];
}

export const OTHER = 'other';

const keyOf = (raw: unknown, noneLabel: string) => (raw === null || raw === undefined || raw === '' ? noneLabel : String(raw));

/** bucket → value per key of `dimension`, and each key's total; gap-filling rows (zero) dropped */
function byKeyAndBucket(rows: Row[], dimension: string | null, metric: string, noneLabel: string) {
  const byKey = new Map<string, Map<string, number>>();
  const totals = new Map<string, number>();
  for (const r of rows) {
    const value = Number(r[metric] ?? 0) || 0;
    if (value === 0) continue;
    const key = dimension ? keyOf(r[dimension], noneLabel) : '';
    const bucket = String(r.time_dimension ?? '');
    const perBucket = byKey.get(key) ?? new Map<string, number>();
    perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + value);
    byKey.set(key, perBucket);
    totals.set(key, (totals.get(key) ?? 0) + value);
  }
  return { byKey, totals };
}

/** the window's buckets and any the server answered besides (ISO labels of one bucket sort as their instants) */
const labelsOf = (buckets: string[], rows: Row[]) =>
  [...new Set([...buckets, ...rows.map((r) => String(r.time_dimension ?? '')).filter(Boolean)])].sort();

/**
 * Bucket rows (`{<dimension>, time_dimension, <metric>}`) → one series per dimension value over
 * every bucket: the `topN` largest by total kept, the rest summed into "other", and `skip` values
 * (usage key `total`, which would count tokens twice in a stack) left out.
 */
export function toSeries(
  rows: Row[],
  opts: { dimension: string; metric: string; buckets: string[]; topN?: number; noneLabel: string; skip?: string[] },
): ChartData {
  const { dimension, metric, topN = 8, noneLabel, skip = [] } = opts;
  const labels = labelsOf(opts.buckets, rows);
  const counted = rows.filter((r) => !skip.includes(keyOf(r[dimension], noneLabel)));
  const { byKey, totals } = byKeyAndBucket(counted, dimension, metric, noneLabel);
  const ranked = [...totals.keys()].sort((a, b) => totals.get(b)! - totals.get(a)! || a.localeCompare(b));
  // folding a single leftover into "other" would only rename it
  const kept = ranked.length > topN + 1 ? ranked.slice(0, topN) : ranked;
  const folded = ranked.slice(kept.length);
  const out: ChartData['series'] = kept.map((k) => ({ label: k, values: labels.map((d) => byKey.get(k)!.get(d) ?? 0) }));
  if (folded.length) {
    out.push({
      color: NEUTRAL,
      label: kept.includes(OTHER) ? `${OTHER} (${folded.length} more)` : OTHER,
      values: labels.map((d) => folded.reduce((s, k) => s + (byKey.get(k)!.get(d) ?? 0), 0)),
    });
  }
  return { labels, series: out };
}

export interface ModelRow {
  /** null: observations without a model */
  model: string | null;
  cost: number;
  tokens: number;
  count: number;
  /** tokens but no cost in the whole window: no price matched it */
  unpriced: boolean;
}

/** one entry per model (the server gives one row each; a model's rows are summed should it not) */
export function modelRows(rows: Row[]): ModelRow[] {
  const byModel = new Map<string | null, ModelRow>();
  for (const r of rows) {
    const model = keyOf(r.providedModelName, '') || null;
    const m = byModel.get(model) ?? { model, cost: 0, tokens: 0, count: 0, unpriced: false };
    m.cost += Number(r.sum_totalCost ?? 0) || 0;
    m.tokens += Number(r.sum_totalTokens ?? 0) || 0;
    m.count += Number(r.count_count ?? 0) || 0;
    byModel.set(model, m);
  }
  const out = [...byModel.values()].filter((m) => m.count > 0 || m.cost !== 0 || m.tokens > 0);
  for (const m of out) m.unpriced = m.model !== null && m.cost === 0 && m.tokens > 0;
  return out.sort((a, b) => b.cost - a.cost || b.tokens - a.tokens);
}

export const CHART_SERIES = 8;
const UNPRICED_IN_LEGEND = 3;

/**
 * The models the cost chart names: the largest unpriced ones first (a few, so the legend says
 * they exist though their bars are empty), then the most expensive up to eight series.
 */
export function chartModels(models: ModelRow[]): { priced: string[]; unpriced: string[] } {
  const unpriced = models
    .filter((m) => m.unpriced)
    .sort((a, b) => b.tokens - a.tokens)
    .slice(0, UNPRICED_IN_LEGEND)
    .map((m) => m.model!);
  const costly = models.filter((m) => m.model !== null && m.cost > 0).sort((a, b) => b.cost - a.cost || a.model!.localeCompare(b.model!));
  const room = CHART_SERIES - unpriced.length;
  // as in toSeries: one leftover is named rather than folded
  const priced = (costly.length > room + 1 ? costly.slice(0, room) : costly).map((m) => m.model!);
  return { priced, unpriced };
}

/** differences of exact decimal sums carried as floats leave dust like 1e-17 */
const DUST = 1e-9;

/**
 * The cost chart: a series per priced model from `byModel`, "other" for the total less those
 * (the folded models and observations without a model), and an empty series per unpriced model
 * so the legend shows it, labelled as having no price.
 */
export function costSeries(byModel: Row[], totals: Row[], models: ModelRow[], buckets: string[]): ChartData {
  const { priced, unpriced } = chartModels(models);
  const labels = labelsOf(buckets, [...byModel, ...totals]);
  const named = byKeyAndBucket(byModel, 'providedModelName', 'sum_totalCost', '');
  const total = byKeyAndBucket(totals, null, 'sum_totalCost', '').byKey.get('') ?? new Map<string, number>();
  const out: ChartData['series'] = priced.map((m) => ({ label: m, values: labels.map((b) => named.byKey.get(m)?.get(b) ?? 0) }));
  const rest = labels.map((b, i) => {
    const v = (total.get(b) ?? 0) - out.reduce((s, x) => s + x.values[i]!, 0);
    return Math.abs(v) < DUST ? 0 : v;
  });
  if (rest.some((v) => v !== 0)) {
    const folded = models.filter((m) => m.model !== null && m.cost > 0 && !priced.includes(m.model)).length;
    out.push({ label: folded ? OTHER : '(no model)', values: rest, color: NEUTRAL });
  }
  // the model's own colour, not its label's: the same model is the same colour when it gets a price
  for (const m of unpriced) out.push({ label: `${m} (no price)`, values: labels.map(() => 0), color: colorFor(m) });
  return { labels, series: out };
}

export interface StatusFigures {
  count: number;
  tokens: number;
}

/** generations without a price, partly priced, and all of them (every status), each counted and weighed in tokens */
export interface CostStatusFigures {
  unpriced: StatusFigures;
  partial: StatusFigures;
  all: StatusFigures;
}

/** the rows of costStatusQuery (one per status; summed should a status come twice) → the figures */
export function costStatusFigures(rows: Row[]): CostStatusFigures {
  const sum = (of: Row[]): StatusFigures => ({
    count: of.reduce((s, r) => s + (Number(r.count_count ?? 0) || 0), 0),
    tokens: of.reduce((s, r) => s + (Number(r.sum_totalTokens ?? 0) || 0), 0),
  });
  return {
    unpriced: sum(rows.filter((r) => r.costStatus === 'unpriced')),
    partial: sum(rows.filter((r) => r.costStatus === 'partial')),
    all: sum(rows),
  };
}
