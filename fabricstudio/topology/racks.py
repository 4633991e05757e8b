"""Racks and rack-unit positions of a design's devices.

:func:`rack_plan` is the one place exports (NetBox, cable plans) ask where a device stands.
Until the model has rack groups of its own it derives them from the wiring, as the generators
build fabrics: a rack is a management switch with the servers it serves (the generators put
one per rack), or else a top-of-rack leaf with its servers; servers of rail-optimised units
fill racks in design order; the remaining switches (rail leaves, spines, cores, aggregation)
fill network racks.  Heights: an 8-GPU server is 8 U (NVIDIA DGX H100 user guide: 8U), smaller
GPU servers 4 U, storage servers 2 U, switches 1 U up to 25.6 Tb/s (QM9700: 64 x 400G in 1U)
and 2 U above (SN5600: 64 x 800G in 2U).  Racks are 42 U.

A design whose model holds rack groups (``design.groups`` with ``kind == "rack"``, their
``u_positions`` and ``height_u``) is read as drawn: those racks keep their names and given
positions (members without a position stack on the free units, servers from the bottom,
switches from the top), and only the devices outside every rack are derived.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fabricstudio.model import Design, Device, DeviceKind, Plane
from fabricstudio.model.groups import u_height
from fabricstudio.topology.groups import SERVER_KINDS, leaf_units

RACK_UNITS = 42
#: Servers placed together when nothing else groups them (DGX SuperPOD: 4 DGX per rack).
SERVERS_PER_RACK = 4


@dataclass(frozen=True)
class Slot:
    """Where a device stands: rack name, lowest rack unit (1 = bottom) and height in U."""

    rack: str
    position: int
    height: int


@dataclass
class RackPlan:
    """Racks in order, each with its devices bottom-up, and every device's slot."""

    racks: dict[str, list[str]] = field(default_factory=dict)
    slots: dict[str, Slot] = field(default_factory=dict)
    #: Height of each rack in U (the rack group's, else RACK_UNITS).
    heights: dict[str, int] = field(default_factory=dict)


def device_height(device: Device) -> int:
    """Rack units a device takes (:func:`fabricstudio.model.groups.u_height`)."""
    return u_height(device)


def rack_plan(design: Design) -> RackPlan:
    """Racks and positions of every device of ``design`` (deterministic)."""
    drawn = _drawn_racks(design)
    groups = [[i for i in group if i not in drawn.slots] for group in _groups(design)]
    groups = [group for group in groups if group]
    placed = {ident for group in groups for ident in group} | set(drawn.slots)
    network = [d.id for d in design.devices.values() if d.id not in placed]
    network.sort(key=lambda i: (_plane_order(design.devices[i]),
                                -DeviceKind(design.devices[i].kind).tier))
    packer = _Packer(design)
    for group in groups:
        packer.fill(group, new_rack=True)
    if network:
        packer.fill(network, new_rack=True)
    plan = packer.plan(taken=set(drawn.racks))
    heights = {**drawn.heights, **{rack: RACK_UNITS for rack in plan.racks}}
    return RackPlan(racks={**drawn.racks, **plan.racks}, slots={**drawn.slots, **plan.slots},
                    heights=heights)


def _drawn_racks(design: Any) -> RackPlan:
    """Racks and slots from the design's rack groups (empty when the model has none)."""
    groups = getattr(design, "groups", None) or {}
    if not isinstance(groups, Mapping):
        groups = {g.id: g for g in groups}
    plan = RackPlan()
    devices = design.devices
    for group in groups.values():
        if str(getattr(group, "kind", "")) != "rack":
            continue
        members = [m for m in group.members if m in devices and m not in plan.slots]
        given = {m: int(u) for m, u in (getattr(group, "u_positions", None) or {}).items()
                 if m in members}
        height = getattr(group, "height_u", None) or RACK_UNITS
        name = getattr(group, "label", None) or group.id
        free = _stack([devices[m] for m in members if m not in given], height,
                      [(u, device_height(devices[m])) for m, u in given.items()])
        for member in members:
            position = given.get(member, free.get(member, 1))
            plan.slots[member] = Slot(name, position, device_height(devices[member]))
        plan.racks[name] = sorted(members, key=lambda m: plan.slots[m].position)
        plan.heights[name] = height
    return plan


def _stack(members: Iterable[Device], height: int, taken: Iterable[tuple[int, int]]
           ) -> dict[str, int]:
    """Lowest U of each member around the units ``taken`` ((lowest U, height) pairs): servers
    from the bottom up, switches from the top down."""
    busy: set[int] = set()
    for u, h in taken:
        busy.update(range(u, u + h))
    out: dict[str, int] = {}
    bottom, top = 1, height
    for device in members:
        h = min(device_height(device), height)
        if device.is_switch:
            while top - h + 1 > 1 and busy & set(range(top - h + 1, top + 1)):
                top -= 1
            out[device.id] = top - h + 1
            busy.update(range(top - h + 1, top + 1))
            top -= h
        else:
            while busy & set(range(bottom, bottom + h)):
                bottom += 1
            out[device.id] = bottom
            busy.update(range(bottom, bottom + h))
            bottom += h
    return out


def _plane_order(device: Device) -> int:
    order = {Plane.COMPUTE: 0, Plane.STORAGE: 1, Plane.MANAGEMENT: 2}
    return order[device.planes[0]] if device.planes else 0


def _groups(design: Design) -> list[list[str]]:
    """Devices racked together: servers first (bottom), their rack switches on top."""
    devices = design.devices
    mgmt_racks: dict[str, list[str]] = {}
    for link in design.links.values():
        if link.plane is not Plane.MANAGEMENT:
            continue
        for switch, other in ((link.a, link.b), (link.b, link.a)):
            if (DeviceKind(devices[switch].kind) is DeviceKind.MGMT_SWITCH
                    and DeviceKind(devices[other].kind) in SERVER_KINDS):
                mgmt_racks.setdefault(switch, []).append(other)
    taken: set[str] = set()
    groups: list[list[str]] = []
    tor = {u.leaves[0]: u.servers for u in leaf_units(design) if len(u.leaves) == 1}
    for switch, servers in mgmt_racks.items():
        members = [s for s in servers if s not in taken]
        tops = [leaf for leaf, under in tor.items() if under and set(under) <= set(members)]
        groups.append(members + tops + [switch])
        taken.update(members, tops, [switch])
    for leaf, servers in tor.items():
        members = [s for s in servers if s not in taken]
        if members and leaf not in taken:
            groups.append(members + [leaf])
            taken.update(members, [leaf])
    loose = [d.id for d in devices.values()
             if DeviceKind(d.kind) in SERVER_KINDS and d.id not in taken]
    for kind in (DeviceKind.GPU_SERVER, DeviceKind.STORAGE_SERVER):
        of_kind = [i for i in loose if DeviceKind(devices[i].kind) is kind]
        groups += [of_kind[i:i + SERVERS_PER_RACK]
                   for i in range(0, len(of_kind), SERVERS_PER_RACK)]
    return groups


class _Packer:
    """Fills racks bottom-up, opening a new rack when a device does not fit."""

    def __init__(self, design: Design) -> None:
        self.design = design
        self.racks: list[list[tuple[str, int, int]]] = []
        self.used = 0

    def fill(self, devices: list[str], new_rack: bool) -> None:
        if new_rack or not self.racks:
            self._open()
        for ident in devices:
            height = min(device_height(self.design.devices[ident]), RACK_UNITS)
            if self.used + height > RACK_UNITS:
                self._open()
            self.racks[-1].append((ident, self.used + 1, height))
            self.used += height

    def _open(self) -> None:
        if self.racks and not self.racks[-1]:
            return
        self.racks.append([])
        self.used = 0

    def plan(self, taken: set[str] | None = None) -> RackPlan:
        plan = RackPlan()
        racks = [r for r in self.racks if r]
        width = len(str(len(racks)))
        number = 0
        for rack in racks:
            name = ""
            while not name or name in (taken or set()):
                number += 1
                name = f"rack{number:0{width}d}"
            plan.racks[name] = [ident for ident, _, _ in rack]
            for ident, position, height in rack:
                plan.slots[ident] = Slot(name, position, height)
        return plan
