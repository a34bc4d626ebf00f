// The evaluation worker yields to ingestion by this measure (domain/ingestion/load.ts): the
// share of the last second with a sender's batch under way.
import { describe, expect, it } from 'vitest';
import { IngestionLoad } from '../../src/domain/ingestion/load.ts';

describe("ingestion's load", () => {
  it('is the share of the last second with at least one batch under way, overlapping batches counted once', () => {
    const load = new IngestionLoad();
    expect(load.share(10_000)).toBe(0);
    load.begin(10_000);
    load.begin(10_100); // a second batch beside the first
    load.end(10_300);
    expect(load.share(10_400)).toBeCloseTo(0.4);
    load.end(10_600);
    expect(load.share(11_000)).toBeCloseTo(0.6);
    // the window slides: spans before it no longer count, the part inside it does
    expect(load.share(11_300)).toBeCloseTo(0.3);
    expect(load.share(11_700)).toBe(0);
  });

  it('calls a saturating sender busy and a steady light one not', () => {
    const saturating = new IngestionLoad();
    const light = new IngestionLoad();
    // back to back, 40 ms per batch with 1 ms between: busy nearly all the time
    for (let t = 0; t < 5_000; t += 41) {
      saturating.begin(t);
      saturating.end(t + 40);
    }
    // one 20 ms batch every 250 ms, which "a batch in the last 300 ms" called busy for good
    for (let t = 0; t < 5_000; t += 250) {
      light.begin(t);
      light.end(t + 20);
    }
    expect(saturating.share(5_000)).toBeGreaterThan(0.9);
    expect(light.share(5_000)).toBeLessThan(0.1);
  });

  it('counts a batch still under way up to now, and ignores an unmatched end', () => {
    const load = new IngestionLoad();
    load.end(0);
    load.begin(500);
    expect(load.share(1_000)).toBeCloseTo(0.5);
    expect(load.share(3_000)).toBe(1);
  });
});
