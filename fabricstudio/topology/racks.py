"""Where each device stands: rack and rack unit, for the cable plan.

:func:`rack_slots` is the one place that answers it.  A design whose model holds rack groups
(``design.groups`` with ``kind == "rack"``, their ``u_positions`` and ``height_u``) is read
as drawn; devices outside every rack, and designs without rack groups, get racks derived the
way the generators build fabrics:

* a management switch with the servers cabled to it is a rack (the generators put one per
  rack of ``servers_per_rack`` servers), with the top-of-rack leaf of those servers;
* otherwise a leaf whose servers plug all their compute NICs into it (top of rack) is a
  rack with those servers;
* servers left over stand four to a rack (DGX SuperPOD: four 8U systems per rack), storage
  servers eight to a rack;
* spines, cores, rail leaves, storage switches and management aggregation stand in network
  racks, twenty switches to a rack.

U positions count from 1 at the bottom: switches from the top down (U42 first), servers
from U1 up.  A server rack that would overflow continues in a second rack.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fabricstudio.model import Design, DesignData, Device, DeviceKind, Link, Plane

RACK_HEIGHT_U = 42
#: Default heights (U): 8-GPU HGX/DGX servers 8U, storage nodes 2U, switches 1U.
DEFAULT_HEIGHT_U = {DeviceKind.GPU_SERVER: 8, DeviceKind.STORAGE_SERVER: 2,
                    DeviceKind.LEAF: 1, DeviceKind.SPINE: 1, DeviceKind.CORE: 1,
                    DeviceKind.MGMT_SWITCH: 1}
GPU_SERVERS_PER_RACK = 4
STORAGE_SERVERS_PER_RACK = 8
SWITCHES_PER_NETWORK_RACK = 20


@dataclass(frozen=True)
class RackSlot:
    """A device's place: ``rack`` name and lowest unit ``u`` (1 = bottom)."""

    rack: str
    u: int
    height_u: int
    derived: bool = True


def height_u(device: Device) -> int:
    """Rack units a device occupies."""
    return DEFAULT_HEIGHT_U[DeviceKind(device.kind)]


def rack_slots(design: Design | DesignData) -> dict[str, RackSlot]:
    """Rack and U of every device of ``design`` (rack groups first, then derived)."""
    devices, links = _contents(design)
    slots = _from_groups(design, devices)
    rest = {d: dev for d, dev in devices.items() if d not in slots}
    if rest:
        used = {slot.rack for slot in slots.values()}
        slots.update(_derive(rest, [lk for lk in links if lk.a in rest and lk.b in rest],
                             used))
    return slots


def _contents(design: Design | DesignData) -> tuple[dict[str, Device], list[Link]]:
    if isinstance(design, Design):
        return dict(design.devices), list(design.links.values())
    return {d.id: d for d in design.nodes}, list(design.links)


def _from_groups(design: Any, devices: Mapping[str, Device]) -> dict[str, RackSlot]:
    """Slots from the design's rack groups (none when the model has no groups)."""
    groups = getattr(design, "groups", None) or {}
    if not isinstance(groups, Mapping):
        groups = {g.id: g for g in groups}
    slots: dict[str, RackSlot] = {}
    for group in groups.values():
        if str(getattr(group, "kind", "")) != "rack":
            continue
        members = [m for m in group.members if m in devices]
        given = dict(getattr(group, "u_positions", {}) or {})
        height = getattr(group, "height_u", None) or RACK_HEIGHT_U
        name = getattr(group, "label", None) or group.id
        stacked = _stack([devices[m] for m in members if m not in given], height,
                         taken=[(given[m], height_u(devices[m])) for m in members if m in given])
        for member in members:
            if member in given:
                slots[member] = RackSlot(name, int(given[member]), height_u(devices[member]),
                                         derived=False)
            else:
                slots[member] = RackSlot(name, stacked[member], height_u(devices[member]))
    return slots


def _stack(members: Iterable[Device], height: int, taken: Iterable[tuple[int, int]] = ()
           ) -> dict[str, int]:
    """U of each member: switches from the top down, servers from the bottom up, around the
    units already ``taken`` ((lowest U, height) pairs).  Past the top: keeps counting."""
    busy: set[int] = set()
    for u, h in taken:
        busy.update(range(u, u + h))
    out: dict[str, int] = {}
    top = height
    bottom = 1
    for device in members:
        h = height_u(device)
        if device.is_switch:
            while any(u in busy for u in range(top - h + 1, top + 1)) and top > h:
                top -= 1
            out[device.id] = top - h + 1
            busy.update(range(top - h + 1, top + 1))
            top -= h
        else:
            while any(u in busy for u in range(bottom, bottom + h)):
                bottom += 1
            out[device.id] = bottom
            busy.update(range(bottom, bottom + h))
            bottom += h
    return out


def _derive(devices: Mapping[str, Device], links: list[Link], used: set[str]
            ) -> dict[str, RackSlot]:
    """Racks for devices outside every rack group."""
    neighbours: dict[str, list[Link]] = defaultdict(list)
    for link in links:
        neighbours[link.a].append(link)
        neighbours[link.b].append(link)
    racks: list[tuple[str, list[Device]]] = []
    placed: set[str] = set()
    tor = _top_of_rack_leaves(devices, neighbours)

    def server_links(switch_id: str, plane: Plane) -> list[str]:
        return [lk.other_end(switch_id) for lk in neighbours[switch_id]
                if lk.plane is plane and not devices[lk.other_end(switch_id)].is_switch]

    for mgmt in (d for d in devices.values() if DeviceKind(d.kind) is DeviceKind.MGMT_SWITCH):
        servers = [s for s in dict.fromkeys(server_links(mgmt.id, Plane.MANAGEMENT))
                   if s not in placed]
        if not servers:
            continue
        mine = set(servers)
        leaves = [leaf for leaf, members in tor.items()
                  if leaf not in placed and 2 * sum(m in mine for m in members) >= len(members)]
        members = [mgmt, *(devices[lf] for lf in leaves), *(devices[s] for s in servers)]
        racks.append(("gpu" if _has_gpus(members) else "storage", members))
        placed.update(d.id for d in members)
    for leaf, servers in tor.items():
        if leaf in placed:
            continue
        members = [devices[leaf], *(devices[s] for s in servers if s not in placed)]
        racks.append(("gpu", members))
        placed.update(d.id for d in members)
    for kind, per_rack in ((DeviceKind.GPU_SERVER, GPU_SERVERS_PER_RACK),
                           (DeviceKind.STORAGE_SERVER, STORAGE_SERVERS_PER_RACK)):
        rest = [d for d in devices.values() if DeviceKind(d.kind) is kind and d.id not in placed]
        for i in range(0, len(rest), per_rack):
            racks.append(("gpu" if kind is DeviceKind.GPU_SERVER else "storage",
                          rest[i:i + per_rack]))
            placed.update(d.id for d in rest[i:i + per_rack])
    switches = sorted((d for d in devices.values() if d.id not in placed),
                      key=lambda d: (DeviceKind(d.kind).tier, list(devices).index(d.id)))
    for i in range(0, len(switches), SWITCHES_PER_NETWORK_RACK):
        racks.append(("network", switches[i:i + SWITCHES_PER_NETWORK_RACK]))
    return _name_and_stack(racks, used)


def _has_gpus(members: list[Device]) -> bool:
    return any(DeviceKind(d.kind) is DeviceKind.GPU_SERVER for d in members)


def _top_of_rack_leaves(devices: Mapping[str, Device], neighbours: Mapping[str, list[Link]]
                        ) -> dict[str, list[str]]:
    """Leaves whose servers plug every compute NIC into them: leaf -> its servers."""
    out: dict[str, list[str]] = {}
    home: dict[str, set[str]] = defaultdict(set)
    for device in devices.values():
        if DeviceKind(device.kind) is not DeviceKind.GPU_SERVER:
            continue
        for link in neighbours.get(device.id, []):
            if link.plane is Plane.COMPUTE:
                home[device.id].add(link.other_end(device.id))
    for server, leaves in home.items():
        if len(leaves) == 1:
            leaf = next(iter(leaves))
            if DeviceKind(devices[leaf].kind) is DeviceKind.LEAF:
                out.setdefault(leaf, []).append(server)
    return out


def _name_and_stack(racks: list[tuple[str, list[Device]]], used: set[str]
                    ) -> dict[str, RackSlot]:
    counters = {"gpu": 0, "storage": 0, "network": 0}
    prefix = {"gpu": "R", "storage": "S", "network": "N"}
    slots: dict[str, RackSlot] = {}
    for kind, members in racks:
        for part in _split(members):
            name = ""
            while not name or name in used:
                counters[kind] += 1
                name = f"{prefix[kind]}{counters[kind]:03d}"
            used.add(name)
            positions = _stack(part, RACK_HEIGHT_U)
            for device in part:
                slots[device.id] = RackSlot(name, positions[device.id], height_u(device))
    return slots


def _split(members: list[Device]) -> list[list[Device]]:
    """Members in racks of at most RACK_HEIGHT_U: switches stay in the first rack."""
    switches = [d for d in members if d.is_switch]
    servers = [d for d in members if not d.is_switch]
    parts: list[list[Device]] = [list(switches)]
    room = RACK_HEIGHT_U - sum(height_u(d) for d in switches)
    for device in servers:
        h = height_u(device)
        if h > room and parts[-1]:
            parts.append([])
            room = RACK_HEIGHT_U
        parts[-1].append(device)
        room -= h
    return [p for p in parts if p]
