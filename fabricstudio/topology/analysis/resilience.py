"""Single points of failure on GPU-to-GPU paths: cut vertices (switches) and bridges
(single switch-to-switch cables) whose loss separates GPU servers from each other.

Uses the block-cut tree of the compute network: a cut vertex or bridge is a single point of
failure when at least two of the branches it separates contain GPU servers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx

from fabricstudio.model import GpuServer
from fabricstudio.topology.analysis.view import DesignView, PlaneGraph


@dataclass
class Failure:
    """A switch or a cable whose loss cuts ``isolated`` GPU servers off from the others."""

    element: str
    kind: str  # "switch" or "link"
    isolated: list[str]


#: A node of the block-cut tree: ("B", block index) or ("C", cut vertex id).
Node = tuple[str, Any]


def _compute_graph(view: DesignView,
                   graph: PlaneGraph) -> tuple[nx.Graph, dict[frozenset[str], str]]:
    g = nx.Graph()
    single_links: dict[frozenset[str], str] = {}
    for link in graph.switch_links:
        key = frozenset((link.a, link.b))
        if g.has_edge(link.a, link.b):
            single_links.pop(key, None)
        else:
            g.add_edge(link.a, link.b)
            single_links[key] = link.id
    for link in graph.host_links:
        g.add_edge(link.a, link.b)
    return g, single_links


def single_points_of_failure(view: DesignView, graph: PlaneGraph) -> list[Failure]:
    """Switches and single cables whose failure separates GPU servers."""
    g, single_links = _compute_graph(view, graph)
    if g.number_of_nodes() == 0:
        return []
    is_gpu = {n: isinstance(view.devices[n], GpuServer) for n in g}
    cuts = set(nx.articulation_points(g))
    tree = nx.Graph()
    block_servers: dict[int, list[str]] = {}
    block_size: dict[int, int] = {}
    bridges: dict[int, str] = {}
    for k, block in enumerate(nx.biconnected_components(g)):
        block_servers[k] = [n for n in block if is_gpu[n] and n not in cuts]
        block_size[k] = len(block)
        tree.add_node(("B", k))
        for node in block & cuts:
            tree.add_edge(("B", k), ("C", node))
        if len(block) == 2:
            link_id = single_links.get(frozenset(block))
            if link_id is not None:
                bridges[k] = link_id

    def servers_of(node: Node) -> list[str]:
        if node[0] == "B":
            return block_servers[node[1]]
        return [node[1]] if is_gpu[node[1]] else []

    failures: list[Failure] = []
    for component in nx.connected_components(tree):
        # Root at the biggest block (the fabric's core), so "cut off" names the outskirts.
        root = max(component, key=lambda n: (block_size.get(n[1], 0) if n[0] == "B" else 0,
                                             repr(n)))
        parent: dict[Node, Node | None] = {root: None}
        order = [root]
        for node in order:
            for nb in tree[node]:
                if nb not in parent:
                    parent[nb] = node
                    order.append(nb)
        below = {node: len(servers_of(node)) for node in order}
        for node in reversed(order):
            if parent[node] is not None:
                below[parent[node]] += below[node]
        total = below[root]
        for node in order:
            is_switch_cut = node[0] == "C" and not is_gpu[node[1]]
            if not (is_switch_cut or (node[0] == "B" and node[1] in bridges)):
                continue
            branches = [nb for nb in tree[node] if parent.get(nb) == node]
            up_side = total - below[node]
            sizes = [below[nb] for nb in branches]
            if parent[node] is not None:
                sizes.append(up_side)
            if sum(1 for size in sizes if size > 0) < 2:
                continue
            isolated = _smaller_sides(tree, node, parent, branches, below, up_side, servers_of)
            if node[0] == "C":
                failures.append(Failure(node[1], "switch", isolated))
            else:
                failures.append(Failure(bridges[node[1]], "link", isolated))
    return sorted(failures, key=lambda f: natural_key(f.element))


def _smaller_sides(tree: nx.Graph, node: Node, parent: dict[Node, Node | None],
                   branches: list[Node], below: dict[Node, int], up_side: int,
                   servers_of: Callable[[Node], list[str]]) -> list[str]:
    """GPU servers on every side of ``node`` except the one holding the most."""
    sides: list[tuple[int, Node | None]] = [(below[b], b) for b in branches]
    if parent[node] is not None:
        sides.append((up_side, None))
    sides.remove(max(sides, key=lambda s: (s[0], s[1] is None)))
    isolated: list[str] = []
    for _, start in sides:
        if start is None:
            isolated += _outside(tree, node, parent, servers_of)
            continue
        stack = [start]
        while stack:
            current = stack.pop()
            isolated += servers_of(current)
            stack.extend(nb for nb in tree[current] if parent.get(nb) == current)
    return sorted(isolated, key=natural_key)


def _outside(tree: nx.Graph, node: Node, parent: dict[Node, Node | None],
             servers_of: Callable[[Node], list[str]]) -> list[str]:
    """Servers of the tree outside ``node``'s subtree."""
    inside = {node}
    stack = [node]
    while stack:
        current = stack.pop()
        for nb in tree[current]:
            if parent.get(nb) == current and nb not in inside:
                inside.add(nb)
                stack.append(nb)
    return [s for n in parent if n not in inside for s in servers_of(n)]


def natural_key(text: str) -> tuple[str, int]:
    head = text.rstrip("0123456789")
    tail = text[len(head):]
    return (head, int(tail) if tail else -1)
