// One observation's cost as lines of units × price = cost per usage key, from what was stored
// with it (the prices of the day it was priced, which a later price change does not touch).
import type { Observation } from '../../../../sdk/index.ts';
import type { CostLine } from '../../components/CostLinesTable.tsx';

export function costLines(o: Observation): CostLine[] {
  const keys = Object.keys(o.costDetails);
  // `total` is the sum of the others; it is a line only when it is all there is
  const shown = keys.some((k) => k !== 'total') ? keys.filter((k) => k !== 'total') : keys;
  const priced = o.costStatus === 'inferred' || o.costStatus === 'partial';
  const lines: CostLine[] = shown.map((k) => {
    const units = o.usageDetails[k] ?? null;
    const cost = o.costDetails[k] ?? null;
    return {
      usageType: k,
      units,
      price: priced && units && cost !== null ? cost / units : null,
      cost,
      pricedAs: o.usagePricedAs[k],
    };
  });
  for (const k of o.unpricedUsageKeys) {
    if (!shown.includes(k)) lines.push({ usageType: k, units: o.usageDetails[k] ?? null, price: null, cost: null });
  }
  return lines;
}
