"""Bill of materials: servers, switches and adapters by the class they are ordered as, and per
link end the media, transceiver and cable that :func:`fabricstudio.model.cabling.cable_class`
decides.

Transceivers are counted per *cage*, not per link end: a twin-port 800G module in a Quantum-2
or Spectrum-4 cage serves both 400G ports of that cage.  Copper and AOC assemblies are counted
per cable: a breakout cable (one head, several tails) serves every link whose ends share its
cages.  Optics need one fibre per link, RJ45 one cord per link.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from fabricstudio.model import Device, DeviceKind, GpuServer, Link, Plane
from fabricstudio.model.cabling import (
    CABLE_CLASSES,
    CableChoice,
    assembly_label,
    cable_class,
    module_label,
)
from fabricstudio.model.devices import SWITCH_TYPES
from fabricstudio.model.hardware import nic_class, switch_class
from fabricstudio.topology.analysis.report import (
    BillOfMaterials,
    BomItem,
    CableGroup,
    NicGroup,
    SwitchGroup,
)
from fabricstudio.topology.analysis.view import DesignView

#: Order of the BOM's item categories.
CATEGORIES = ("gpu_servers", "storage_servers", "switches", "nics", "transceivers", "cables")
#: Cost-book classes of servers: a GPU server is priced per GPU (it scales with the GPU count).
GPU_PART = "gpu-server-per-gpu"
STORAGE_PART = "storage-server"
_ROLE = {DeviceKind.GPU_SERVER: "server", DeviceKind.STORAGE_SERVER: "server",
         DeviceKind.LEAF: "leaf", DeviceKind.SPINE: "spine", DeviceKind.CORE: "core",
         DeviceKind.MGMT_SWITCH: "mgmt"}
#: Reach order of transceiver tiers: a cage whose links need different reaches gets the
#: longest (one module per cage).
_TIER_RANK = {"sr": 0, "dr": 1, "dr500": 2, "fr": 3, "lr": 4}
_BEYOND_REACH_SHOWN = 5

GroupKey = tuple[str, str, str, str, float, str]
Add = Callable[[str, str, str, int], None]


@dataclass
class LinkParts:
    """A link and what it is made of."""

    link: Link
    choice: CableChoice
    group: GroupKey


def segment(a: Device, b: Device) -> str:
    """'server-leaf', 'leaf-spine', 'spine-core', 'server-mgmt', ... (lower tier first)."""
    ka, kb = DeviceKind(a.kind), DeviceKind(b.kind)
    if (ka.tier, _ROLE[ka]) > (kb.tier, _ROLE[kb]):
        ka, kb = kb, ka
    return f"{_ROLE[ka]}-{_ROLE[kb]}"


def link_parts(view: DesignView) -> list[LinkParts]:
    """Every link with its cable choice and BOM group."""
    tech = view.fabric.technology
    out = []
    for link in view.links:
        a, b = view.devices[link.a], view.devices[link.b]
        choice = cable_class(link, a, b, tech)
        key = (link.plane.value, segment(a, b), choice.cable_class, choice.media,
               link.speed_gbps, choice.breakout)
        out.append(LinkParts(link, choice, key))
    return out


def bill_of_materials(view: DesignView) -> BillOfMaterials:
    """Count what the design needs."""
    tech = view.fabric.technology
    items: Counter[tuple[str, str]] = Counter()
    labels: dict[tuple[str, str], str] = {}

    def add(category: str, part: str, label: str, count: int = 1) -> None:
        items[(category, part)] += count
        labels[(category, part)] = label

    switch_groups: dict[tuple[str, int, float], list[int]] = {}
    switch_parts: dict[tuple[str, int, float], str] = {}
    nic_groups: dict[tuple[str, float], list[int]] = {}
    nic_parts: dict[tuple[str, float], str | None] = {}
    gpu_servers = gpus = storage = 0
    notes: list[str] = []
    for device in view.devices.values():
        kind = DeviceKind(device.kind)
        used = view.used_ports.get(device.id, set())
        if isinstance(device, SWITCH_TYPES):
            part = switch_class(device, tech)
            add("switches", part.key, part.label)
            key = (kind.value, device.radix, device.port_speed_gbps)
            entry = switch_groups.setdefault(key, [0, 0, 0])
            switch_parts[key] = part.key
            entry[0] += 1
            entry[1] += len(used)
            entry[2] += device.radix - len(used)
            if device.radix > part.native_ports:
                notes.append(f"{device.id}: radix {device.radix} is more than the "
                             f"{part.native_ports} ports of a {part.label.split(' (')[0]}")
            continue
        if isinstance(device, GpuServer):
            gpu_servers += 1
            gpus += device.gpus
        else:
            storage += 1
        for plane in Plane:
            ports = device.ports_for_plane(plane)
            if not len(ports):
                continue
            speed = device.speed_of_port(ports[0])
            nic = nic_class(speed, plane, tech)
            nkey = (plane.value, speed)
            counts = nic_groups.setdefault(nkey, [0, 0])
            nic_parts[nkey] = None if nic is None else nic.key
            counts[0] += len(ports)
            counts[1] += sum(1 for p in ports if p in used)
            if nic is not None:
                add("nics", nic.key, nic.label, len(ports))
    if gpus:
        add("gpu_servers", GPU_PART, "GPU server share per GPU (8-GPU HGX H100 class server, "
                                     "fabric adapters counted separately)", gpus)
    if storage:
        add("storage_servers", STORAGE_PART, "Storage server (all-flash NVMe node, 2U)",
            storage)
    parts = link_parts(view)
    groups = _cable_groups(parts, add)
    beyond = [p.link.id for p in parts if not p.choice.within_reach]
    if beyond:
        shown = ", ".join(beyond[:_BEYOND_REACH_SHOWN])
        more = f" and {len(beyond) - _BEYOND_REACH_SHOWN} more" if len(beyond) > \
            _BEYOND_REACH_SHOWN else ""
        notes.append(f"{len(beyond)} link(s) longer than any cable or optic reaches: "
                     f"{shown}{more}")
    by_class = Counter(p.choice.cable_class for p in parts)
    order = {k.value: n for n, k in enumerate(DeviceKind)}
    cat_order = {c: n for n, c in enumerate(CATEGORIES)}
    return BillOfMaterials(
        gpu_servers=gpu_servers, gpus=gpus, storage_servers=storage,
        switches=[SwitchGroup(kind=k, radix=r, port_speed_gbps=s, count=c, ports_used=u,
                              ports_free=f, part=switch_parts[(k, r, s)])
                  for (k, r, s), (c, u, f) in sorted(
                      switch_groups.items(), key=lambda i: (order[i[0][0]], i[0][1:]))],
        nics=[NicGroup(plane=p, speed_gbps=s, count=c, connected=u, part=nic_parts[(p, s)])
              for (p, s), (c, u) in sorted(nic_groups.items())],
        cables=groups,
        cables_by_class={cls: by_class.get(cls, 0) for cls in CABLE_CLASSES},
        transceivers=sum(g.transceivers for g in groups),
        switch_ports_used=sum(v[1] for v in switch_groups.values()),
        switch_ports_free=sum(v[2] for v in switch_groups.values()),
        items=[BomItem(category=cat, part=part, label=labels[(cat, part)], count=n)
               for (cat, part), n in sorted(items.items(),
                                            key=lambda i: (cat_order[i[0][0]], i[0][1]))],
        notes=notes,
    )


def _cable_groups(parts: list[LinkParts], add: Add) -> list[CableGroup]:
    """Group links, count modules per cage and assemblies per cable; ``add`` the order lines."""
    links: Counter[GroupKey] = Counter()
    modules: dict[GroupKey, Counter[str]] = defaultdict(Counter)
    assemblies: Counter[GroupKey] = Counter()
    cages: dict[tuple[str, int], tuple[str, int, GroupKey]] = {}
    copper: list[LinkParts] = []
    for item in parts:
        links[item.group] += 1
        link, choice = item.link, item.choice
        if choice.media in ("DAC", "ACC", "AOC"):
            copper.append(item)
            continue
        assemblies[item.group] += 1
        add("cables", choice.assembly, assembly_label(choice.assembly), 1)
        for end, port, module, cage in ((link.a, link.a_port, choice.module_a, choice.cage_a),
                                        (link.b, link.b_port, choice.module_b, choice.cage_b)):
            if module is None:
                continue
            where = (end, (port or 0) // cage.ports)
            seen = cages.get(where)
            if seen is None or _longer(module, seen[0]) or (
                    not _longer(seen[0], module) and (port or 0) < seen[1]):
                cages[where] = (module, port or 0, item.group)
    for module, _port, group in cages.values():
        modules[group][module] += 1
        add("transceivers", module, module_label(module), 1)
    for group, assembly in _copper_assemblies(copper):
        assemblies[group] += 1
        add("cables", assembly, assembly_label(assembly), 1)
    return [CableGroup(plane=p, segment=seg, cable=cls, media=media, speed_gbps=speed,
                       breakout=brk, count=n, transceivers=sum(modules[key].values()),
                       assemblies=assemblies[key], modules=dict(sorted(modules[key].items())))
            for key, n in sorted(links.items())
            for p, seg, cls, media, speed, brk in [key]]


def _longer(module: str, other: str) -> bool:
    """True when ``module`` reaches further than ``other`` (same cage, one module)."""
    return _TIER_RANK.get(module.rsplit("-", 1)[-1], 0) > _TIER_RANK.get(
        other.rsplit("-", 1)[-1], 0)


def _copper_assemblies(items: list[LinkParts]) -> list[tuple[GroupKey, str]]:
    """One assembly per set of copper/AOC links joined through shared cages (a twin-port DAC
    or a breakout serves all links of its cages): (group of its first link, assembly class)."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(node: tuple[str, int]) -> tuple[str, int]:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    ends = []
    for item in items:
        link = item.link
        na = (link.a, (link.a_port or 0) // item.choice.cage_a.ports)
        nb = (link.b, (link.b_port or 0) // item.choice.cage_b.ports)
        parent[find(na)] = find(nb)
        ends.append(na)
    first: dict[tuple[str, int], LinkParts] = {}
    for item, node in zip(items, ends, strict=True):
        first.setdefault(find(node), item)
    return [(item.group, item.choice.assembly) for item in first.values()]
