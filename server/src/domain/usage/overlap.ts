// Overlap repair: usage whose `input`/`output` still include their details, proved so by the
// sender's own `total`. Langfuse's `langfuse` v3 observeOpenAI sends usage {input 1200, output
// 300, total 1500} with usageDetails {input_cached_tokens 200, output_reasoning_tokens 100}: the
// buckets sum to 1800, exactly total plus the details. Priced as sent, the cached and reasoning
// tokens are billed twice. When the excess is exactly the details, the buckets are made exclusive
// (input 1000, output 200); any other mismatch is stored as sent, with the usual warning.
import { setEntry } from '../plain-map.ts';
import { parentBucket } from './aliases.ts';

export interface OverlapRepair {
  usage: Record<string, number>;
  /** said in the 207 warnings and by explain */
  note: string;
}

/** `usage` is the final map (with total), `provided` what was sent (tells a sent total from a derived one) */
export function repairOverlap(usage: Record<string, number>, provided: Record<string, unknown>): OverlapRepair | null {
  if (!Object.hasOwn(provided, 'total') || usage.total == null) return null;
  let sum = 0;
  let inputDetails = 0;
  let outputDetails = 0;
  const details: string[] = [];
  for (const k in usage) {
    if (k === 'total') continue;
    const v = usage[k]!;
    sum += v;
    if (k === 'input' || k === 'output' || v <= 0) continue;
    const parent = parentBucket(k);
    if (parent === 'input') inputDetails += v;
    else if (parent === 'output') outputDetails += v;
    else continue;
    details.push(k);
  }
  const excess = sum - usage.total;
  if (!details.length || excess !== inputDetails + outputDetails) return null;
  if (inputDetails && !(usage.input! >= inputDetails)) return null;
  if (outputDetails && !(usage.output! >= outputDetails)) return null;
  const out: Record<string, number> = {};
  for (const k in usage) setEntry(out, k, usage[k]!);
  if (inputDetails) out.input = usage.input! - inputDetails;
  if (outputDetails) out.output = usage.output! - outputDetails;
  const changed = [
    inputDetails ? `\`input\` ${usage.input} → ${out.input}` : '',
    outputDetails ? `\`output\` ${usage.output} → ${out.output}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return {
    usage: out,
    note:
      `usage buckets overlapped: \`total\` (${usage.total}) shows that \`input\`/\`output\` included ${details.map((k) => `\`${k}\` (${usage[k]})`).join(', ')}; ` +
      `stored exclusive buckets (${changed}) so those tokens are priced once`,
  };
}
