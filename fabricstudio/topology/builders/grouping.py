"""Racks, scalable units and pods of a built fabric (the design's groups).

Physical racks: GPU servers in racks of ``servers_per_rack`` that never straddle a scalable
unit, a pod or a top-of-rack leaf's servers; each rack also holds its top-of-rack leaf (the
leaf of its first server, leaf-spine and fat tree) and its management switch.  Switches with
no server rack (rail leaves, spines, cores, storage and management aggregation switches) go to
network racks of at most :data:`NETWORK_RACK_SWITCHES`.  Logical groups: a scalable unit holds
its server racks and the network rack of its rail leaves; a pod holds its scalable units (or
racks, in a fat tree) and the network racks of its spines.

U positions: servers stack up from U1 in member order, switches hang down from the top U.
"""

from __future__ import annotations

from collections.abc import Sequence

from fabricstudio.model import Device, Group, GroupKind, Link, Plane
from fabricstudio.model.groups import STANDARD_RACK_U, u_height
from fabricstudio.topology.builders.families import ComputePlan
from fabricstudio.topology.builders.planes import MgmtPlan, StoragePlan

#: Switches per network rack.  An assumption, not a measured figure: a 42U rack could take
#: more 1U switches, but 64-port switches need room for their cables and patch panels.
NETWORK_RACK_SWITCHES = 16
#: Racks taller than the standard 42U that the generator may use when the gear does not fit.
TALL_RACK_U = 48


def server_racks(plan: ComputePlan, per_rack: int) -> list[list[str]]:
    """GPU servers in racks of ``per_rack``, chunked within each rack/unit/pod group so that
    no rack straddles two of them (each server in one rack, in server order)."""
    racks: list[list[str]] = []
    seen: set[str] = set()
    for _leaves, members in plan.groups:
        mine = [s for s in members if s not in seen]
        seen.update(mine)
        racks += [mine[i:i + per_rack] for i in range(0, len(mine), per_rack)]
    rest = [s for s in plan.servers if s not in seen]
    racks += [rest[i:i + per_rack] for i in range(0, len(rest), per_rack)]
    return racks


def chunks(ids: Sequence[str], size: int) -> list[list[str]]:
    """``ids`` in consecutive lists of at most ``size``."""
    return [list(ids[i:i + size]) for i in range(0, len(ids), size)]


class _Racks:
    """Numbers racks and records which rack holds each device."""

    def __init__(self, devices: dict[str, Device]) -> None:
        self.devices = devices
        self.groups: list[Group] = []
        self.rack_of: dict[str, str] = {}
        self._server_n = 0
        self._net_n = 0

    def server_rack(self, members: list[str]) -> str:
        self._server_n += 1
        return self._add(f"rack{self._server_n}", members)

    def network_racks(self, switches: Sequence[str]) -> list[str]:
        ids = []
        for chunk in chunks(switches, NETWORK_RACK_SWITCHES):
            self._net_n += 1
            ids.append(self._add(f"netrack{self._net_n}", chunk))
        return ids

    def _add(self, rack_id: str, members: list[str]) -> str:
        height, positions = _stack(members, self.devices)
        self.groups.append(Group(id=rack_id, kind=GroupKind.RACK, members=tuple(members),
                                 height_u=height, u_positions=positions))
        for member in members:
            self.rack_of[member] = rack_id
        return rack_id


def _stack(members: Sequence[str], devices: dict[str, Device]
           ) -> tuple[int | None, dict[str, int]]:
    """Rack height and U positions: servers up from U1, switches down from the top."""
    heights = {m: u_height(devices[m]) for m in members}
    total = sum(heights.values())
    height = next((h for h in (STANDARD_RACK_U, TALL_RACK_U) if total <= h), None)
    if height is None:
        return None, {}
    positions: dict[str, int] = {}
    bottom, top = 1, height + 1
    for member in members:
        if devices[member].is_switch:
            top -= heights[member]
            positions[member] = top
        else:
            positions[member] = bottom
            bottom += heights[member]
    return height, positions


def _first_server_of(leaves: set[str], links: Sequence[Link]) -> dict[str, str]:
    """Each leaf's first cabled server (compute network)."""
    first: dict[str, str] = {}
    for link in links:
        if link.plane is Plane.COMPUTE and link.b in leaves:
            first.setdefault(link.b, link.a)
    return first


def make_groups(plan: ComputePlan, storage: StoragePlan, mgmt: MgmtPlan,
                racks: Sequence[Sequence[str]], storage_racks: Sequence[Sequence[str]],
                devices: Sequence[Device], links: Sequence[Link]) -> list[Group]:
    """Every group of a built fabric, inner groups before the groups holding them."""
    by_id = {d.id: d for d in devices}
    mgmt_of = {m: switch for switch, members in mgmt.racks for m in members}
    tor: dict[str, list[str]] = {}
    if plan.servers_by_leaf:
        for leaf, server in _first_server_of(set(plan.leaves), links).items():
            tor.setdefault(server, []).append(leaf)
    racks_out = _Racks(by_id)
    for members in racks:
        extra = [leaf for s in members for leaf in tor.get(s, [])]
        switch = mgmt_of.get(members[0]) if members else None
        racks_out.server_rack(list(members) + extra + ([switch] if switch else []))
    units: list[Group] = []
    su_of_leaf: dict[str, str] = {}
    if not plan.servers_by_leaf:  # rail-optimised: one scalable unit per group
        for u, (leaves, servers) in enumerate(plan.groups, start=1):
            server_racks_ = list(dict.fromkeys(racks_out.rack_of[s] for s in servers))
            net = racks_out.network_racks(leaves)
            units.append(Group(id=f"su{u}", kind=GroupKind.SCALABLE_UNIT, name=f"SU {u}",
                               members=tuple(server_racks_ + net)))
            for leaf in leaves:
                su_of_leaf[leaf] = units[-1].id
    pods = _pods(plan, racks_out, su_of_leaf, links)
    placed = set(racks_out.rack_of)
    loose = [d for d in plan.tiers.cores + plan.tiers.spines + plan.leaves if d not in placed]
    racks_out.network_racks(loose)
    for members in storage_racks:
        switch = mgmt_of.get(members[0]) if members else None
        racks_out.server_rack(list(members) + ([switch] if switch else []))
    storage_switches = storage.leaves + storage.tiers.spines + storage.tiers.cores
    racks_out.network_racks([s for s in storage_switches if s not in racks_out.rack_of])
    aggregation = [s for row in mgmt.aggregation for s in row]
    racks_out.network_racks([s for s in aggregation if s not in racks_out.rack_of])
    unassigned = [d.id for d in devices if d.id not in racks_out.rack_of]
    racks_out.network_racks([d for d in unassigned if by_id[d].is_switch])
    return racks_out.groups + units + pods


def _pods(plan: ComputePlan, racks: _Racks, su_of_leaf: dict[str, str],
          links: Sequence[Link]) -> list[Group]:
    """Pods of a three-tier fabric: their units (or racks) and their spines' network racks."""
    if not plan.tiers.pod_spines:
        return []
    pod_of_spine = {s: p for p, spines in enumerate(plan.tiers.pod_spines) for s in spines}
    leaves = set(plan.leaves)
    pod_of_leaf: dict[str, int] = {}
    for link in links:
        if link.plane is Plane.COMPUTE and link.a in leaves and link.b in pod_of_spine:
            pod_of_leaf.setdefault(link.a, pod_of_spine[link.b])
    members: list[list[str]] = [[] for _ in plan.tiers.pod_spines]
    claimed: set[str] = set()

    def claim(pod: int, holder: str | None) -> None:
        if holder is not None and holder not in claimed:
            claimed.add(holder)
            members[pod].append(holder)

    for leaf in plan.leaves:
        if leaf in pod_of_leaf:
            claim(pod_of_leaf[leaf], su_of_leaf.get(leaf) or racks.rack_of.get(leaf))
    if not su_of_leaf:  # fat tree: the racks of the pod's servers too (leaf racks first)
        for group_leaves, servers in plan.groups:
            pods_here = {pod_of_leaf[leaf] for leaf in group_leaves if leaf in pod_of_leaf}
            if len(pods_here) == 1:
                pod = pods_here.pop()
                for server in servers:
                    claim(pod, racks.rack_of.get(server))
    out = []
    for p, spines in enumerate(plan.tiers.pod_spines):
        net = racks.network_racks(spines)
        if members[p] or net:
            out.append(Group(id=f"pod{p + 1}", kind=GroupKind.POD, name=f"Pod {p + 1}",
                             members=tuple(members[p] + net)))
    return out
