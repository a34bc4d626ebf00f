// How much of the last second this process spent applying ingestion batches: the share of time
// with at least one batch under way (its statements on PostgreSQL included). Background work that
// competes with ingestion for the same cores (the evaluation worker) yields while it is high.
// "A batch within the last 300 ms", the signal before this, called a steady light load busy too:
// a sender of one batch every 250 ms held the evaluation worker to its trickle for good.

/** the window the share is taken over */
const WINDOW_MS = 1_000;

export class IngestionLoad {
  private inFlight = 0;
  /** when the current busy span began (inFlight went from 0 to 1) */
  private since = 0;
  /** busy spans that ended, oldest first; those ended before the window are dropped on read */
  private readonly spans: [number, number][] = [];

  begin(now = performance.now()): void {
    if (this.inFlight++ === 0) this.since = now;
  }

  end(now = performance.now()): void {
    if (this.inFlight === 0) return;
    if (--this.inFlight === 0) {
      this.spans.push([this.since, now]);
      // bounded: a span that ended outside the window no longer counts
      while (this.spans.length && this.spans[0]![1] <= now - WINDOW_MS) this.spans.shift();
    }
  }

  /** the share (0..1) of the last WINDOW_MS with a batch under way */
  share(now = performance.now()): number {
    const from = now - WINDOW_MS;
    while (this.spans.length && this.spans[0]![1] <= from) this.spans.shift();
    let busy = this.inFlight > 0 ? now - Math.max(this.since, from) : 0;
    for (const [a, b] of this.spans) busy += b - Math.max(a, from);
    return Math.min(1, busy / WINDOW_MS);
  }
}
