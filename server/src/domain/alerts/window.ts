// An alert's window at an evaluation: the last N minutes, or the calendar month so far (UTC). In
// baseline mode also the 7 days before it, the span its value is averaged over.
import type { AlertWindow } from './types.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
export const BASELINE_DAYS = 7;

export interface TimeWindow {
  from: Date;
  to: Date;
}

export function alertWindow(w: AlertWindow, now: Date): TimeWindow {
  if (w.kind === 'rolling') return { from: new Date(now.getTime() - w.minutes * MINUTE_MS), to: now };
  return { from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), to: now };
}

/** the 7 days before the window, and how many of the window's length they hold */
export function baselineWindow(window: TimeWindow): TimeWindow & { spans: number } {
  const from = new Date(window.from.getTime() - BASELINE_DAYS * DAY_MS);
  const length = window.to.getTime() - window.from.getTime();
  return { from, to: window.from, spans: length > 0 ? (BASELINE_DAYS * DAY_MS) / length : 0 };
}
