"""A compact, array-friendly view of a design for the analysis passes.

Switches of one plane are numbered 0..n-1; parallel links are counted as multiplicities;
GPU NICs ("hosts") are counted on the switch they plug into.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from fabricstudio.model import (
    Design,
    DesignData,
    Device,
    DeviceKind,
    FabricSettings,
    GpuServer,
    Link,
    Plane,
)


@dataclass
class DesignView:
    """Plain lists of a Design or DesignData, whichever was given."""

    name: str
    fabric: FabricSettings
    devices: dict[str, Device]
    links: list[Link]
    used_ports: dict[str, set[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, design: Design | DesignData) -> DesignView:
        """Snapshot ``design`` (a live Design or its plain data; data with links lacking
        ports is resolved as loading would, and DesignError raised if it is invalid)."""
        if not isinstance(design, Design):
            known = {d.id for d in design.nodes}
            if any(link.a_port is None or link.b_port is None or link.a not in known
                   or link.b not in known for link in design.links):
                design = Design.from_data(design)  # assigns missing ports, or DesignError
        if isinstance(design, Design):
            devices, links = dict(design.devices), list(design.links.values())
        else:
            devices, links = {d.id: d for d in design.nodes}, list(design.links)
        used: dict[str, set[int]] = defaultdict(set)
        for link in links:
            for end, port in ((link.a, link.a_port), (link.b, link.b_port)):
                if port is not None:  # always: links without ports were resolved above
                    used[end].add(port)
        return cls(design.name, design.fabric, devices, links, dict(used))


@dataclass
class PlaneGraph:
    """The switches of one plane with link multiplicities, capacities and attached hosts."""

    plane: Plane
    switches: list[str]
    index: dict[str, int]
    tier: np.ndarray
    kind: list[str]
    #: Undirected multiplicity and summed speed per switch pair (i < j).
    pairs: dict[tuple[int, int], list[float]]
    #: GPU NICs per switch index, and per server the switch indices of its NICs.
    hosts: Counter[int]
    server_switches: dict[str, Counter[int]]
    #: Speed of host NIC links per switch index (Gb/s summed).
    host_gbps: dict[int, float]
    #: Links of this plane between a server and a switch / between switches.
    host_links: list[Link]
    switch_links: list[Link]

    @property
    def n(self) -> int:
        """Number of switches."""
        return len(self.switches)

    def adjacency(self) -> np.ndarray:
        """Dense n x n multiplicity matrix."""
        a = np.zeros((self.n, self.n))
        for (i, j), (count, _) in self.pairs.items():
            a[i, j] = a[j, i] = count
        return a

    def access(self) -> list[int]:
        """Indices of switches with GPU NICs, in switch order."""
        return [i for i in range(self.n) if self.hosts.get(i)]


def plane_graph(view: DesignView, plane: Plane = Plane.COMPUTE) -> PlaneGraph:
    """Build the PlaneGraph of ``plane``."""
    switches = [d.id for d in view.devices.values()
                if DeviceKind(d.kind).is_switch and plane in d.planes]
    index = {s: i for i, s in enumerate(switches)}
    kinds: list[str] = [view.devices[s].kind for s in switches]
    tiers = np.array([DeviceKind(k).tier for k in kinds], dtype=np.int64)
    pairs: dict[tuple[int, int], list[float]] = {}
    hosts: Counter[int] = Counter()
    host_gbps: dict[int, float] = defaultdict(float)
    server_switches: dict[str, Counter[int]] = defaultdict(Counter)
    host_links: list[Link] = []
    switch_links: list[Link] = []
    for link in view.links:
        if link.plane is not plane:
            continue
        ia, ib = index.get(link.a), index.get(link.b)
        if ia is not None and ib is not None:
            key = (ia, ib) if ia < ib else (ib, ia)
            entry = pairs.setdefault(key, [0, 0.0])
            entry[0] += 1
            entry[1] += link.speed_gbps
            switch_links.append(link)
            continue
        if ib is not None:
            server, sw = link.a, ib
        elif ia is not None:
            server, sw = link.b, ia
        else:
            continue
        host_links.append(link)
        if isinstance(view.devices[server], GpuServer) and plane is Plane.COMPUTE:
            hosts[sw] += 1
            host_gbps[sw] += link.speed_gbps
            server_switches[server][sw] += 1
    return PlaneGraph(plane, switches, index, tiers, kinds, pairs, hosts,
                      dict(server_switches), host_gbps, host_links, switch_links)
