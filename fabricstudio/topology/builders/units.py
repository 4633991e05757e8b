"""Palette units: a scalable unit or a rack, built as one fragment of devices, links and
groups (Qt-free), placed around an origin.

- ``scalable_unit``: ``servers`` GPU servers with ``rails`` NICs each and ``rails`` rail
  leaves; NIC i of every server to rail leaf i (the DGX SuperPOD unit is 32 servers and 8
  rail leaves).  Grouped as a scalable unit of server racks and its leaves' network rack.
- ``rack``: ``servers`` GPU servers in one rack, with a top-of-rack leaf taking all their NICs
  (``tor_leaf``) and a management switch (``management``), wired.

Ids are new: ``taken(id)`` says which ids the design already uses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fabricstudio.model import Device, GpuServer, Group, GroupKind, Leaf, Link, MgmtSwitch, Plane
from fabricstudio.topology.builders.grouping import chunks, rack_positions
from fabricstudio.topology.builders.placement import SERVER_DROP, rack_block, unit_block
from fabricstudio.topology.builders.specs import BuildError

UNIT_TYPES = ("scalable_unit", "rack")
#: Management switch (48 x 1 GbE) and in-rack cable, as the generators use them.
MGMT_RADIX, MGMT_SPEED = 48, 1.0
IN_RACK_M, RAIL_M = 3.0, 15.0


@dataclass
class Unit:
    """A built unit: what AddFragment adds, and its outermost group."""

    devices: list[Device] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    top: str = ""
    width: float = 0.0


class _Ids:
    """Fresh ids: ``next(prefix)`` is prefixN, ``exact(name)`` is name (or name.N)."""

    def __init__(self, taken: Callable[[str], bool]) -> None:
        self._taken = taken
        self._mine: set[str] = set()

    def _free(self, ident: str) -> bool:
        return ident not in self._mine and not self._taken(ident)

    def next(self, prefix: str) -> str:
        n = 1
        while not self._free(f"{prefix}{n}"):
            n += 1
        self._mine.add(f"{prefix}{n}")
        return f"{prefix}{n}"

    def exact(self, name: str) -> str:
        ident, n = name, 1
        while not self._free(ident):
            n += 1
            ident = f"{name}.{n}"
        self._mine.add(ident)
        return ident


def build_unit(spec: Mapping[str, Any], taken: Callable[[str], bool],
               origin: tuple[float, float] = (0.0, 0.0)) -> Unit:
    """Build the unit ``spec`` describes (``type`` and options; BuildError when wrong)."""
    fresh = _Ids(taken)
    kind = spec.get("type")
    options = {k: v for k, v in spec.items() if k != "type"}
    try:
        if kind == "scalable_unit":
            return _scalable_unit(fresh, origin, **options)
        if kind == "rack":
            return _rack(fresh, origin, **options)
    except TypeError as exc:
        raise BuildError(f"unit {kind}: {exc}") from None
    raise BuildError(f"unknown unit type {kind!r}: choose one of {', '.join(UNIT_TYPES)}")


def _server(ident: str, gpus: int, nics: int, speed: float, mgmt: bool) -> GpuServer:
    planes = (Plane.COMPUTE, Plane.MANAGEMENT) if mgmt else (Plane.COMPUTE,)
    return GpuServer(id=ident, gpus=gpus, nics=nics, nic_speed_gbps=speed, planes=planes,
                     mgmt_ports=1 if mgmt else 0)


def _check(servers: int, rails: int) -> None:
    if not 1 <= servers <= 256:
        raise BuildError(f"servers {servers}: between 1 and 256")
    if not 1 <= rails <= 64:
        raise BuildError(f"rails (NICs per server) {rails}: between 1 and 64")


def _scalable_unit(fresh: _Ids, origin: tuple[float, float], *,
                   servers: int = 32, rails: int = 8, gpus_per_server: int = 8,
                   nic_speed_gbps: float = 400.0, leaf_radix: int = 64,
                   leaf_speed_gbps: float = 400.0, servers_per_rack: int = 4,
                   management: bool = False) -> Unit:
    _check(servers, rails)
    if servers > leaf_radix:
        raise BuildError(f"{servers} servers need {servers} ports on each rail leaf; "
                         f"radix {leaf_radix} is too small")
    unit = Unit()
    su = fresh.next("su")
    server_ids = [fresh.next("gpu") for _ in range(servers)]
    leaf_ids = [fresh.next("leaf") for _ in range(rails)]
    speed = min(nic_speed_gbps, leaf_speed_gbps)
    block = unit_block(leaf_ids, server_ids)
    pos = {i: (x - block.width / 2 + origin[0], y + origin[1]) for i, (x, y) in block.pos.items()}
    for ident in server_ids:
        unit.devices.append(_server(ident, gpus_per_server, rails, nic_speed_gbps, management)
                            .model_copy(update={"x": pos[ident][0], "y": pos[ident][1]}))
    for r, ident in enumerate(leaf_ids, start=1):
        unit.devices.append(Leaf(id=ident, name=f"{su}-rail{r}", radix=leaf_radix,
                                 port_speed_gbps=leaf_speed_gbps, x=pos[ident][0],
                                 y=pos[ident][1]))
    for s, server in enumerate(server_ids):
        for r, leaf in enumerate(leaf_ids):
            unit.links.append(Link(id=fresh.exact(f"{server}-nic{r}"), a=server, b=leaf, a_port=r,
                                   b_port=s, speed_gbps=speed, length_m=RAIL_M))
    by_id = {d.id: d for d in unit.devices}
    racks = []
    bottom = max(p[1] for p in pos.values())
    for members in chunks(server_ids, servers_per_rack):
        rack_members = list(members)
        if management:
            switch = _mgmt_switch(unit, fresh, members, (sum(pos[m][0] for m in members)
                                                         / len(members), bottom + SERVER_DROP))
            by_id[switch.id] = switch
            rack_members.append(switch.id)
        racks.append(_rack_group(fresh.next("rack"), rack_members, by_id))
    label = f"SU {su.removeprefix('su')}"
    net = _rack_group(fresh.next("rack"), leaf_ids, by_id, name=f"{label} leaves")
    unit.groups = racks + [net, Group(id=su, kind=GroupKind.SCALABLE_UNIT, name=label,
                                      members=tuple([r.id for r in racks] + [net.id]))]
    unit.top = su
    unit.width = block.width
    return unit


def _rack(fresh: _Ids, origin: tuple[float, float], *, servers: int = 4,
          nics: int = 8, gpus_per_server: int = 8, nic_speed_gbps: float = 400.0,
          tor_leaf: bool = True, leaf_radix: int = 64, leaf_speed_gbps: float = 400.0,
          management: bool = True) -> Unit:
    _check(servers, nics)
    if tor_leaf and servers * nics > leaf_radix:
        raise BuildError(f"{servers} servers x {nics} NICs need {servers * nics} ports; a "
                         f"radix-{leaf_radix} top-of-rack leaf has {leaf_radix}")
    unit = Unit()
    server_ids = [fresh.next("gpu") for _ in range(servers)]
    leaf = fresh.next("leaf") if tor_leaf else None
    block = rack_block(leaf or "-", server_ids, bundled=bool(leaf) and nics > 1)
    pos = {i: (x - block.width / 2 + origin[0], y + origin[1]) for i, (x, y) in block.pos.items()}
    for ident in server_ids:
        unit.devices.append(_server(ident, gpus_per_server, nics, nic_speed_gbps, management)
                            .model_copy(update={"x": pos[ident][0], "y": pos[ident][1]}))
    members = list(server_ids)
    if leaf is not None:
        unit.devices.append(Leaf(id=leaf, radix=leaf_radix, port_speed_gbps=leaf_speed_gbps,
                                 x=pos[leaf][0], y=pos[leaf][1]))
        speed = min(nic_speed_gbps, leaf_speed_gbps)
        port = 0
        for server in server_ids:
            for nic in range(nics):
                unit.links.append(Link(id=fresh.exact(f"{server}-nic{nic}"), a=server, b=leaf,
                                       a_port=nic, b_port=port, speed_gbps=speed,
                                       length_m=IN_RACK_M))
                port += 1
        members.append(leaf)
    by_id = {d.id: d for d in unit.devices}
    if management:
        bottom = max(pos[s][1] for s in server_ids)
        switch = _mgmt_switch(unit, fresh, server_ids, (origin[0], bottom + SERVER_DROP))
        by_id[switch.id] = switch
        members.append(switch.id)
    rack = _rack_group(fresh.next("rack"), members, by_id)
    unit.groups = [rack]
    unit.top = rack.id
    unit.width = block.width
    return unit


def _mgmt_switch(unit: Unit, fresh: _Ids, servers: list[str],
                 at: tuple[float, float]) -> MgmtSwitch:
    switch = MgmtSwitch(id=fresh.next("mgmt"), radix=MGMT_RADIX, port_speed_gbps=MGMT_SPEED,
                        x=at[0], y=at[1])
    unit.devices.append(switch)
    by_id = {d.id: d for d in unit.devices}
    for port, server in enumerate(servers):
        nic = by_id[server].ports_for_plane(Plane.MANAGEMENT)[0]
        unit.links.append(Link(id=fresh.exact(f"{server}-mgmt"), a=server, b=switch.id, a_port=nic,
                               b_port=port, speed_gbps=MGMT_SPEED, length_m=IN_RACK_M,
                               plane=Plane.MANAGEMENT))
    return switch


def _rack_group(ident: str, members: list[str], devices: Mapping[str, Device],
                name: str = "") -> Group:
    height, positions = rack_positions(members, dict(devices))
    return Group(id=ident, kind=GroupKind.RACK, name=name, members=tuple(members),
                 height_u=height, u_positions=positions)
