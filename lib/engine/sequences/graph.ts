// The "run after" graph of a workspace's syncs: an edge says a sync runs after an upstream sync.
// Pure functions over the edge list, shared by the API (cycle check when a list is set) and the
// engine (the syncs a sequence reaches). No server imports.

/** One "run after" edge: `syncId` runs after `upstreamSyncId`. */
export interface RunAfterEdge {
  syncId: number;
  upstreamSyncId: number;
}

function upstreamsBySync(edges: readonly RunAfterEdge[]): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const e of edges) map.set(e.syncId, [...(map.get(e.syncId) ?? []), e.upstreamSyncId]);
  return map;
}

/**
 * The cycle that making `syncId` run after `upstreams` (replacing its current list) would close, in
 * the order the syncs would run: [syncId, …, upstream, syncId] (each after the one before it); null when there is none. A sync
 * listed as its own upstream is the cycle [syncId, syncId].
 */
export function findRunAfterCycle(edges: readonly RunAfterEdge[], syncId: number, upstreams: readonly number[]): number[] | null {
  const graph = upstreamsBySync(edges.filter((e) => e.syncId !== syncId));
  graph.set(syncId, [...upstreams]);
  // Depth-first from each new upstream along upstream edges, looking for syncId: the path found,
  // reversed, is the order in which the syncs would wait on each other.
  for (const start of upstreams) {
    const path = pathTo(graph, start, syncId, new Set());
    if (path) return [...path.reverse(), syncId];
  }
  return null;
}

function pathTo(graph: Map<number, number[]>, from: number, target: number, seen: Set<number>): number[] | null {
  if (from === target) return [from];
  if (seen.has(from)) return null;
  seen.add(from);
  for (const next of graph.get(from) ?? []) {
    const rest = pathTo(graph, next, target, seen);
    if (rest) return [from, ...rest];
  }
  return null;
}

/**
 * The syncs a sequence started at `root` reaches: root first, then every sync downstream of it
 * (transitively), each once, in breadth-first order.
 */
export function downstreamOf(edges: readonly RunAfterEdge[], root: number): number[] {
  const dependents = new Map<number, number[]>();
  for (const e of edges) dependents.set(e.upstreamSyncId, [...(dependents.get(e.upstreamSyncId) ?? []), e.syncId]);
  const order = [root];
  const seen = new Set(order);
  for (let i = 0; i < order.length; i++) {
    for (const next of (dependents.get(order[i]) ?? []).sort((a, b) => a - b)) {
      if (!seen.has(next)) {
        seen.add(next);
        order.push(next);
      }
    }
  }
  return order;
}
