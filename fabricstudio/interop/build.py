"""An imported topology becomes a valid design: what the file does not say is guessed from
names, roles and the wiring, and every guess is reported.

Kinds come from a ``kind`` attribute (FabricStudio's own exports), else from role words
(NetBox role, Air function, cable-validation role, containerlab kind), else from the name;
switches nobody named are tiered by the wiring (next to servers = leaf, above leaves = spine,
above spines = core).  Networks come from a ``plane`` attribute, else from the wiring
(management switches, switches that reach storage servers).  Missing speeds, lengths, port
counts and positions get defaults (and an automatic layout).
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pydantic import ValidationError

from fabricstudio.interop.imported import ImportedLink, ImportedNode, ImportedTopology
from fabricstudio.interop.naming import number_in
from fabricstudio.interop.registry import InteropError
from fabricstudio.model import (
    DEVICE_CLASSES,
    Design,
    DesignData,
    DesignError,
    DeviceKind,
    FabricSettings,
    Link,
    Plane,
    Technology,
    format_validation_error,
)
from fabricstudio.model.devices import DeviceClass
from fabricstudio.model.groups import Group
from fabricstudio.topology.layout import design_layout

SWITCH = "switch"
SERVER = "server"
#: Words -> kind, tried in order on roles, then on names ("storage-leaf" is a leaf).
WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), kind) for pattern, kind in (
        (r"mgmt|management|oob|\bipmi|\bbmc", DeviceKind.MGMT_SWITCH.value),
        (r"super.?spine|core|\bsuper\b|\bagg", DeviceKind.CORE.value),
        (r"spine", DeviceKind.SPINE.value),
        (r"leaf|\btor\b|^tor|rail", DeviceKind.LEAF.value),
        (r"switch|^sw\d|^sw\b|^sw[-_]|router|srlinux|\bsrl\b|ceos|sonic|cumulus|cvx|"
         r"nxos|junos|\bvr-|crpd|sros|\bnos\b", SWITCH),
        (r"storage|\bstor|\bnas|lustre|weka|vast|ddn|\bnfs", DeviceKind.STORAGE_SERVER.value),
        (r"gpu|dgx|hgx|server|host|compute|node|worker|\bsrv|linux|ubuntu|^h\d", SERVER),
    ))
STANDARD_RADIXES = (8, 16, 32, 48, 64, 128, 256, 512, 1024)
DEFAULT_SPEED = {Plane.COMPUTE: 400.0, Plane.STORAGE: 200.0, Plane.MANAGEMENT: 1.0}
SERVER_CABLE_M = 3.0
UPLINK_CABLE_M = 30.0
SERVER_KINDS = (DeviceKind.GPU_SERVER, DeviceKind.STORAGE_SERVER)


@dataclass
class Guesses:
    """What was guessed, grouped for the report."""

    kinds: dict[tuple[str, str], list[str]] = field(default_factory=lambda: defaultdict(list))
    other: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per group of guesses."""
        out = []
        for (source, kind), ids in self.kinds.items():
            shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
            out.append(f"{len(ids)} {kind} from {source}: {shown}")
        return out + self.other


def build_design(topo: ImportedTopology) -> tuple[Design, list[str]]:
    """A validated design from ``topo`` and the report lines of what was guessed."""
    topo.check()
    topo.sort_links()
    guesses = Guesses()
    kinds = _kinds(topo, guesses)
    link_planes = _link_planes(topo, kinds, guesses)
    fabric = _fabric(topo, guesses)
    links = _links(topo, kinds, link_planes, guesses)
    ports = _ports(topo, kinds, links, guesses)
    devices = _devices(topo, kinds, links, ports, guesses)
    final_links = [_link(lk, ports, topo.source) for lk in links]
    name = str(topo.name or topo.attrs.get("name") or "Imported design")[:500]
    description = str(topo.attrs.get("description") or "")[:100_000]
    groups = _groups(topo)
    try:
        data = DesignData(name=name, description=description, fabric=fabric,
                          nodes=tuple(devices), links=tuple(final_links), groups=groups)
        design = Design.from_data(data)
    except ValidationError as exc:
        raise InteropError(f"{topo.source}: {format_validation_error(exc, 1)}") from None
    except DesignError as exc:
        raise InteropError(f"{topo.source}: {str(exc).split('; ')[0]}") from None
    if any(n.x is None or n.y is None for n in topo.nodes.values()):
        design.move_devices(design_layout(design))
        guesses.other.append("positions: laid out automatically (the file has none for "
                             "some devices)")
    return design, guesses.lines() + topo.notes


# ------------------------------------------------------------------ kinds
def _word_kind(text: str) -> str | None:
    for pattern, kind in WORDS:
        if pattern.search(text):
            return kind
    return None


def _kinds(topo: ImportedTopology, guesses: Guesses) -> dict[str, DeviceKind]:
    known = {k.value for k in DeviceKind}
    found: dict[str, str] = {}
    source: dict[str, str] = {}
    for node in topo.nodes.values():
        explicit = node.attrs.get("kind")
        if isinstance(explicit, str) and explicit.strip().lower() in known:
            found[node.id] = explicit.strip().lower()
            continue
        candidates = list(node.hints)
        if isinstance(explicit, str) and explicit.strip():
            candidates.insert(0, ("its kind", explicit))
        candidates.append(("names", f"{node.id} {node.attrs.get('name', '')}"))
        for where, text in candidates:
            kind = _word_kind(str(text))
            if kind is not None:
                found[node.id], source[node.id] = kind, where
                break
        else:
            if isinstance(explicit, str) and explicit.strip():
                raise InteropError(f"{topo.source}: node {node.id!r}: unknown kind "
                                   f"{explicit!r} (known: {', '.join(sorted(known))})")
            raise InteropError(f"{topo.source}: node {node.id!r}: cannot tell what kind of "
                               "device it is; give it a kind (gpu_server, storage_server, leaf, "
                               "spine, core, mgmt_switch)")
    neighbours = _neighbours(topo)
    for ident, kind in list(found.items()):
        if kind == SERVER:
            storage = _word_kind(ident) == DeviceKind.STORAGE_SERVER.value
            found[ident] = (DeviceKind.STORAGE_SERVER if storage else DeviceKind.GPU_SERVER).value
    _tier_switches(found, neighbours, source, topo)
    out = {}
    for ident, kind in found.items():
        out[ident] = DeviceKind(kind)
        if ident in source:
            guesses.kinds[(source[ident], kind)].append(ident)
    return out


def _neighbours(topo: ImportedTopology) -> dict[str, list[tuple[str, ImportedLink]]]:
    out: dict[str, list[tuple[str, ImportedLink]]] = defaultdict(list)
    for link in topo.links:
        out[link.a].append((link.b, link))
        out[link.b].append((link.a, link))
    return out


def _tier_switches(found: dict[str, str], neighbours, source: dict[str, str],
                   topo: ImportedTopology) -> None:
    """Switches of unknown tier: next to servers = leaf (management switch when all those
    cables are management ones), above leaves = spine, above spines = core."""
    servers = {k.value for k in SERVER_KINDS}
    pending = [i for i, k in found.items() if k == SWITCH]
    for ident in pending:
        near = [(other, lk) for other, lk in neighbours[ident] if found[other] in servers]
        if near:
            mgmt = all(_link_says_mgmt(lk) for _, lk in near)
            found[ident] = (DeviceKind.MGMT_SWITCH if mgmt else DeviceKind.LEAF).value
            source[ident] = "the wiring"
    above = {DeviceKind.LEAF.value: DeviceKind.SPINE.value,
             DeviceKind.SPINE.value: DeviceKind.CORE.value,
             DeviceKind.CORE.value: DeviceKind.CORE.value}
    changed = True
    while changed:
        changed = False
        for ident in pending:
            if found[ident] != SWITCH:
                continue
            below = [found[o] for o, _ in neighbours[ident] if found[o] in above]
            if below:
                order = list(above)
                found[ident] = above[min(below, key=order.index)]
                source[ident] = "the wiring"
                changed = True
    for ident in pending:
        if found[ident] == SWITCH:
            found[ident] = DeviceKind.LEAF.value
            source[ident] = "the wiring"


def _link_says_mgmt(link: ImportedLink) -> bool:
    words = " ".join(str(v) for v in (link.attrs.get("plane"), link.a_interface,
                                      link.b_interface) if v)
    return bool(re.search(r"mgmt|management|oob|ipmi|bmc", words, re.IGNORECASE))


# ----------------------------------------------------------------- planes
def _plane_attr(value: Any) -> Plane | None:
    try:
        return Plane(str(value).strip().lower()) if value not in (None, "") else None
    except ValueError:
        return None


def _link_planes(topo: ImportedTopology, kinds: dict[str, DeviceKind],
                 guesses: Guesses) -> list[Plane]:
    """The network of every link: its ``plane`` attribute, or guessed from the wiring."""
    switch_plane = _switch_planes(topo, kinds)
    out = []
    guessed = 0
    for link in topo.links:
        plane = _plane_attr(link.attrs.get("plane"))
        if plane is None:
            guessed += 1
            ends = (link.a, link.b)
            if any(kinds[e] is DeviceKind.MGMT_SWITCH for e in ends) or _link_says_mgmt(link):
                plane = Plane.MANAGEMENT
            else:
                switch = next((e for e in ends if kinds[e].is_switch), None)
                plane = switch_plane.get(switch, Plane.COMPUTE) if switch else Plane.COMPUTE
                if kinds[link.a] is DeviceKind.STORAGE_SERVER or \
                        kinds[link.b] is DeviceKind.STORAGE_SERVER:
                    plane = Plane.STORAGE
        out.append(plane)
    if guessed:
        guesses.other.append(f"networks of {guessed} link(s) guessed from the wiring")
    return out


def _switch_planes(topo: ImportedTopology, kinds: dict[str, DeviceKind]) -> dict[str, Plane]:
    """Per data switch: storage when its group of connected switches reaches a storage
    server, else compute (the ``planes`` attribute wins)."""
    switches = [i for i, k in kinds.items() if k.is_switch and k is not DeviceKind.MGMT_SWITCH]
    parent = {s: s for s in switches}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for link in topo.links:
        if link.a in parent and link.b in parent:
            parent[root(link.a)] = root(link.b)
    storage_roots = set()
    for link in topo.links:
        for end, other in ((link.a, link.b), (link.b, link.a)):
            if end in parent and kinds[other] is DeviceKind.STORAGE_SERVER:
                storage_roots.add(root(end))
    out = {}
    for switch in switches:
        given = _plane_attr(str(topo.nodes[switch].attrs.get("planes", "")).split(",")[0])
        out[switch] = given or (Plane.STORAGE if root(switch) in storage_roots
                                else Plane.COMPUTE)
    return out


# ---------------------------------------------------------------- groups
def _groups(topo: ImportedTopology) -> tuple[Group, ...]:
    """The groups the file carries (FabricStudio's own JSON, or racks an importer found)."""
    found = topo.attrs.get("groups")
    if isinstance(found, str) and found.strip():
        try:
            found = json.loads(found)
        except (ValueError, RecursionError):
            raise InteropError(f"{topo.source}: groups: not valid JSON") from None
    if not found:
        return ()
    if not isinstance(found, list):
        raise InteropError(f"{topo.source}: groups: expected a list")
    out = []
    for item in found:
        try:
            out.append(Group.model_validate(item))
        except ValidationError as exc:
            raise InteropError(f"{topo.source}: group: "
                               f"{format_validation_error(exc, 1)}") from None
    return tuple(out)


# ---------------------------------------------------------------- fabric
def _fabric(topo: ImportedTopology, guesses: Guesses) -> FabricSettings:
    text = topo.attrs.get("fabric")
    if isinstance(text, str) and text.strip():
        try:
            return FabricSettings.model_validate(json.loads(text))
        except (ValueError, ValidationError, RecursionError) as exc:
            detail = format_validation_error(exc, 1) if isinstance(exc, ValidationError) \
                else "not valid JSON"
            raise InteropError(f"{topo.source}: fabric settings: {detail}") from None
    tech = str(topo.attrs.get("technology", "")).strip().lower()
    if tech in {t.value for t in Technology}:
        return FabricSettings(technology=Technology(tech))
    guesses.other.append("technology: not in the file; RoCE assumed")
    return FabricSettings()


# ----------------------------------------------------------------- links
def _number(value: Any, what: str, source: str) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise InteropError(f"{source}: {what}: {value!r} is not a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InteropError(f"{source}: {what}: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise InteropError(f"{source}: {what}: {value!r} is not a finite number")
    return number


class _Cable(NamedTuple):
    """A link before its ports are known (the fields of Link that _ports needs)."""

    id: str
    a: str
    b: str
    speed_gbps: float
    length_m: float
    plane: Plane


def _link(cable: _Cable, ports: dict[tuple[str, str], int], source: str) -> Link:
    try:
        return Link(id=cable.id, a=cable.a, b=cable.b, a_port=ports[(cable.id, cable.a)],
                    b_port=ports[(cable.id, cable.b)], speed_gbps=cable.speed_gbps,
                    length_m=cable.length_m, plane=cable.plane)
    except ValidationError as exc:
        raise InteropError(f"{source}: link {cable.id}: "
                           f"{format_validation_error(exc, 1)}") from None


def _links(topo: ImportedTopology, kinds: dict[str, DeviceKind], planes: list[Plane],
           guesses: Guesses) -> list[_Cable]:
    out = []
    used: set[str] = set(topo.nodes)
    speeds_guessed = lengths_guessed = 0
    for link, plane in zip(topo.links, planes, strict=True):
        ident = str(link.id) if link.id else None
        if ident is None or ident in used:
            base = ident or f"{link.a}-{link.b}"
            ident, n = base, 2
            while ident in used:
                ident = f"{base}.{n}"
                n += 1
        used.add(ident)
        what = f"link {ident}"
        speed = _number(link.attrs.get("speed_gbps"), f"{what} speed", topo.source)
        if speed is None:
            speeds_guessed += 1
            speed = _end_speed(topo, kinds, link, plane)
        length = _number(link.attrs.get("length_m"), f"{what} length", topo.source)
        if length is None:
            lengths_guessed += 1
            servers = any(kinds[e] in SERVER_KINDS for e in (link.a, link.b))
            length = SERVER_CABLE_M if servers else UPLINK_CABLE_M
        out.append(_Cable(ident, link.a, link.b, speed, length, plane))
    if speeds_guessed:
        guesses.other.append(f"speeds of {speeds_guessed} link(s) guessed from the ports "
                             "(or 400/200/1 Gb/s by network)")
    if lengths_guessed:
        guesses.other.append(f"lengths of {lengths_guessed} link(s) guessed "
                             f"({SERVER_CABLE_M:g} m to servers, {UPLINK_CABLE_M:g} m between "
                             "switches)")
    return out


def _end_speed(topo: ImportedTopology, kinds, link: ImportedLink, plane: Plane) -> float:
    """The slower end's port speed when the file gives it, else the network's default."""
    found = []
    for end in (link.a, link.b):
        attrs = topo.nodes[end].attrs
        key = {Plane.COMPUTE: "nic_speed_gbps", Plane.STORAGE: "storage_nic_speed_gbps",
               Plane.MANAGEMENT: "mgmt_speed_gbps"}[plane]
        key = "port_speed_gbps" if kinds[end].is_switch else key
        value = _number(attrs.get(key), f"node {end} {key}", topo.source)
        if value:
            found.append(value)
    if link.attrs.get("interface_speed_gbps"):
        found.append(float(link.attrs["interface_speed_gbps"]))
    return min(found) if found else DEFAULT_SPEED[plane]


# ----------------------------------------------------------------- ports
def _file_port(link: ImportedLink, end: str) -> int | None:
    port = link.a_port if end == link.a else link.b_port
    iface = link.a_interface if end == link.a else link.b_interface
    if port is None and iface:
        number = number_in(iface)
        port = None if number is None else number - 1
    return port if port is None or port >= 0 else None


def _ports(topo: ImportedTopology, kinds: dict[str, DeviceKind], links: list[_Cable],
           guesses: Guesses) -> dict[tuple[str, str], int]:
    """Port of every link end: the file's where it fits the model, else assigned in order
    (servers: compute ports first, then storage, then management)."""
    by_end: dict[str, list[tuple[_Cable, int | None]]] = defaultdict(list)
    for link, raw in zip(links, topo.links, strict=True):
        for end in (link.a, link.b):
            by_end[end].append((link, _file_port(raw, end)))
    out: dict[tuple[str, str], int] = {}
    renumbered = 0
    for end, items in by_end.items():
        if kinds[end].is_switch:
            taken = {p for _, p in items if p is not None}
            if len(taken) != len([p for _, p in items if p is not None]):
                taken = set()
                items = [(lk, None) for lk, _ in items]
            free = (p for p in range(10**6) if p not in taken)
            for link, port in items:
                out[(link.id, end)] = port if port is not None else next(free)
            continue
        attrs = topo.nodes[end].attrs
        layout = _server_layout(attrs, items, topo.source, end)
        fits = all(p is not None and layout[lk.plane][0] <= p < layout[lk.plane][1]
                   for lk, p in items) and len({p for _, p in items}) == len(items)
        if fits:  # every port given, and each within its network's range
            out.update({(link.id, end): port for link, port in items if port is not None})
            continue
        renumbered += 1
        for plane in Plane:
            start = layout[plane][0]
            mine = sorted((lk for lk in items if lk[0].plane is plane),
                          key=lambda item: (item[1] is None, item[1] or 0))
            for offset, (link, _) in enumerate(mine):
                out[(link.id, end)] = start + offset
    if renumbered:
        guesses.other.append(f"ports of {renumbered} server(s) renumbered: compute NICs first, "
                             "then storage, then management")
    return out


def _server_layout(attrs: dict, items, source: str, ident: str) -> dict[Plane, tuple[int, int]]:
    counts = {p: sum(1 for lk, _ in items if lk.plane is p) for p in Plane}
    nics = max(int(_number(attrs.get("nics"), f"node {ident} nics", source) or 0),
               counts[Plane.COMPUTE])
    storage = max(int(_number(attrs.get("storage_nics"), f"node {ident} storage_nics",
                              source) or 0), counts[Plane.STORAGE])
    mgmt = max(int(_number(attrs.get("mgmt_ports"), f"node {ident} mgmt_ports", source) or 0),
               counts[Plane.MANAGEMENT])
    attrs["_layout"] = (nics, storage, mgmt)
    return {Plane.COMPUTE: (0, nics), Plane.STORAGE: (nics, nics + storage),
            Plane.MANAGEMENT: (nics + storage, nics + storage + mgmt)}


# --------------------------------------------------------------- devices
def _devices(topo: ImportedTopology, kinds: dict[str, DeviceKind], links: list[_Cable],
             ports: dict[tuple[str, str], int], guesses: Guesses) -> list:
    speeds: dict[tuple[str, Plane], float] = defaultdict(float)
    planes: dict[str, set[Plane]] = defaultdict(set)
    top_port: dict[str, int] = defaultdict(lambda: -1)
    for link in links:
        for end in (link.a, link.b):
            speeds[(end, link.plane)] = max(speeds[(end, link.plane)], link.speed_gbps)
            planes[end].add(link.plane)
            top_port[end] = max(top_port[end], ports[(link.id, end)])
    radix_guessed = 0
    out = []
    for node in topo.nodes.values():
        kind = kinds[node.id]
        cls = DEVICE_CLASSES[kind]
        fields = _known_fields(node, cls, topo.source)
        fields.update(id=node.id, kind=kind.value)
        label = node.attrs.get("label")
        if isinstance(label, str) and label and label != node.id and "name" not in fields \
                and "name" not in node.attrs:
            fields["name"] = label[:200]
        if node.x is not None and node.y is not None:
            fields.update(x=node.x, y=node.y)
        fields["planes"] = _planes(node, kind, planes[node.id])
        if kind.is_switch:
            need = top_port[node.id] + 1
            if fields.get("radix", 0) < need:
                if "radix" not in fields:
                    radix_guessed += 1
                fields["radix"] = next((r for r in STANDARD_RADIXES if r >= need), need)
            fastest = max(speeds.get((node.id, p), 0.0) for p in Plane)
            fields["port_speed_gbps"] = max(fields.get("port_speed_gbps", 0.0), fastest) or \
                DEFAULT_SPEED[fields["planes"][0]]
        else:
            if "_layout" not in node.attrs:
                _server_layout(node.attrs, [], topo.source, node.id)
            nics, storage, mgmt = node.attrs["_layout"]
            fields.update(nics=nics, storage_nics=storage, mgmt_ports=mgmt)
            for plane, key in ((Plane.COMPUTE, "nic_speed_gbps"),
                               (Plane.STORAGE, "storage_nic_speed_gbps"),
                               (Plane.MANAGEMENT, "mgmt_speed_gbps")):
                if speeds[(node.id, plane)] > fields.get(key, 0.0):
                    fields[key] = speeds[(node.id, plane)]
        try:
            out.append(cls.model_validate(fields))
        except ValidationError as exc:
            raise InteropError(f"{topo.source}: node {node.id}: "
                               f"{format_validation_error(exc, 1)}") from None
    if radix_guessed:
        guesses.other.append(f"port counts of {radix_guessed} switch(es) guessed from the ports "
                             "in use (rounded up to a standard radix)")
    return out


def _planes(node: ImportedNode, kind: DeviceKind, used: set[Plane]) -> tuple[Plane, ...]:
    given = [p for p in (_plane_attr(v) for v in str(node.attrs.get("planes", "")).split(","))
             if p is not None]
    if given:
        return tuple(dict.fromkeys(given + sorted(used - set(given), key=list(Plane).index)))
    if kind is DeviceKind.MGMT_SWITCH:
        return (Plane.MANAGEMENT,)
    if kind.is_switch:
        return tuple(sorted(used, key=list(Plane).index)) or (Plane.COMPUTE,)
    base = Plane.STORAGE if kind is DeviceKind.STORAGE_SERVER else Plane.COMPUTE
    return tuple(dict.fromkeys([base] + sorted(used, key=list(Plane).index)))


_INT_FIELDS = ("gpus", "radix", "buffer_bytes")
_FLOAT_FIELDS = ("nvlink_gbps", "capacity_tb", "latency_ns", "port_speed_gbps",
                 "nic_speed_gbps", "storage_nic_speed_gbps", "mgmt_speed_gbps")


def _known_fields(node: ImportedNode, cls: DeviceClass, source: str) -> dict[str, Any]:
    """The model fields the file gives for ``node``, as numbers."""
    out: dict[str, Any] = {}
    model_fields = cls.model_fields
    for key in _INT_FIELDS + _FLOAT_FIELDS:
        if key in model_fields and node.attrs.get(key) not in (None, ""):
            value = _number(node.attrs[key], f"node {node.id} {key}", source)
            if value is not None:
                out[key] = int(value) if key in _INT_FIELDS and value == int(value) else value
    name = node.attrs.get("name")
    if isinstance(name, str) and name:
        out["name"] = name[:200]
    return out
