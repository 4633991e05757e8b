"""Scalable units, pods and rails derived from a design's wiring.

Until the model holds groups of its own (racks, scalable units and pods), they are read from
the cables: a *unit* is a set of leaves joined by the servers they share (a top-of-rack leaf
and its servers, or the rail leaves of a rail-optimised scalable unit with its servers); a
*pod* is a set of leaves and spines joined by leaf-spine cables (core switches excluded), so a
two-tier fabric is one pod and a three-tier fat tree has one pod per aggregation block; a
*rail* is the set of compute cables on NIC ``r`` of every GPU server.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from fabricstudio.model import Design, DeviceKind, GpuServer, Link, Plane

SERVER_KINDS = frozenset({DeviceKind.GPU_SERVER, DeviceKind.STORAGE_SERVER})


@dataclass
class Unit:
    """Leaves that share servers, with those servers (in design order)."""

    leaves: list[str] = field(default_factory=list)
    servers: list[str] = field(default_factory=list)


@dataclass
class Pod:
    """Leaves and spines joined by cables below the core tier."""

    leaves: list[str] = field(default_factory=list)
    spines: list[str] = field(default_factory=list)


def kind_of(design: Design, device_id: str) -> DeviceKind:
    """The kind of a device of ``design``."""
    return DeviceKind(design.devices[device_id].kind)


class _Sets:
    """Union-find over string keys that keeps the first-seen order."""

    def __init__(self, keys: Iterable[str]) -> None:
        self.parent = {k: k for k in keys}
        self.order = {k: i for i, k in enumerate(self.parent)}

    def root(self, key: str) -> str:
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def join(self, a: str, b: str) -> None:
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            first, second = sorted((ra, rb), key=self.order.__getitem__)
            self.parent[second] = first

    def groups(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for key in self.parent:
            out.setdefault(self.root(key), []).append(key)
        return out


def leaf_units(design: Design, plane: Plane = Plane.COMPUTE) -> list[Unit]:
    """Units of ``plane``: leaves joined by shared servers, in the order of their leaves.

    Servers cabled to no leaf of the plane are left out.
    """
    leaves = [d.id for d in design.devices.values()
              if DeviceKind(d.kind) is DeviceKind.LEAF and plane in d.planes]
    leaf_set = set(leaves)
    homes: dict[str, list[str]] = defaultdict(list)
    for link in design.links.values():
        if link.plane is not plane:
            continue
        for server, leaf in ((link.a, link.b), (link.b, link.a)):
            if leaf in leaf_set and kind_of(design, server) in SERVER_KINDS:
                if leaf not in homes[server]:
                    homes[server].append(leaf)
    sets = _Sets(leaves)
    for found in homes.values():
        for other in found[1:]:
            sets.join(found[0], other)
    units = {root: Unit(leaves=members) for root, members in sets.groups().items()}
    for server in design.devices:
        if server in homes:
            units[sets.root(homes[server][0])].servers.append(server)
    return list(units.values())


def pods(design: Design, plane: Plane = Plane.COMPUTE) -> list[Pod]:
    """Pods of ``plane``: leaves and spines joined by leaf-spine cables (cores excluded)."""
    members = [d.id for d in design.devices.values()
               if DeviceKind(d.kind) in (DeviceKind.LEAF, DeviceKind.SPINE) and plane in d.planes]
    sets = _Sets(members)
    for link in design.links.values():
        if link.plane is plane and link.a in sets.parent and link.b in sets.parent:
            sets.join(link.a, link.b)
    out = []
    for group in sets.groups().values():
        pod = Pod()
        for ident in group:
            if kind_of(design, ident) is DeviceKind.LEAF:
                pod.leaves.append(ident)
            else:
                pod.spines.append(ident)
        if pod.leaves:
            out.append(pod)
    return out


def rail_of(design: Design, link: Link) -> int | None:
    """The rail of a compute cable: the NIC index on its GPU server end (None otherwise)."""
    if link.plane is not Plane.COMPUTE:
        return None
    for end, port in ((link.a, link.a_port), (link.b, link.b_port)):
        if kind_of(design, end) is DeviceKind.GPU_SERVER and port is not None:
            return port
    return None


def rail_count(design: Design) -> int:
    """Number of rails: the most compute NICs any GPU server has."""
    return max((d.nics for d in design.devices.values() if isinstance(d, GpuServer)),
               default=0)
