// A trace's observations as the tree their parentObservationId links make, and where each sits
// in time within the trace's span (for the timing bars).
import type { Observation } from '../../../../sdk/index.ts';

export interface TreeNode {
  obs: Observation;
  children: TreeNode[];
}

const byStart = (a: TreeNode, b: TreeNode) => a.obs.startTime.localeCompare(b.obs.startTime) || a.obs.id.localeCompare(b.obs.id);

/**
 * Roots first, children under their parent, each level in start order. An observation whose
 * parent is not in the trace is a root; so is one caught in a parent loop (bad data must still
 * show every observation, once).
 */
export function buildTree(observations: Observation[]): TreeNode[] {
  const nodes = new Map(observations.map((o) => [o.id, { obs: o, children: [] as TreeNode[] }]));
  const roots: TreeNode[] = [];
  for (const n of nodes.values()) {
    const parent = n.obs.parentObservationId ? nodes.get(n.obs.parentObservationId) : undefined;
    (parent && parent !== n ? parent.children : roots).push(n);
  }
  const seen = new Set<string>();
  const walk = (list: TreeNode[]) => {
    list.sort(byStart);
    for (const n of list) {
      seen.add(n.obs.id);
      walk(n.children);
    }
  };
  walk(roots);
  // what is left hangs in a parent loop: cutting one node from its parent opens the loop, and
  // everything reachable under it is then a tree
  for (const n of nodes.values()) {
    if (seen.has(n.obs.id)) continue;
    const parent = n.obs.parentObservationId ? nodes.get(n.obs.parentObservationId) : undefined;
    if (parent) parent.children = parent.children.filter((c) => c !== n);
    roots.push(n);
    walk([n]);
  }
  return roots.sort(byStart);
}

/** every node, parents before their children, in the order the tree shows them */
export function flatten(roots: TreeNode[]): Observation[] {
  const out: Observation[] = [];
  const visit = (n: TreeNode) => {
    out.push(n.obs);
    n.children.forEach(visit);
  };
  roots.forEach(visit);
  return out;
}

const endOf = (o: Observation) => Date.parse(o.endTime ?? o.completionStartTime ?? o.startTime);

export interface Span {
  start: number;
  end: number;
}

export function spanOf(observations: Observation[]): Span {
  const starts = observations.map((o) => Date.parse(o.startTime));
  const ends = observations.map(endOf);
  return { start: Math.min(...starts), end: Math.max(...ends, ...starts) };
}

/** percent offset and width within the span (at least a sliver, so an instant is visible), and seconds */
export function timing(o: Observation, span: Span): { offset: number; width: number; startS: number; durationS: number | null } {
  const total = Math.max(span.end - span.start, 1);
  const start = Date.parse(o.startTime);
  const end = endOf(o);
  const offset = ((start - span.start) / total) * 100;
  const width = Math.max(((end - start) / total) * 100, 0.5);
  return {
    offset: Math.min(offset, 99.5),
    width: Math.min(width, 100 - Math.min(offset, 99.5)),
    startS: (start - span.start) / 1000,
    durationS: o.endTime ? (end - start) / 1000 : null,
  };
}
