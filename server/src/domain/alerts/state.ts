// An alert's groups from one evaluation to the next: each group's value against the condition
// gives its state (ok, warning, alerting); a change of state is told once (a transition), however
// many evaluations it lasts. A group with no value follows the alert's no-data policy.
import type { AlertCondition, AlertEvent, AlertState, GroupState, NoDataPolicy, Transition } from './types.ts';

const crosses = (value: number, threshold: number, op: AlertCondition['operator']) =>
  op === 'gt' ? value > threshold : value >= threshold;

/** the state a value puts a group in */
export function stateOf(value: number, c: AlertCondition): AlertState {
  if (crosses(value, c.alert, c.operator)) return 'alerting';
  if (c.warning !== null && crosses(value, c.warning, c.operator)) return 'warning';
  return 'ok';
}

const eventOf = (to: AlertState): AlertEvent => (to === 'ok' ? 'resolved' : to);

/**
 * The groups after an evaluation, and the transitions to tell. `values` are this evaluation's
 * values per group (a fanned-out alert's top groups; '' for one that is not fanned out); a group
 * known before and missing now has no data. A new group starts from ok (nothing is told for it
 * unless it crosses a threshold); a group back at ok with no data is forgotten.
 */
export function evaluateGroups(
  previous: GroupState[],
  values: Map<string, number | null>,
  c: AlertCondition,
  noData: NoDataPolicy,
  now: Date,
): { groups: GroupState[]; transitions: Transition[] } {
  const before = new Map(previous.map((g) => [g.group, g]));
  const names = new Set([...before.keys(), ...values.keys()]);
  const groups: GroupState[] = [];
  const transitions: Transition[] = [];
  for (const group of [...names].sort()) {
    const was = before.get(group);
    const from = was?.state ?? 'ok';
    const value = values.get(group) ?? null;
    const to: AlertState = value !== null ? stateOf(value, c) : noData === 'keep' ? from : noData === 'alerting' ? 'alerting' : 'ok';
    if (to !== from) transitions.push({ group, from, to, event: eventOf(to), value });
    if (value === null && to === 'ok' && !values.has(group)) continue;
    groups.push({ group, state: to, value, since: to !== from || !was ? now : was.since });
  }
  return { groups, transitions };
}
