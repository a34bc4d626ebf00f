import { describe, expect, it } from 'vitest';
import { analyzeAsTablesGrow } from '../../src/store/planner-stats.ts';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('analysing the ingestion tables as a new database fills', () => {
  it('runs once per threshold crossed, and not below the first', async () => {
    let runs = 0;
    const g = analyzeAsTablesGrow(async () => {
      runs++;
    }, () => {}, [1_000, 10_000]);
    // rows written by a batch, and the runs expected once it settles
    const steps: [number, number][] = [
      [999, 0],
      [1, 1],
      [5_000, 1],
      [5_000, 2],
      [1_000_000, 2],
    ]; // past the last threshold autovacuum's schedule is enough
    for (const [rows, expected] of steps) {
      g.written(rows);
      await g.idle();
      expect(runs).toBe(expected);
    }
  });

  it('one batch crossing several thresholds runs it once', async () => {
    let runs = 0;
    const g = analyzeAsTablesGrow(async () => {
      runs++;
    }, () => {}, [10, 100, 1_000]);
    g.written(5_000);
    await g.idle();
    expect(runs).toBe(1);
  });

  it('never runs two at once: a threshold crossed during a run queues behind it', async () => {
    let active = 0,
      maxActive = 0,
      runs = 0;
    const release: (() => void)[] = [];
    const g = analyzeAsTablesGrow(() =>
      new Promise<void>((resolve) => {
        active++;
        runs++;
        maxActive = Math.max(maxActive, active);
        release.push(() => {
          active--;
          resolve();
        });
      }), () => {}, [10, 20]);
    g.written(10);
    await tick();
    g.written(10);
    await tick();
    expect(runs).toBe(1);
    release.shift()!();
    await tick();
    await tick();
    expect(runs).toBe(2);
    release.shift()!();
    await g.idle();
    expect(maxActive).toBe(1);
  });

  it('reports a failure and goes on with the next threshold', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const g = analyzeAsTablesGrow(
      async () => {
        if (++calls === 1) throw new Error('permission denied');
      },
      (e) => errors.push(e),
      [1, 2],
    );
    g.written(1);
    await g.idle();
    expect(errors.map((e) => (e as Error).message)).toEqual(['permission denied']);
    g.written(1);
    await g.idle();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
    expect(g.runs).toBe(1);
  });
});
