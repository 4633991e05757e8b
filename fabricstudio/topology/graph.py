"""Design -> networkx graph.

Nodes are device ids with attributes ``kind``, ``tier``, ``planes`` and ``device`` (the model
value); edges are links as a MultiGraph (parallel links are separate edges keyed by link id)
with ``speed_gbps``, ``length_m``, ``plane`` and ``link``.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from fabricstudio.model import Design, DeviceKind, Plane


def design_graph(design: Design, planes: Iterable[Plane] | None = None) -> nx.MultiGraph:
    """The design as an undirected multigraph, optionally restricted to some planes."""
    wanted = set(planes) if planes is not None else set(Plane)
    graph = nx.MultiGraph(name=design.name)
    for device in design.devices.values():
        if wanted.isdisjoint(device.planes):
            continue
        kind = DeviceKind(device.kind)
        graph.add_node(device.id, kind=kind, tier=kind.tier, planes=device.planes, device=device)
    for link in design.links.values():
        if link.plane not in wanted or link.a not in graph or link.b not in graph:
            continue
        graph.add_edge(link.a, link.b, key=link.id, speed_gbps=link.speed_gbps,
                       length_m=link.length_m, plane=link.plane, link=link)
    return graph

