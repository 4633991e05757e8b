"""Shortest paths between GPU NICs: hop counts, ECMP widths and diameter.

Breadth-first search with path counting runs on all source leaves at once as dense matrix
products over the switch graph (parallel links multiply the path count, as ECMP spreads over
each cable).  A GPU NIC pair's path is NIC -> access switch -> ... -> access switch -> NIC,
so its hop count is the switch distance + 2.  When (sources x switches) exceeds
``max_pairs`` an evenly spaced, deterministic sample of source switches is used.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fabricstudio.topology.analysis.report import Paths, Stat
from fabricstudio.topology.analysis.view import PlaneGraph

#: Largest switch count handled with dense matrices; row chunk of the products.
DENSE_MAX = 4000
_CHUNK = 256
#: Upper bound of multiply-adds per analysis (sources x n x n), to keep it in seconds.
_FLOP_BUDGET = 6e9
#: Sources examined one by one beyond DENSE_MAX switches.
_SPARSE_SOURCES = 16


@dataclass
class Distances:
    """Distances and shortest-path counts from sampled source switches to every switch."""

    sources: np.ndarray  # switch indices, the rows
    dist: np.ndarray  # int, -1 = unreachable
    count: np.ndarray  # float, shortest-path counts
    sampled: bool
    access: np.ndarray  # all access switch indices


def bfs_counts(adjacency: np.ndarray, sources: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(dist, count) rows for ``sources``: BFS level by level as matrix products."""
    n = adjacency.shape[0]
    dist = np.full((len(sources), n), -1, dtype=np.int64)
    count = np.zeros((len(sources), n))
    for start in range(0, len(sources), _CHUNK):
        rows = sources[start:start + _CHUNK]
        r = np.arange(len(rows))
        frontier = np.zeros((len(rows), n))
        frontier[r, rows] = 1.0
        d = dist[start:start + len(rows)]
        c = count[start:start + len(rows)]
        d[r, rows] = 0
        c[r, rows] = 1.0
        level = 0
        while frontier.any():
            level += 1
            nxt = frontier @ adjacency
            new = (nxt > 0) & (d < 0)
            nxt[~new] = 0.0
            d[new] = level
            c[new] = nxt[new]
            frontier = nxt
    return dist, count


def distances(graph: PlaneGraph, max_pairs: int) -> Distances:
    """Distances from (a sample of) the access switches."""
    access = np.array(graph.access(), dtype=np.int64)
    n = graph.n
    if n == 0 or len(access) == 0:
        empty = np.zeros((0, n))
        return Distances(access, empty.astype(np.int64), empty, False, access)
    if n > DENSE_MAX:
        limit = max(1, min(max_pairs // n, _SPARSE_SOURCES))
    else:
        limit = max(1, min(max_pairs // n, int(_FLOP_BUDGET // (n * n))))
    sources = access
    if len(access) > limit:
        picks = np.unique(np.linspace(0, len(access) - 1, limit).round().astype(int))
        sources = access[picks]
    if n > DENSE_MAX:
        dist, count = bfs_counts_sparse(graph, sources)
    else:
        dist, count = bfs_counts((graph.adjacency() > 0).astype(float), sources)
    return Distances(sources, dist, count, len(sources) < len(access), access)


def bfs_counts_sparse(graph: PlaneGraph, sources: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same as :func:`bfs_counts` with adjacency lists (for very large switch counts)."""
    neighbours: list[list[tuple[int, float]]] = [[] for _ in range(graph.n)]
    for (i, j), (mult, _) in graph.pairs.items():
        neighbours[i].append((j, mult))
        neighbours[j].append((i, mult))
    dist = np.full((len(sources), graph.n), -1, dtype=np.int64)
    count = np.zeros((len(sources), graph.n))
    for r, source in enumerate(sources):
        d, c = dist[r], count[r]
        d[source], c[source] = 0, 1.0
        frontier = [int(source)]
        while frontier:
            nxt = []
            for u in frontier:
                for v, _ in neighbours[u]:
                    if d[v] < 0:
                        d[v] = d[u] + 1
                        nxt.append(v)
                    if d[v] == d[u] + 1:
                        c[v] += c[u]
            frontier = nxt
    return dist, count


def pair_weights(graph: PlaneGraph, dists: Distances) -> np.ndarray:
    """Ordered GPU-NIC pairs on different servers between each source row and access switch."""
    access = dists.access
    pos = {int(s): k for k, s in enumerate(access)}
    w = np.array([graph.hosts[int(s)] for s in access], dtype=float)
    same = np.zeros((len(dists.sources), len(access)))
    rows = {int(s): r for r, s in enumerate(dists.sources)}
    for counts in graph.server_switches.values():
        cols = [(pos[s], c) for s, c in counts.items()]
        for s, c in counts.items():
            r = rows.get(s)
            if r is None:
                continue
            for k, c2 in cols:
                same[r, k] += c * c2
    src_w = np.array([graph.hosts[int(s)] for s in dists.sources], dtype=float)
    return np.outer(src_w, w) - same


def ecmp_widths(graph: PlaneGraph, dists: Distances) -> np.ndarray:
    """Equal-cost next-hop links from each source row to each source column (-1 unreachable).

    A first hop v of source A toward B is on a shortest path when d(v, B) = d(A, B) - 1;
    d(v, B) is row B of the distances (the graph is undirected).  Same switch: 1.
    """
    rows = dists.sources
    m = len(rows)
    neighbours: list[list[tuple[int, float]]] = [[] for _ in range(graph.n)]
    for (i, j), (mult, _) in graph.pairs.items():
        neighbours[i].append((j, mult))
        neighbours[j].append((i, mult))
    widths = np.full((m, m), -1.0)
    for r, a in enumerate(rows):
        target = dists.dist[r, rows] - 1
        if neighbours[int(a)]:
            nbrs = np.array([v for v, _ in neighbours[int(a)]])
            mults = np.array([k for _, k in neighbours[int(a)]])
            match = dists.dist[:, nbrs] == target[:, None]
            widths[r] = np.where(target >= 0, match @ mults, -1.0)
        widths[r, r] = 1.0
    return widths


def path_stats(graph: PlaneGraph, dists: Distances) -> Paths:
    """Hop and ECMP statistics over GPU NIC pairs on different servers."""
    method = ("BFS with path counting from every leaf (exact)" if not dists.sampled else
              f"BFS from {len(dists.sources)} of {len(dists.access)} leaves, evenly spaced "
              "(sampled)")
    total_hosts = sum(graph.hosts.values())
    total_pairs = total_hosts * total_hosts - sum(
        sum(c.values()) ** 2 for c in graph.server_switches.values())
    if len(dists.sources) == 0:
        return Paths(pairs=max(total_pairs, 0), pairs_examined=0, sampled=False,
                     method="no GPU NICs are connected", hops=None, ecmp_paths=None,
                     ecmp_width=None,
                     diameter_hops=None, unreachable_pairs=0)
    weights = pair_weights(graph, dists)
    d = dists.dist[:, dists.access]
    c = dists.count[:, dists.access]
    reach = (d >= 0) & (weights > 0)
    unreachable = int(weights[(d < 0) & (weights > 0)].sum())
    examined = int(weights.sum())
    hops = ecmp = width = None
    diameter = None
    if reach.any():
        wv = weights[reach]
        hv = d[reach] + 2.0
        cv = c[reach]
        hops = Stat(min=float(hv.min()), mean=round(float((hv * wv).sum() / wv.sum()), 4),
                    max=float(hv.max()))
        ecmp = Stat(min=float(cv.min()), mean=round(float((cv * wv).sum() / wv.sum()), 4),
                    max=float(cv.max()))
        diameter = int(hv.max())
        width = _width_stat(graph, dists, weights)
    return Paths(pairs=int(total_pairs), pairs_examined=examined, sampled=dists.sampled,
                 method=method, hops=hops, ecmp_paths=ecmp, ecmp_width=width,
                 diameter_hops=diameter,
                 unreachable_pairs=unreachable)


def _width_stat(graph: PlaneGraph, dists: Distances, weights: np.ndarray) -> Stat | None:
    """ECMP width over the pairs whose both ends are source rows."""
    pos = {int(s): k for k, s in enumerate(dists.access)}
    cols = np.array([pos[int(s)] for s in dists.sources])
    w = weights[:, cols]
    widths = ecmp_widths(graph, dists)
    ok = (widths >= 0) & (w > 0)
    if not ok.any():
        return None
    wv, xv = w[ok], widths[ok]
    return Stat(min=float(xv.min()), mean=round(float((xv * wv).sum() / wv.sum()), 4),
                max=float(xv.max()))
