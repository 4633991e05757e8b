"""PFC / credit deadlock risk: cycles in the buffer-dependency graph of the routes.

Routes are ECMP over all shortest paths between access switches (the switches GPU NICs plug
into).  A packet held in the ingress buffer of channel x->v waits for buffer on v->w when some
route towards a destination B goes x -> v -> w; such waits are the edges of the dependency
graph, and a cycle of them can deadlock a lossless fabric (Hu et al., "Deadlocks in
Datacenter Networks: Why Do They Form, and How to Avoid Them", HotNets 2016).

Fast certificate first: with tiers leaf < spine < core, if no route turns from going down to
going up (a "valley") and no route uses a link inside a tier, the rank
``up channel -> tier of its head, down channel -> 2 x top tier - tier of its head`` grows along
every dependency, so there is no cycle (up-down routing).  Otherwise the dependency graph is
built explicitly and its strongly connected components are searched for cycles.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from fabricstudio.topology.analysis.paths import Distances
from fabricstudio.topology.analysis.report import Deadlock, DeadlockCycle
from fabricstudio.topology.analysis.view import PlaneGraph

#: Stop building the explicit dependency graph beyond this many edges.
MAX_DEPENDENCIES = 2_000_000
#: Cycles reported (one per strongly connected component).
MAX_CYCLES = 5
_ROUTES = "ECMP over all shortest paths between the switches GPU NICs attach to"


def _directed_edges(graph: PlaneGraph) -> tuple[np.ndarray, np.ndarray]:
    pairs = np.array(list(graph.pairs), dtype=np.int64).reshape(-1, 2)
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    return src, dst


def _valley_free(graph: PlaneGraph, dists: Distances) -> bool:
    """True when no destination's shortest-path DAG has a down->up turn or a lateral hop."""
    src, dst = _directed_edges(graph)
    tier = graph.tier
    lateral = tier[src] == tier[dst]
    down = tier[src] > tier[dst]
    up = tier[src] < tier[dst]
    for start in range(0, len(dists.sources), 64):
        d = dists.dist[start:start + 64]
        toward = (d[:, src] == d[:, dst] + 1) & (d[:, dst] >= 0)
        if (toward & lateral).any():
            return False
        down_in = np.zeros(d.shape, dtype=bool)
        up_out = np.zeros(d.shape, dtype=bool)
        rows, cols = np.nonzero(toward & down)
        down_in[rows, dst[cols]] = True
        rows, cols = np.nonzero(toward & up)
        up_out[rows, src[cols]] = True
        if (down_in & up_out & (d >= 1)).any():
            return False
    return True


def _dependencies(graph: PlaneGraph, dists: Distances) -> tuple[nx.DiGraph, bool]:
    """The explicit dependency graph over the sampled destinations; (graph, complete).

    Nodes are directed switch links (i, j); an edge (x, v) -> (v, w) means a route toward some
    destination goes x -> v -> w.  Channel x -> v is used toward B when x lies on a shortest
    path from some access switch A to B: d(A, x) + d(x, B) = d(A, B).
    """
    src, dst = _directed_edges(graph)
    order = np.argsort(src, kind="stable")
    src_sorted = src[order]
    row_of = {int(s): r for r, s in enumerate(dists.sources)}
    d_all = dists.dist[[row_of[int(a)] for a in dists.sources]]
    codes: list[np.ndarray] = []
    total = 0
    complete = True
    for dest in dists.sources:
        d_b = dists.dist[row_of[int(dest)]]
        d_ab = d_all[:, int(dest)][:, None]
        used = ((d_all + d_b[None, :] == d_ab) & (d_all >= 0) & (d_b[None, :] >= 0)).any(axis=0)
        toward = (d_b[src] == d_b[dst] + 1) & (d_b[dst] >= 0)
        incoming = np.nonzero(toward & used[src] & (d_b[dst] >= 1))[0]
        out_sorted = toward[order]
        lo = np.searchsorted(src_sorted, dst[incoming], side="left")
        hi = np.searchsorted(src_sorted, dst[incoming], side="right")
        for e_in, a, b in zip(incoming, lo, hi, strict=True):
            outs = order[a:b][out_sorted[a:b]]
            codes.append(e_in * len(src) + outs)
            total += len(outs)
        if total > MAX_DEPENDENCIES:
            complete = False
            break
    deps = nx.DiGraph()
    if codes:
        unique = np.unique(np.concatenate(codes))
        edge_in, edge_out = np.divmod(unique, len(src))
        channel = [(int(a), int(b)) for a, b in zip(src, dst, strict=True)]
        deps.add_edges_from((channel[i], channel[o])
                            for i, o in zip(edge_in, edge_out, strict=True))
    return deps, complete


def deadlock_risk(graph: PlaneGraph, dists: Distances, lossless: bool) -> Deadlock:
    """Check the routes for cyclic buffer dependencies."""
    total = len(dists.access)
    examined = len(dists.sources)
    exact = not dists.sampled
    consequence = ("a cycle can deadlock this lossless fabric" if lossless else
                   "this fabric drops instead of pausing, so a cycle cannot deadlock it, "
                   "but would with PFC or credits")
    if graph.n == 0 or examined == 0:
        return Deadlock(method="none", routes=_ROUTES, exact=True, destinations_examined=0,
                        destinations=total, dependencies=None, cycles=[], risk=False,
                        note="no switches with GPU NICs")
    if _valley_free(graph, dists):
        return Deadlock(method="up-down certificate", routes=_ROUTES, exact=exact,
                        destinations_examined=examined, destinations=total, dependencies=None,
                        cycles=[], risk=False,
                        note="every route climbs then descends the tiers (no valley, no "
                             "lateral hop): buffer dependencies cannot form a cycle")
    deps, complete = _dependencies(graph, dists)
    cycles: list[DeadlockCycle] = []
    for component in nx.strongly_connected_components(deps):
        if len(component) < 2 or len(cycles) >= MAX_CYCLES:
            continue
        edges = nx.find_cycle(deps.subgraph(component))
        channels = [u for u, _ in edges]
        cycles.append(DeadlockCycle(
            switches=[graph.switches[a] for a, _ in channels],
            channels=[f"{graph.switches[a]}->{graph.switches[b]}" for a, b in channels]))
    note = (f"{len(cycles)} cyclic buffer dependenc{'y' if len(cycles) == 1 else 'ies'}: "
            f"{consequence}" if cycles else "the dependency graph has no cycle")
    if not complete:
        note += f" (graph truncated at {MAX_DEPENDENCIES:,} dependencies)"
    return Deadlock(method="buffer-dependency graph", routes=_ROUTES,
                    exact=exact and complete, destinations_examined=examined,
                    destinations=total, dependencies=deps.number_of_edges(), cycles=cycles,
                    risk=bool(cycles), note=note)
