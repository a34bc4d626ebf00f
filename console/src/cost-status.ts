// What a costStatus means and how its badge looks, wherever a cost is shown (playground, explorer,
// the Models page's explain): decided here only, so every page colours and explains it alike.
import type { CostStatus } from '../../sdk/index.ts';

export const COST_STATUS_HINT: Record<CostStatus, string> = {
  inferred: 'every usage bucket was priced from the matched model',
  partial: 'some usage buckets have no price in the models list',
  unpriced: 'no model of the models list matched: add one on the Models page',
  ingested: 'the cost was sent with the call',
  none: 'no usage was reported',
};

/** unpriced and partial are the ones to act on: they stand out (a new status fails to compile until it is given one) */
const COST_STATUS_CLASS: Record<CostStatus, string> = {
  inferred: 'badge ok',
  ingested: 'badge ok',
  partial: 'badge warn',
  unpriced: 'badge bad',
  none: 'badge',
};

export const costStatusClass = (s: CostStatus) => COST_STATUS_CLASS[s];
