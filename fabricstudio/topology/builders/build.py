"""``build_fabric(spec)``: a complete, laid-out fabric as plain model objects."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from fabricstudio.model import (
    Design,
    DesignData,
    Device,
    DeviceKind,
    FabricSettings,
    Group,
    Link,
    Plane,
)
from fabricstudio.model.cabling import CABLE_CLASSES, cable_class
from fabricstudio.topology.builders.fabric_layout import layout_fabric
from fabricstudio.topology.builders.families import (
    ComputePlan,
    build_fat_tree,
    build_leaf_spine,
    build_rail_optimized,
)
from fabricstudio.topology.builders.grouping import chunks, make_groups, server_racks
from fabricstudio.topology.builders.placement import PITCH
from fabricstudio.topology.builders.planes import (
    StoragePlan,
    build_management,
    build_storage,
)
from fabricstudio.topology.builders.specs import (
    FabricSpec,
    FatTreeSpec,
    LeafSpineSpec,
    check_spec,
)
from fabricstudio.topology.builders.wiring import Accumulator

_FAMILY_LABEL = {"leaf-spine": "Leaf-spine", "fat-tree": "Fat tree",
                 "rail-optimized": "Rail-optimised"}


@dataclass
class FabricBuild:
    """A generated fabric: devices (positioned), links, settings and a summary of counts."""

    name: str
    description: str
    spec: FabricSpec
    devices: list[Device]
    links: list[Link]
    fabric: FabricSettings
    summary: dict[str, Any] = field(default_factory=dict)
    #: Racks (with U positions), scalable units and pods, inner groups first.
    groups: list[Group] = field(default_factory=list)

    def to_data(self) -> DesignData:
        """The build as the plain value a design file or ReplaceContents holds."""
        return DesignData(name=self.name, description=self.description, fabric=self.fabric,
                          nodes=tuple(self.devices), links=tuple(self.links),
                          groups=tuple(self.groups))

    def to_design(self) -> Design:
        """A new Design holding the build."""
        return Design.from_data(self.to_data())

    def fragment_for(self, design: Design | None
                     ) -> tuple[list[Device], list[Link], list[Group]]:
        """Devices, links and groups to add to ``design`` with ``AddFragment``: ids that clash
        with the design's get a common prefix (``f2-server1`` ...), and the fabric is placed
        to the right of what the design already shows."""
        if design is None or not len(design.devices):
            return list(self.devices), list(self.links), list(self.groups)
        taken = set(design.devices) | set(design.links) | set(design.groups)
        prefix = ""
        n = 1
        ids = ([d.id for d in self.devices] + [lk.id for lk in self.links]
               + [g.id for g in self.groups])
        while any(prefix + i in taken for i in ids):
            n += 1
            prefix = f"f{n}-"
        shift = max(d.x for d in design.devices.values()) + 4 * PITCH - min(
            d.x for d in self.devices)
        devices = [d.model_copy(update={"id": prefix + d.id, "x": d.x + shift})
                   for d in self.devices]
        links = [lk.model_copy(update={"id": prefix + lk.id, "a": prefix + lk.a,
                                       "b": prefix + lk.b}) for lk in self.links]
        groups = [g.model_copy(update={
            "id": prefix + g.id, "members": tuple(prefix + m for m in g.members),
            "u_positions": {prefix + k: v for k, v in g.u_positions.items()}})
            for g in self.groups]
        return devices, links, groups


def build_fabric(spec: FabricSpec) -> FabricBuild:
    """Build the fabric ``spec`` describes; BuildError (one sentence) when it cannot be built.

    Deterministic: the same spec gives the same ids, ports, positions and order.
    """
    check_spec(spec)
    acc = Accumulator()
    if isinstance(spec, LeafSpineSpec):
        compute = build_leaf_spine(acc, spec)
    elif isinstance(spec, FatTreeSpec):
        compute = build_fat_tree(acc, spec)
    else:
        compute = build_rail_optimized(acc, spec)
    storage = build_storage(acc, spec, compute.servers)
    racks = server_racks(compute, spec.servers_per_rack)
    storage_racks = chunks(storage.storage_servers, spec.servers_per_rack)
    mgmt = build_management(acc, spec, racks + storage_racks)
    positions = layout_fabric(compute, storage, mgmt, acc.links)
    devices = [d.model_copy(update={"x": positions[d.id][0], "y": positions[d.id][1]})
               for d in acc.devices]
    name = spec.name or _default_name(spec, len(compute.servers))
    summary = _summary(spec, compute, storage, devices, acc.links)
    groups = make_groups(compute, storage, mgmt, racks, storage_racks, devices, acc.links)
    return FabricBuild(name=name, description=_description(spec, summary), spec=spec,
                       devices=devices, links=acc.links,
                       fabric=FabricSettings(technology=spec.technology), summary=summary,
                       groups=groups)


def _default_name(spec: FabricSpec, servers: int) -> str:
    gpus = servers * spec.gpus_per_server
    return f"{_FAMILY_LABEL[spec.topology]} {gpus:,} GPUs {spec.technology.label}"


def _oversub(down_gbps: float, up_gbps: float) -> float | None:
    return round(down_gbps / up_gbps, 4) if up_gbps else None


def _summary(spec: FabricSpec, compute: ComputePlan, storage: StoragePlan,
             devices: list[Device], links: list[Link]) -> dict[str, Any]:
    kinds = Counter(DeviceKind(d.kind).value for d in devices
                    if Plane.COMPUTE in d.planes or DeviceKind(d.kind) is DeviceKind.MGMT_SWITCH)
    switches = {k: kinds.get(k, 0) for k in ("leaf", "spine", "core")}
    switches["storage_leaf"] = len(storage.leaves)
    switches["storage_spine"] = len(storage.tiers.spines) + len(storage.tiers.cores)
    switches["management"] = kinds.get("mgmt_switch", 0)
    cables = Counter(link.plane.value for link in links)
    by_id = {d.id: d for d in devices}
    reach = Counter(cable_class(link, by_id[link.a], by_id[link.b], spec.technology).cable_class
                    for link in links)
    hosts = len(compute.servers) * spec.nics_per_server
    nic_speed = compute.leaf_down_speed
    up_gbps = compute.up_per_leaf * spec.port_speed_gbps
    leaf_ratio = _oversub(compute.down_per_leaf * nic_speed, up_gbps)
    tiers = 1 + bool(compute.tiers.spines) + bool(compute.tiers.cores)
    oversub = {"leaf": leaf_ratio}
    if compute.tiers.cores:
        oversub["spine"] = 1.0
    bisection = _bisection_gbps(compute, links)
    return {
        "topology": spec.topology,
        "technology": spec.technology.value,
        "gpus": len(compute.servers) * spec.gpus_per_server,
        "servers": len(compute.servers),
        "hosts": hosts,
        "storage_servers": len(storage.storage_servers),
        "tiers": tiers,
        "switches": switches,
        "switches_total": sum(switches.values()),
        "links": len(links),
        "cables": {"compute": cables.get("compute", 0), "storage": cables.get("storage", 0),
                   "management": cables.get("management", 0)},
        "cables_by_class": {k: reach.get(k, 0) for k in CABLE_CLASSES},
        "down_ports_per_leaf": compute.down_per_leaf,
        "uplinks_per_leaf": compute.up_per_leaf,
        "links_per_leaf_spine": compute.tiers.links_per_leaf_spine,
        "links_per_spine_core": compute.tiers.links_per_spine_core,
        "oversubscription": oversub,
        "bisection_gbps": bisection,
        "max_gpus": compute.max_gpus,
        **compute.facts,
        "notes": list(compute.notes),
    }


def _bisection_gbps(compute: ComputePlan, links: list[Link]) -> float:
    """Half the narrowest tier: NIC capacity, leaf uplinks, spine uplinks (Clos formula
    hosts/2 x C / o for full fabrics)."""
    leaf_set = set(compute.leaves)
    spine_set = set(compute.tiers.spines)
    host = leaf_up = spine_up = 0.0
    for link in links:
        if link.plane is not Plane.COMPUTE:
            continue
        if link.b in leaf_set and link.a not in leaf_set:
            host += link.speed_gbps
        elif link.a in leaf_set and link.b in spine_set:
            leaf_up += link.speed_gbps
        elif link.a in spine_set:
            spine_up += link.speed_gbps
    tiers = [host]
    if compute.tiers.spines:
        tiers.append(leaf_up)
    if compute.tiers.cores:
        tiers.append(spine_up)
    return min(tiers) / 2


def _description(spec: FabricSpec, summary: dict[str, Any]) -> str:
    s = summary["switches"]
    ratio = summary["oversubscription"]["leaf"]
    ratio_text = f"{ratio:g}:1" if ratio is not None else "single leaf"
    return (f"{_FAMILY_LABEL[spec.topology]}: {summary['gpus']:,} GPUs on "
            f"{summary['servers']:,} servers ({spec.gpus_per_server} GPUs, "
            f"{spec.nics_per_server} x {spec.nic_speed_gbps:g}G NICs each), "
            f"{spec.technology.label}; {s['leaf']} leaves, {s['spine']} spines, {s['core']} "
            f"core switches (radix {spec.switch_radix} at {spec.port_speed_gbps:g}G); leaf "
            f"oversubscription {ratio_text}. Generated by FabricStudio.")
