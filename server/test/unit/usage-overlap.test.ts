// Overlap repair: a sent total that proves input/output include their details.
import { describe, expect, it } from 'vitest';
import { repairOverlap } from '../../src/domain/usage/overlap.ts';
import { computeUsageAndCost } from '../../src/domain/usage/index.ts';
import type { StoredModel } from '../../src/domain/models/types.ts';

const sent = { input: 1200, output: 300, total: 1500, input_cached_tokens: 200, output_reasoning_tokens: 100 };

describe('overlap repair', () => {
  it('makes the buckets exclusive when the excess over total is exactly the details', () => {
    const r = repairOverlap(sent, sent);
    expect(r?.usage).toEqual({ input: 1000, output: 200, total: 1500, input_cached_tokens: 200, output_reasoning_tokens: 100 });
    expect(r?.note).toMatch(
      /`total` \(1500\) shows that `input`\/`output` included `input_cached_tokens` \(200\), `output_reasoning_tokens` \(100\); stored exclusive buckets \(`input` 1200 → 1000, `output` 300 → 200\)/,
    );
  });

  it('repairs any spelling of a detail (cache keys of other producers)', () => {
    const r = repairOverlap(
      { input: 1300, output: 300, total: 1600, cache_read_input_tokens: 200, cache_creation_input_tokens: 100 },
      { total: 1600 },
    );
    expect(r?.usage).toMatchObject({ input: 1000, output: 300 });
  });

  it('leaves alone: exclusive buckets, a derived total, a mismatch that is not the details, a base smaller than its details', () => {
    expect(
      repairOverlap({ input: 1000, output: 200, total: 1500, input_cached_tokens: 200, output_reasoning_tokens: 100 }, { total: 1500 }),
    ).toBeNull();
    expect(repairOverlap({ ...sent, total: 1800 }, { input: 1 })).toBeNull(); // total derived, not sent
    expect(repairOverlap({ ...sent, total: 1450 }, sent)).toBeNull();
    expect(repairOverlap({ input: 100, output: 300, total: 300, input_cached_tokens: 200 }, { total: 300 })).toBeNull();
    expect(repairOverlap({ input: 10, output: 5, total: 15, image_tokens: 4 }, { total: 15 })).toBeNull();
  });

  it('prices the repaired buckets: the bill of a gpt-4o-mini call, $0.000345, not $0.000375', () => {
    const model = {
      id: 'm',
      pricingTiers: [
        {
          id: 't',
          name: 'Standard',
          isDefault: true,
          priority: 0,
          conditions: [],
          prices: { input: 0.15e-6, input_cached_tokens: 0.075e-6, output: 0.6e-6 },
        },
      ],
    } as unknown as StoredModel;
    const r = computeUsageAndCost({
      model,
      legacyUsage: { input: 1200, output: 300, total: 1500 },
      usageDetails: { input_cached_tokens: 200, output_reasoning_tokens: 100 },
    });
    expect(r.usageDetails).toMatchObject({ input: 1000, output: 200 });
    expect(r.costDetails.total).toBe(0.000345);
    expect(r.costStatus).toBe('inferred');
    expect(r.warnings[0]).toMatch(/^usage buckets overlapped/);
    expect(r.warnings.join('\n')).not.toMatch(/smaller than the sum/);
  });
});
