"""Oversubscription by tier and leaf, and bisection bandwidth.

Tiers follow the switch kinds (leaf < spine < core).  A link counts as "down" at its higher
end and "up" at its lower end; GPU NIC links are "down" at their switch.  Links between
switches of the same tier are lateral and count as neither.
"""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from fabricstudio.topology.analysis.report import Bisection, Oversubscription, SwitchLoad, TierLoad
from fabricstudio.topology.analysis.view import DesignView, PlaneGraph

_TIER_NAMES = {1: "leaf", 2: "spine", 3: "core"}


def _ratio(down: float, up: float) -> float | None:
    return round(down / up, 4) if up > 0 else None


def switch_loads(graph: PlaneGraph) -> tuple[list[float], list[float]]:
    """(down Gb/s, up Gb/s) per switch index; links within a tier count as neither."""
    down = [float(graph.host_gbps.get(i, 0.0)) for i in range(graph.n)]
    up = [0.0] * graph.n
    for (i, j), (_, gbps) in graph.pairs.items():
        ti, tj = graph.tier[i], graph.tier[j]
        if ti == tj:
            continue
        low, high = (i, j) if ti < tj else (j, i)
        up[low] += gbps
        down[high] += gbps
    return down, up


def oversubscription(graph: PlaneGraph) -> Oversubscription:
    """Per-tier totals and every leaf's ratio."""
    down, up = switch_loads(graph)
    by_tier: dict[int, list[int]] = defaultdict(list)
    for i in range(graph.n):
        by_tier[int(graph.tier[i])].append(i)
    tiers = []
    for tier in sorted(by_tier):
        members = by_tier[tier]
        d = sum(down[i] for i in members)
        u = sum(up[i] for i in members)
        ratios = [r for i in members if (r := _ratio(down[i], up[i])) is not None]
        tiers.append(TierLoad(tier=_TIER_NAMES.get(tier, str(tier)), switches=len(members),
                              down_gbps=d, up_gbps=u, ratio=_ratio(d, u),
                              worst_ratio=max(ratios) if ratios else None))
    leaves = [SwitchLoad(id=graph.switches[i], down_gbps=down[i], up_gbps=up[i],
                         ratio=_ratio(down[i], up[i]), hosts=int(graph.hosts.get(i, 0)))
              for i in by_tier.get(1, [])]
    return Oversubscription(tiers=tiers, leaves=leaves)


def _is_symmetric_clos(graph: PlaneGraph, down: list[float], up: list[float]) -> bool:
    """Hosts only on leaves, links only between adjacent tiers, every switch of a tier with
    the same down and up capacity, and the tiers fully meshed (the generated families, fully
    populated).  Uniform degrees alone are not enough: leaves and spines wired as one long
    cycle are uniform but have a far narrower bisection."""
    hosts_off_leaf = any(graph.tier[i] != 1 for i in graph.hosts)
    if hosts_off_leaf:
        return False
    for (i, j) in graph.pairs:
        if abs(int(graph.tier[i]) - int(graph.tier[j])) != 1:
            return False
    by_tier: dict[int, set[tuple[float, float]]] = defaultdict(set)
    for i in range(graph.n):
        by_tier[int(graph.tier[i])].add((round(down[i], 6), round(up[i], 6)))
    return all(len(shapes) == 1 for shapes in by_tier.values()) and _fully_meshed(graph)


def _fully_meshed(graph: PlaneGraph) -> bool:
    """Tiers 1..top (top <= 3) where, within each pod (a connected group of leaves and
    spines), every leaf reaches every spine with the same number of cables, one pod when there
    is no core, and every core reaches every pod with the same number of cables."""
    tiers = {int(t) for t in graph.tier}
    top = max(tiers)
    if tiers != set(range(1, top + 1)) or top > 3:
        return False
    if top == 1:
        return graph.n == 1
    pod_of = _pods(graph)
    pods: dict[int, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for i in range(graph.n):
        if graph.tier[i] < 3:
            pods[pod_of[i]][int(graph.tier[i]) - 1].append(i)
    if top == 2 and len(pods) != 1:
        return False
    for leaves, spines in pods.values():
        counts = {graph.pairs.get((min(a, b), max(a, b)), (0,))[0]
                  for a in leaves for b in spines}
        if counts != {next(iter(counts))} or 0 in counts:
            return False
    core_links: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for (i, j), (mult, _) in graph.pairs.items():
        core, other = (i, j) if graph.tier[i] == 3 else (j, i)
        if graph.tier[core] == 3:
            core_links[core][pod_of[other]] += int(mult)
    for i in range(graph.n):
        per_pod = core_links.get(i, {}) if graph.tier[i] == 3 else None
        if per_pod is not None and (set(per_pod) != set(pods) or len(set(per_pod.values())) != 1):
            return False
    return True


def _pods(graph: PlaneGraph) -> list[int]:
    """Pod number of every leaf and spine: connected components of leaf-spine links."""
    parent = list(range(graph.n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in graph.pairs:
        if graph.tier[i] < 3 and graph.tier[j] < 3:
            parent[find(i)] = find(j)
    return [find(i) for i in range(graph.n)]


def bisection(view: DesignView, graph: PlaneGraph) -> Bisection:
    """Clos formula for symmetric Clos fabrics; else max-flow across one balanced split."""
    total_hosts = sum(graph.hosts.values())
    if total_hosts < 2:
        return Bisection(gbps=0.0, method="none", exact=True,
                         note="fewer than two GPU NICs are connected")
    down, up = switch_loads(graph)
    if _is_symmetric_clos(graph, down, up):
        host_cap = sum(graph.host_gbps.values())
        tier_up: dict[int, float] = defaultdict(float)
        for i in range(graph.n):
            tier_up[int(graph.tier[i])] += up[i]
        top = max(int(t) for t in graph.tier)
        narrow = min([host_cap] + [tier_up[t] for t in tier_up if t < top])
        return Bisection(gbps=narrow / 2, method="clos-formula", exact=True,
                         note="symmetric Clos: half of the narrowest tier (GPU NICs, leaf "
                              "uplinks, spine uplinks) = hosts/2 x C / o")
    return _max_flow_split(view, graph)


def _max_flow_split(view: DesignView, graph: PlaneGraph) -> Bisection:
    """Max flow from one half of the GPU NICs to the other (access switches ordered by x,
    then id, and cut where the running NIC count reaches half)."""
    access = sorted(graph.access(), key=lambda i: (view.devices[graph.switches[i]].x,
                                                   graph.switches[i]))
    half = sum(graph.hosts.values()) / 2
    side_a, running = set(), 0
    for i in access:
        if running >= half:
            break
        side_a.add(i)
        running += graph.hosts[i]
    flow = nx.DiGraph()
    for (i, j), (_, gbps) in graph.pairs.items():
        flow.add_edge(i, j, capacity=gbps)
        flow.add_edge(j, i, capacity=gbps)
    for i in access:
        end = ("src", i) if i in side_a else (i, "dst")
        flow.add_edge(*end, capacity=float(graph.host_gbps[i]))
    value = nx.maximum_flow_value(flow, "src", "dst") if side_a and len(side_a) < len(
        access) else 0.0
    return Bisection(gbps=float(value), method="max-flow-split", exact=False,
                     note="maximum flow from the left half of the GPU NICs to the right half "
                          "(by leaf position); the true bisection is the minimum over all "
                          "balanced splits and may be lower")
