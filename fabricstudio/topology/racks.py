"""Racks and rack-unit positions of a design's devices.

:func:`rack_plan` is the one place exports (NetBox, cable plans) ask where a device stands.
Until the model has rack groups of its own it derives them from the wiring, as the generators
build fabrics: a rack is a management switch with the servers it serves (the generators put
one per rack), or else a top-of-rack leaf with its servers; servers of rail-optimised units
fill racks in design order; the remaining switches (rail leaves, spines, cores, aggregation)
fill network racks.  Heights: an 8-GPU server is 8 U (NVIDIA DGX H100 user guide: 8U), smaller
GPU servers 4 U, storage servers 2 U, switches 1 U up to 25.6 Tb/s (QM9700: 64 x 400G in 1U)
and 2 U above (SN5600: 64 x 800G in 2U).  Racks are 42 U.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fabricstudio.model import Design, Device, DeviceKind, Plane
from fabricstudio.topology.groups import SERVER_KINDS, leaf_units

RACK_UNITS = 42
#: Servers placed together when nothing else groups them (DGX SuperPOD: 4 DGX per rack).
SERVERS_PER_RACK = 4
ONE_U_MAX_GBPS = 25_600.0


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


def device_height(device: Device) -> int:
    """Rack units a device takes."""
    kind = DeviceKind(device.kind)
    if kind is DeviceKind.GPU_SERVER:
        return 8 if device.gpus >= 8 else 4  # type: ignore[union-attr]
    if kind is DeviceKind.STORAGE_SERVER:
        return 2
    capacity = device.radix * device.port_speed_gbps  # type: ignore[union-attr]
    return 1 if capacity <= ONE_U_MAX_GBPS else 2


def rack_plan(design: Design) -> RackPlan:
    """Racks and positions of every device of ``design`` (deterministic)."""
    groups = _groups(design)
    placed = {ident for group in groups for ident in group}
    network = [d.id for d in design.devices.values() if d.id not in placed]
    network.sort(key=lambda i: (_plane_order(design.devices[i]),
                                -DeviceKind(design.devices[i].kind).tier))
    packer = _Packer(design)
    for group in groups:
        packer.fill(group, new_rack=True)
    if network:
        packer.fill(network, new_rack=True)
    return packer.plan()


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

    def plan(self) -> RackPlan:
        plan = RackPlan()
        racks = [r for r in self.racks if r]
        width = len(str(len(racks)))
        for number, rack in enumerate(racks, start=1):
            name = f"rack{number:0{width}d}"
            plan.racks[name] = [ident for ident, _, _ in rack]
            for ident, position, height in rack:
                plan.slots[ident] = Slot(name, position, height)
        return plan
