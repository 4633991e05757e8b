"""The three compute-fabric families: leaf-spine, k-ary fat tree and rail-optimised.

Each ``build_*`` function adds the GPU servers, leaves and upper tiers to an accumulator and
returns a :class:`ComputePlan` describing what it made (for the summary and the layout).
Hosts are GPU NICs: a server with 8 NICs is 8 endpoints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from fabricstudio.model import GpuServer, Plane
from fabricstudio.topology.builders.specs import (
    AnySpec,
    BuildError,
    FatTreeSpec,
    LeafSpineSpec,
    RailOptimizedSpec,
    fmt_int,
    server_count,
)
from fabricstudio.topology.builders.wiring import (
    Accumulator,
    SwitchTemplate,
    TierPlan,
    capacity_message,
    new_leaf,
    split_radix,
    three_tier,
    two_tier,
    uplinks_needed,
)

#: Default server-to-leaf cable: in-rack DAC for a top-of-rack leaf, AOC to a rail leaf.
TOR_CABLE_M = 3.0
RAIL_CABLE_M = 15.0


@dataclass
class ComputePlan:
    """The compute network a family built."""

    servers: list[str]
    leaves: list[str]
    tiers: TierPlan
    #: Layout groups: (leaf ids, server ids) per top-of-rack leaf, scalable unit or pod.
    groups: list[tuple[list[str], list[str]]]
    down_per_leaf: int
    up_per_leaf: int
    leaf_down_speed: float
    max_gpus: int
    #: True when each group lists its servers leaf by leaf (top-of-rack, fat tree).
    servers_by_leaf: bool = False
    facts: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _template(spec: AnySpec, plane: Plane = Plane.COMPUTE, prefix: str = "") -> SwitchTemplate:
    return SwitchTemplate(radix=spec.switch_radix, speed=spec.port_speed_gbps,
                          uplink_m=spec.uplink_cable_m, core_m=spec.core_cable_m,
                          plane=plane, id_prefix=prefix)


def add_servers(acc: Accumulator, spec: AnySpec, count: int) -> list[str]:
    """GPU servers server1..serverN with the planes the spec asks for."""
    planes = [Plane.COMPUTE]
    if spec.storage_servers:
        planes.append(Plane.STORAGE)
    if spec.management:
        planes.append(Plane.MANAGEMENT)
    ids = []
    for i in range(1, count + 1):
        ids.append(acc.add(GpuServer(
            id=f"server{i}", gpus=spec.gpus_per_server, nics=spec.nics_per_server,
            nic_speed_gbps=spec.nic_speed_gbps, storage_nics=1 if spec.storage_servers else 0,
            storage_nic_speed_gbps=spec.storage_nic_speed_gbps, planes=tuple(planes),
        )))
    return ids


def _nic_link(acc: Accumulator, server: str, nic: int, leaf: str, speed: float,
              length: float) -> None:
    acc.connect(server, leaf, a_port=nic, speed=speed, length=length, plane=Plane.COMPUTE,
                link_id=f"{server}-nic{nic}")


def _leaf_ports(spec: AnySpec) -> tuple[int, int, float]:
    down_speed = min(spec.nic_speed_gbps, spec.port_speed_gbps)
    down, up = split_radix(spec.switch_radix, down_speed, spec.port_speed_gbps,
                           spec.oversubscription)
    return down, up, down_speed


def build_leaf_spine(acc: Accumulator, spec: LeafSpineSpec) -> ComputePlan:
    """Two tiers; all NICs of a server on one top-of-rack leaf."""
    n = spec.nics_per_server
    down_max, _, down_speed = _leaf_ports(spec)
    per_leaf = spec.servers_per_leaf or down_max // n
    if per_leaf < 1 or per_leaf * n > down_max:
        raise BuildError(f"{max(per_leaf, 1)} server(s) x {n} NICs do not fit the {down_max} "
                         f"down ports of a radix-{spec.switch_radix} leaf at "
                         f"{spec.oversubscription:g}:1 (servers_per_leaf / nics_per_server)")
    hosts_per_leaf = per_leaf * n
    up = uplinks_needed(hosts_per_leaf, down_speed, spec.port_speed_gbps, spec.oversubscription)
    max_gpus = spec.switch_radix * per_leaf * spec.gpus_per_server
    servers_n = server_count(spec)
    leaves_n = math.ceil(servers_n / per_leaf)
    if leaves_n > spec.switch_radix:
        raise BuildError(capacity_message(servers_n * spec.gpus_per_server, 2,
                                          spec.switch_radix, max_gpus))
    tpl = _template(spec)
    servers = add_servers(acc, spec, servers_n)
    length = spec.server_cable_m or TOR_CABLE_M
    leaves, groups = [], []
    for i in range(leaves_n):
        leaf = new_leaf(acc, i + 1, tpl)
        leaves.append(leaf)
        members = servers[i * per_leaf:(i + 1) * per_leaf]
        groups.append(([leaf], members))
        for server in members:
            for nic in range(n):
                _nic_link(acc, server, nic, leaf, down_speed, length)
    tiers = two_tier(acc, leaves, up, tpl, spec.spines)
    plan = ComputePlan(servers, leaves, tiers, groups, hosts_per_leaf, up, down_speed, max_gpus,
                       servers_by_leaf=True)
    plan.facts = {"servers_per_leaf": per_leaf}
    if leaves_n == 1:
        plan.up_per_leaf = 0
        plan.notes.append("one leaf serves every server: no spine tier is needed")
    return plan


def build_fat_tree(acc: Accumulator, spec: FatTreeSpec) -> ComputePlan:
    """Three tiers in pods; NICs fill edge (leaf) ports in order, so k^3/4 hosts for radix k."""
    down, up, down_speed = _leaf_ports(spec)
    radix = spec.switch_radix
    per_pod = spec.leaves_per_pod or radix // 2
    if not 1 <= per_pod <= radix // 2:
        raise BuildError(f"leaves per pod {per_pod}: must be between 1 and {radix // 2} "
                         f"(half the radix, so spines have as many up as down ports)")
    max_hosts = radix * per_pod * down
    n = spec.nics_per_server
    max_gpus = max_hosts // n * spec.gpus_per_server
    servers_n = server_count(spec, full_size=max_hosts // n)
    if servers_n < 1:
        raise BuildError(f"a {n}-NIC server does not fit a radix-{radix} fat tree "
                         f"({fmt_int(max_hosts)} host ports)")
    hosts = servers_n * n
    if hosts > max_hosts:
        raise BuildError(capacity_message(servers_n * spec.gpus_per_server, 3, radix, max_gpus))
    tpl = _template(spec)
    servers = add_servers(acc, spec, servers_n)
    length = spec.server_cable_m or TOR_CABLE_M
    leaves_n = math.ceil(hosts / down)
    leaves = [new_leaf(acc, i + 1, tpl) for i in range(leaves_n)]
    leaf_servers: list[list[str]] = [[] for _ in leaves]
    for h in range(hosts):
        server, nic = servers[h // n], h % n
        leaf_index = h // down
        _nic_link(acc, server, nic, leaves[leaf_index], down_speed, length)
        if not leaf_servers[leaf_index] or leaf_servers[leaf_index][-1] != server:
            leaf_servers[leaf_index].append(server)
    pods = [leaves[i:i + per_pod] for i in range(0, leaves_n, per_pod)]
    tiers = three_tier(acc, pods, up, per_pod, tpl)
    groups = []
    for p, pod in enumerate(pods):
        first = p * per_pod
        members = [s for leaf_members in leaf_servers[first:first + len(pod)]
                   for s in leaf_members]
        groups.append((pod, list(dict.fromkeys(members))))
    plan = ComputePlan(servers, leaves, tiers, groups, down, up, down_speed, max_gpus,
                       servers_by_leaf=True)
    plan.facts = {"pods": len(pods), "leaves_per_pod": per_pod, "k": radix}
    if len(pods) == 1:
        plan.notes.append("one pod: no core tier is needed")
    return plan


def build_rail_optimized(acc: Accumulator, spec: RailOptimizedSpec) -> ComputePlan:
    """Scalable units of ``servers_per_su`` servers; NIC i of each server on rail leaf i of its
    SU.  Two tiers when the spines can reach every leaf, otherwise pods of SUs under a core."""
    radix, rails, su_size = spec.switch_radix, spec.nics_per_server, spec.servers_per_su
    down_speed = min(spec.nic_speed_gbps, spec.port_speed_gbps)
    up = uplinks_needed(su_size, down_speed, spec.port_speed_gbps, spec.oversubscription)
    if su_size + up > radix:
        raise BuildError(f"a {su_size}-server scalable unit needs {su_size} down + {up} up "
                         f"ports per rail leaf; radix {radix} is too small (servers_per_su)")
    servers_n = server_count(spec)
    units = math.ceil(servers_n / su_size)
    su_gpus = su_size * spec.gpus_per_server
    max2 = (radix // rails) * su_gpus
    sus_per_pod = (radix // 2) // rails
    max3 = radix * sus_per_pod * su_gpus
    gpus = servers_n * spec.gpus_per_server
    leaves_n = units * rails
    tiers_n = 2 if leaves_n <= radix else 3
    if spec.tiers != "auto":
        tiers_n = int(spec.tiers)
    if tiers_n == 2 and leaves_n > radix:
        raise BuildError(capacity_message(gpus, 2, radix, max2))
    if tiers_n == 3 and (sus_per_pod < 1 or units > radix * sus_per_pod):
        if sus_per_pod < 1:
            raise BuildError(f"{rails} rails do not fit half the ports of a radix-{radix} spine "
                             "(three tiers need rails <= radix/2)")
        raise BuildError(capacity_message(gpus, 3, radix, max3))
    tpl = _template(spec)
    servers = add_servers(acc, spec, servers_n)
    length = spec.server_cable_m or RAIL_CABLE_M
    leaves, groups = [], []
    for u in range(units):
        members = servers[u * su_size:(u + 1) * su_size]
        rail_leaves = [new_leaf(acc, u * rails + r + 1, tpl, name=f"su{u + 1}-rail{r + 1}")
                       for r in range(rails)]
        for server in members:
            for r, leaf in enumerate(rail_leaves):
                _nic_link(acc, server, r, leaf, down_speed, length)
        leaves += rail_leaves
        groups.append((rail_leaves, members))
    if tiers_n == 2:
        tiers = two_tier(acc, leaves, up, tpl)
        max_gpus = max2
    else:
        per_pod = sus_per_pod * rails
        pods = [leaves[i:i + per_pod] for i in range(0, leaves_n, per_pod)]
        tiers = three_tier(acc, pods, up, per_pod, tpl)
        max_gpus = max3
    plan = ComputePlan(servers, leaves, tiers, groups, su_size, up, down_speed, max_gpus)
    plan.facts = {"scalable_units": units, "rails": rails, "servers_per_su": su_size}
    if tiers_n == 3:
        plan.facts.update(pods=math.ceil(units / sus_per_pod), sus_per_pod=sus_per_pod)
    return plan
