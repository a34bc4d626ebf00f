// The inclusive → exclusive usage rule's one home (shared/usage/inclusive.ts), which the server's
// domain (a raw OpenAI object, span attributes) and the SDK (usageFromOpenAI) both apply.
import { describe, expect, it } from 'vitest';
import { exclusiveOf, openAIBuckets } from '../../../shared/usage/inclusive.ts';
import { exclusiveOf as domainExclusiveOf, parseUsageDetails } from '../../src/domain/usage/normalise.ts';
import { usageFromOpenAI } from '../../../sdk/src/usage.ts';

describe('inclusive → exclusive', () => {
  it('takes the parts off once and clamps at 0', () => {
    expect(exclusiveOf(100, [20, 30])).toBe(50);
    expect(exclusiveOf(100, [])).toBe(100);
    expect(exclusiveOf(10, [8, 9])).toBe(0);
    expect(exclusiveOf(0, [0])).toBe(0);
  });

  it('is what clamping after each part gave for counts (the former per-step loops)', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const parts = Array.from({ length: rnd(5) }, () => rnd(60));
      const inclusive = rnd(120);
      let stepwise = inclusive;
      for (const p of parts) stepwise = Math.max(stepwise - p, 0);
      expect(exclusiveOf(inclusive, parts)).toBe(stepwise);
    }
  });

  it('maps OpenAI counts and details to buckets: input, output, then input_<k> and output_<k> in order', () => {
    const b = openAIBuckets(
      2006,
      300,
      [
        ['cached_tokens', 1920],
        ['audio_tokens', 0],
      ],
      [['reasoning_tokens', 100]],
    );
    expect(b).toEqual({
      input: 86,
      output: 200,
      details: [
        ['input_cached_tokens', 1920],
        ['input_audio_tokens', 0],
        ['output_reasoning_tokens', 100],
      ],
    });
  });

  it('is the function server code takes from the domain, and the server and the SDK map alike', () => {
    expect(domainExclusiveOf).toBe(exclusiveOf);
    const raw = {
      prompt_tokens: 2006,
      completion_tokens: 300,
      total_tokens: 2306,
      prompt_tokens_details: { cached_tokens: 1920, audio_tokens: null },
      completion_tokens_details: { reasoning_tokens: 100 },
    };
    expect(parseUsageDetails(raw).usage).toEqual({
      input: 86,
      output: 200,
      total: 2306,
      input_cached_tokens: 1920,
      output_reasoning_tokens: 100,
    });
    expect(usageFromOpenAI(raw)).toEqual(parseUsageDetails(raw).usage);
  });
});
