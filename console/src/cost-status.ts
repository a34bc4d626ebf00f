// What a costStatus means and how it looks, wherever a cost is shown (playground, explorer).
import type { CostStatus } from '../../sdk/index.ts';

export const COST_STATUS_HINT: Record<CostStatus, string> = {
  inferred: 'every usage bucket was priced from the matched model',
  partial: 'some usage buckets have no price in the models list',
  unpriced: 'no model of the models list matched: add one on the Models page',
  ingested: 'the cost was sent with the call',
  none: 'no usage was reported',
};

/** unpriced and partial are the ones to act on: they stand out */
export const costStatusClass = (s: CostStatus) =>
  s === 'unpriced' ? 'badge bad' : s === 'partial' ? 'badge warn' : s === 'none' ? 'badge' : 'badge ok';
