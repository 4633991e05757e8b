"""The optional storage and management networks added beside a compute fabric."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fabricstudio.model import MgmtSwitch, Plane, StorageServer
from fabricstudio.topology.builders.specs import AnySpec, BuildError
from fabricstudio.topology.builders.wiring import (
    Accumulator,
    SwitchTemplate,
    TierPlan,
    new_leaf,
    split_radix,
    three_tier,
    two_tier,
)

#: Management switches: 48 x 1 GbE, one per rack, aggregated in a tree.
MGMT_RADIX = 48
MGMT_SPEED_GBPS = 1.0
IN_RACK_M = 3.0
STORAGE_SERVER_NICS = 2


@dataclass
class StoragePlan:
    """What the storage network consists of."""

    storage_servers: list[str] = field(default_factory=list)
    leaves: list[str] = field(default_factory=list)
    tiers: TierPlan = field(default_factory=TierPlan)
    #: (leaf ids, storage server ids) per group, for the layout.
    groups: list[tuple[list[str], list[str]]] = field(default_factory=list)


@dataclass
class MgmtPlan:
    """Rack management switches, each with the devices it serves, and the aggregation tree."""

    racks: list[tuple[str, list[str]]] = field(default_factory=list)
    aggregation: list[list[str]] = field(default_factory=list)


def build_storage(acc: Accumulator, spec: AnySpec, gpu_servers: list[str]) -> StoragePlan:
    """Storage servers with two storage NICs each, and a non-blocking storage leaf-spine that
    also takes the one storage NIC of every GPU server (three tiers when two cannot reach).
    Storage switches run their ports at the storage NIC speed."""
    plan = StoragePlan()
    if not spec.storage_servers:
        return plan
    _check_storage_reach(spec, len(gpu_servers))
    planes = (Plane.STORAGE, Plane.MANAGEMENT) if spec.management else (Plane.STORAGE,)
    for i in range(1, spec.storage_servers + 1):
        plan.storage_servers.append(acc.add(StorageServer(
            id=f"storage{i}", storage_nics=STORAGE_SERVER_NICS,
            storage_nic_speed_gbps=spec.storage_nic_speed_gbps, planes=planes)))
    tpl = SwitchTemplate(radix=spec.switch_radix, speed=spec.storage_nic_speed_gbps,
                         uplink_m=spec.uplink_cable_m, core_m=spec.core_cable_m,
                         plane=Plane.STORAGE, id_prefix="s")
    speed = spec.storage_nic_speed_gbps
    down, up = split_radix(spec.switch_radix, speed, speed, 1.0)
    ends = [(s, spec.nics_per_server, f"{s}-stor0") for s in gpu_servers]
    ends += [(s, p, f"{s}-stor{p}") for s in plan.storage_servers
             for p in range(STORAGE_SERVER_NICS)]
    leaves_n = math.ceil(len(ends) / down)
    for i in range(leaves_n):
        leaf = new_leaf(acc, i + 1, tpl)
        plan.leaves.append(leaf)
        chunk = ends[i * down:(i + 1) * down]
        for device, port, link_id in chunk:
            acc.connect(device, leaf, a_port=port, speed=speed, length=spec.uplink_cable_m,
                        plane=Plane.STORAGE, link_id=link_id)
        storage_here = dict.fromkeys(d for d, _, _ in chunk if d in plan.storage_servers)
        plan.groups.append(([leaf], list(storage_here)))
    if leaves_n <= spec.switch_radix:
        plan.tiers = two_tier(acc, plan.leaves, up, tpl, what="storage network: ")
    else:
        per_pod = spec.switch_radix // 2
        pods = [plan.leaves[i:i + per_pod] for i in range(0, leaves_n, per_pod)]
        try:
            plan.tiers = three_tier(acc, pods, up, per_pod, tpl)
        except BuildError as exc:
            raise BuildError(f"storage network: {exc}") from None
    return plan


def _check_storage_reach(spec: AnySpec, gpu_servers: int) -> None:
    """BuildError before anything is built when the storage fabric cannot reach every end
    (a three-tier fabric of radix k has at most k pods of k/2 leaves)."""
    down, _ = split_radix(spec.switch_radix, spec.storage_nic_speed_gbps,
                          spec.storage_nic_speed_gbps, 1.0)
    radix = spec.switch_radix
    most_ends = radix * (radix // 2) * down
    ends = gpu_servers + STORAGE_SERVER_NICS * spec.storage_servers
    if ends > most_ends:
        room = max(0, (most_ends - gpu_servers) // STORAGE_SERVER_NICS)
        raise BuildError(f"storage network: {spec.storage_servers:,} storage servers and "
                         f"{gpu_servers:,} GPU servers need {ends:,} storage ports; radix-"
                         f"{radix} switches reach at most {most_ends:,} (at most {room:,} "
                         "storage servers here)")


def build_management(acc: Accumulator, spec: AnySpec, racks: list[list[str]]) -> MgmtPlan:
    """One 48-port management switch per rack (``racks``: the servers of each rack, at most
    ``servers_per_rack``; storage servers racked separately), one link per server, rack
    switches joined by an aggregation tree.

    Switch out-of-band ports are not drawn: a switch's radix counts its data ports only.
    """
    plan = MgmtPlan()
    if not spec.management:
        return plan
    per_rack = spec.servers_per_rack
    if per_rack > MGMT_RADIX - 1:
        raise BuildError(f"servers per rack {per_rack}: a {MGMT_RADIX}-port management switch "
                         f"serves at most {MGMT_RADIX - 1} (one port is its uplink)")
    devices = {d.id: d for d in acc.devices}
    for r, members in enumerate(racks, start=1):
        switch = acc.add(MgmtSwitch(id=f"mgmt{r}", radix=MGMT_RADIX,
                                    port_speed_gbps=MGMT_SPEED_GBPS))
        for device in members:
            port = devices[device].ports_for_plane(Plane.MANAGEMENT)[0]
            acc.connect(device, switch, a_port=port, speed=MGMT_SPEED_GBPS, length=IN_RACK_M,
                        plane=Plane.MANAGEMENT, link_id=f"{device}-mgmt")
        plan.racks.append((switch, members))
    level = [switch for switch, _ in plan.racks]
    number = 0
    while len(level) > 1:
        parents = []
        for i in range(0, len(level), MGMT_RADIX - 1):
            number += 1
            parent = acc.add(MgmtSwitch(id=f"mgmt-agg{number}", radix=MGMT_RADIX,
                                        port_speed_gbps=MGMT_SPEED_GBPS))
            for child in level[i:i + MGMT_RADIX - 1]:
                acc.connect(child, parent, speed=MGMT_SPEED_GBPS, length=spec.uplink_cable_m,
                            plane=Plane.MANAGEMENT)
            parents.append(parent)
        plan.aggregation.append(parents)
        level = parents
    return plan
