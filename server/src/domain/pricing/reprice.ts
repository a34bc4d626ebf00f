// Reprice jobs, the parts without I/O: which generations a job reads, whether a new pricing
// differs from the stored one, and the running report (per UTC day and model: how many changed,
// their cost before and after). Costs add up as integers of 1e-12 USD, so a report of a million
// small costs is exact, and a resumed job adds to the report it left.
import type { RepriceChange } from '../../../../generated/client/types.gen.ts';
import type { ObservationRecord } from '../ingestion/types.ts';

/** the cost statuses a job prices again: Tally inferred them; `ingested` (sent by the client) and `none` (no usage) are left */
export const REPRICED_STATUSES = ['inferred', 'partial', 'unpriced'] as const;

/** the pricing a job compares: any difference is a change */
export function pricingChanged(a: ObservationRecord, b: ObservationRecord): boolean {
  return (
    a.totalCost !== b.totalCost ||
    a.inputCost !== b.inputCost ||
    a.outputCost !== b.outputCost ||
    a.costStatus !== b.costStatus ||
    a.modelId !== b.modelId ||
    a.usagePricingTierId !== b.usagePricingTierId ||
    JSON.stringify(a.costDetails) !== JSON.stringify(b.costDetails) ||
    JSON.stringify(a.usageDetails) !== JSON.stringify(b.usageDetails)
  );
}

/** a line of the report, as the spec's RepriceChange */
export type RepriceChangeLine = RepriceChange;

const PICO = 1e12;
const pico = (usd: number | null) => BigInt(Math.round((usd ?? 0) * PICO));

/** the report of one job: its lines per (day, model, definition), and the totals */
export class RepriceReport {
  private readonly lines = new Map<string, { line: Omit<RepriceChangeLine, 'costBefore' | 'costAfter'>; before: bigint; after: bigint }>();
  changed = 0;
  before = 0n;
  after = 0n;

  constructor(previous: RepriceChangeLine[] = []) {
    for (const l of previous) {
      this.lines.set(RepriceReport.key(l.day, l.model, l.modelId), {
        line: { day: l.day, model: l.model, modelId: l.modelId, generations: l.generations },
        before: pico(l.costBefore),
        after: pico(l.costAfter),
      });
    }
  }

  private static key = (day: string, model: string | null, modelId: string | null) => JSON.stringify([day, model, modelId]);

  add(before: ObservationRecord, after: ObservationRecord): void {
    const day = after.startTime.toISOString().slice(0, 10);
    const k = RepriceReport.key(day, after.model, after.modelId);
    let e = this.lines.get(k);
    if (!e) {
      e = { line: { day, model: after.model, modelId: after.modelId, generations: 0 }, before: 0n, after: 0n };
      this.lines.set(k, e);
    }
    const [b, a] = [pico(before.totalCost), pico(after.totalCost)];
    e.line.generations++;
    e.before += b;
    e.after += a;
    this.changed++;
    this.before += b;
    this.after += a;
  }

  /** the lines, by day then model */
  toLines(): RepriceChangeLine[] {
    return [...this.lines.values()]
      .map((e) => ({ ...e.line, costBefore: Number(e.before) / PICO, costAfter: Number(e.after) / PICO }))
      .sort((x, y) =>
        x.day < y.day ? -1 : x.day > y.day ? 1 : String(x.model) < String(y.model) ? -1 : String(x.model) > String(y.model) ? 1 : 0,
      );
  }
}

/** USD from the report's exact integers */
export const usd = (p: bigint) => Number(p) / PICO;
