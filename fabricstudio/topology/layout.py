"""Role-sorted auto-placement (core > spine > leaf > servers) for designs without positions.

With the design's links, each server stands in its leaf's rack (the leaf it is cabled to on
its network), racks wrap into blocks for a 16:10 screen and the tiers above are spread over
them; without links, servers stand in rows under the leaves.  The compute network is on the
left, the storage network to its right, management switches below the servers they serve.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from fabricstudio.model import Design, Device, DeviceKind, Link, Plane
from fabricstudio.topology.builders.fabric_layout import (
    clear_storage,
    place_management,
    place_storage,
    storage_ids,
)
from fabricstudio.topology.builders.placement import (
    BOTTOM,
    PITCH,
    TOP,
    UNIT_GAP,
    Block,
    arrange,
    rack_block,
    unit_block,
)
from fabricstudio.topology.builders.planes import MgmtPlan, StoragePlan
from fabricstudio.topology.builders.wiring import TierPlan

#: Servers in one row of a block of servers that no leaf claims.
LOOSE_ROW = 8
MGMT_AGG_ROW = 16
NETWORK_GAP = 4 * PITCH

Positions = dict[str, tuple[float, float]]


def _main_plane(device: Device) -> Plane:
    return device.planes[0] if device.planes else Plane.COMPUTE


def auto_layout(devices: Sequence[Device], links: Iterable[Link] = ()) -> Positions:
    """Positions for ``devices`` (deterministic); pass the design's ``links`` to put servers
    in their leaf's rack, storage leaves under the servers they serve and management
    switches under their racks."""
    links = list(links)
    by_plane: dict[Plane, list[Device]] = defaultdict(list)
    for device in devices:
        plane = _main_plane(device)
        if DeviceKind(device.kind) is DeviceKind.MGMT_SWITCH:
            plane = Plane.MANAGEMENT
        by_plane[plane].append(device)
    out: Positions = {}
    if by_plane.get(Plane.COMPUTE):
        _network_block(by_plane[Plane.COMPUTE], links, Plane.COMPUTE).place(0.0, 0.0, out)
    storage = by_plane.get(Plane.STORAGE, [])
    plan = _storage_plan(storage, links)
    if storage and out and _serves(plan.leaves, out, links):
        bottom = place_storage(plan, links, max(y for _, y in out.values()), out)
    elif storage:
        right = max((x for x, _ in out.values()), default=-NETWORK_GAP)
        _network_block(storage, links, Plane.STORAGE).place(right + NETWORK_GAP, 0.0, out)
    bottom = max((y for _, y in out.values()), default=0.0)
    if by_plane.get(Plane.MANAGEMENT):
        place_management(_mgmt_plan(by_plane[Plane.MANAGEMENT], links, out), bottom, links,
                         out)
        clear_storage(storage_ids(plan), links, out)
    return {ident: (round(x, 1), round(y, 1)) for ident, (x, y) in out.items()}


def _serves(leaves: Sequence[str], placed: Positions, links: Sequence[Link]) -> bool:
    """True when a cable joins one of ``leaves`` to an already placed device."""
    wanted = set(leaves)
    return any((lk.a in wanted and lk.b in placed) or (lk.b in wanted and lk.a in placed)
               for lk in links)


def _storage_plan(devices: Sequence[Device], links: Sequence[Link]) -> StoragePlan:
    """The storage network as the builders describe it: leaves, storage servers grouped under
    the leaf they are cabled to, spines and cores."""
    tiers: dict[int, list[str]] = defaultdict(list)
    for device in devices:
        tiers[DeviceKind(device.kind).tier].append(device.id)
    leaves, servers = tiers.get(1, []), tiers.get(0, [])
    wiring = _leaves_of_servers(set(leaves), set(servers), links, Plane.STORAGE)
    groups: dict[str, list[str]] = {leaf: [] for leaf in leaves}
    loose = []
    for server in servers:
        if server in wiring.homes:
            groups[wiring.homes[server][0]].append(server)
        else:
            loose.append(server)
    plan = StoragePlan(storage_servers=servers, leaves=leaves,
                       tiers=TierPlan(spines=tiers.get(2, []), cores=tiers.get(3, [])))
    plan.groups = [([leaf], members) for leaf, members in groups.items()]
    if loose:
        plan.groups.append(([], loose))
    return plan


def _mgmt_plan(switches: Sequence[Device], links: Sequence[Link], placed: Positions) -> MgmtPlan:
    """Switches cabled to placed devices are rack switches; the others aggregate them."""
    members: dict[str, list[str]] = {d.id: [] for d in switches}
    for link in links:
        for switch, other in ((link.a, link.b), (link.b, link.a)):
            if switch in members and other in placed and other not in members:
                members[switch].append(other)
    racks = [(ident, found) for ident, found in members.items() if found]
    rest = [ident for ident, found in members.items() if not found]
    if not racks:
        return MgmtPlan(racks=[(ident, []) for ident in rest])
    rows = [rest[i:i + MGMT_AGG_ROW] for i in range(0, len(rest), MGMT_AGG_ROW)]
    return MgmtPlan(racks=racks, aggregation=rows)


def _network_block(devices: Sequence[Device], links: Sequence[Link], plane: Plane) -> Block:
    """One network: racks (a leaf and the servers cabled to it) or units (leaves sharing
    their servers, as rails do) under spines and cores."""
    tiers: dict[int, list[str]] = defaultdict(list)
    for device in devices:
        tiers[DeviceKind(device.kind).tier].append(device.id)
    leaves, servers = tiers.get(1, []), tiers.get(0, [])
    wiring = _leaves_of_servers(set(leaves), set(servers), links, plane)
    above = [tiers[t] for t in (2, 3) if tiers.get(t)]
    blocks = []
    if wiring.homes:
        for unit in _units(leaves, servers, wiring):
            unit_leaves, unit_servers = unit
            if len(unit_leaves) == 1:
                blocks.append(rack_block(unit_leaves[0], unit_servers, wiring.bundled))
            else:
                blocks.append(unit_block(unit_leaves, unit_servers))
    else:
        above = ([leaves] if leaves else []) + above
    loose = [s for s in servers if s not in wiring.homes]
    blocks += [_row_block(loose[i:i + LOOSE_ROW]) for i in range(0, len(loose), LOOSE_ROW)]
    return arrange(blocks, above, UNIT_GAP)


@dataclass
class _Wiring:
    """The leaves each server is cabled to (in link order) and whether any server has
    several cables to one leaf (drawn as a labelled bundle)."""

    homes: dict[str, list[str]] = field(default_factory=dict)
    bundled: bool = False


def _leaves_of_servers(leaves: set[str], servers: set[str], links: Sequence[Link],
                       plane: Plane) -> _Wiring:
    wiring = _Wiring()
    for link in links:
        if link.plane is not plane:
            continue
        for server, leaf in ((link.a, link.b), (link.b, link.a)):
            if server in servers and leaf in leaves:
                homes = wiring.homes.setdefault(server, [])
                if leaf in homes:
                    wiring.bundled = True
                else:
                    homes.append(leaf)
    return wiring


def _units(leaves: Sequence[str], servers: Sequence[str],
           wiring: _Wiring) -> list[tuple[list[str], list[str]]]:
    """Leaves joined by shared servers form one unit, each with the servers cabled to it; in
    the order of the leaves."""
    parent = {leaf: leaf for leaf in leaves}

    def root(leaf: str) -> str:
        while parent[leaf] != leaf:
            parent[leaf] = parent[parent[leaf]]
            leaf = parent[leaf]
        return leaf

    for homes in wiring.homes.values():
        for other in homes[1:]:
            a, b = root(homes[0]), root(other)
            if a != b:
                parent[max(a, b, key=leaves.index)] = min(a, b, key=leaves.index)
    units: dict[str, tuple[list[str], list[str]]] = {}
    for leaf in leaves:
        units.setdefault(root(leaf), ([], []))[0].append(leaf)
    for server in servers:
        if server in wiring.homes:
            units[root(wiring.homes[server][0])][1].append(server)
    return list(units.values())


def _row_block(servers: Sequence[str]) -> Block:
    block = Block(width=len(servers) * PITCH, height=TOP + BOTTOM)
    for i, server in enumerate(servers):
        block.pos[server] = (PITCH / 2 + i * PITCH, TOP)
    block.top_xs = [x for x, _ in block.pos.values()]
    return block


def design_layout(design: Design) -> Positions:
    """:func:`auto_layout` of a whole design, racks grouped by its links."""
    return auto_layout(list(design.devices.values()), design.links.values())


def needs_layout(design: Design) -> bool:
    """True when several devices share one position (e.g. a hand-written file without x/y)."""
    seen = set()
    for device in design.devices.values():
        key = (device.x, device.y)
        if key in seen:
            return True
        seen.add(key)
    return False
