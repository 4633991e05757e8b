"""NVIDIA Air topology: the JSON Air recommends (``{"format": "JSON", "title", "content":
{"nodes": {name: {cpu, memory, storage, os}}, "links": [[{node, interface}, ...]]}}``) and its
DOT form (``"leaf1":"swp1" -- "server1":"eth1"`` with ``function`` / ``os`` attributes).

Air builds the out-of-band management network itself (oob-mgmt-switch and -server), so the
design's management network is left out; switches run Cumulus VX, servers Ubuntu (both
options).  Air emulates control planes, not the data plane: speeds and lengths stay here."""

from __future__ import annotations

import json

from fabricstudio.interop.bundle import Bundle
from fabricstudio.interop.dotlang import edge_line, graph_text, node_line
from fabricstudio.interop.naming import file_stem, interface_name, unique_names
from fabricstudio.interop.options import Options
from fabricstudio.interop.registry import ExportFormat, Option
from fabricstudio.model import Design, DeviceKind, Plane, Technology

#: Air DOT ``function`` per kind (the topology-converter vocabulary Air reads).
FUNCTIONS = {DeviceKind.LEAF: "leaf", DeviceKind.SPINE: "spine", DeviceKind.CORE: "superspine",
             DeviceKind.GPU_SERVER: "host", DeviceKind.STORAGE_SERVER: "host"}
#: Resources per node (Air's documented examples: switches 2 CPU / 4 GB, servers 2 / 2 GB).
SWITCH_DEFAULTS = {"cpu": "2", "memory": "4096", "storage": "20", "os": "cumulus-vx-5.16.1"}
SERVER_DEFAULTS = {"cpu": "2", "memory": "2048", "storage": "10", "os": "generic/ubuntu2404"}


def _resources(switch: bool, options: Options) -> dict:
    base = SWITCH_DEFAULTS if switch else SERVER_DEFAULTS
    prefix = "switch-" if switch else "server-"
    out: dict = {}
    for key, default in base.items():
        value = options.get(prefix + key, default)
        out[key] = value if key == "os" else int(value) if value.isdigit() else value
    return out


def export(design: Design, options: Options) -> Bundle:
    """topology.json and topology.dot."""
    devices = [d for d in design.devices.values()
               if DeviceKind(d.kind) is not DeviceKind.MGMT_SWITCH]
    names = unique_names([d.id for d in devices], r"[^A-Za-z0-9-]")
    links = [lk for lk in design.links.values()
             if lk.plane is not Plane.MANAGEMENT and lk.a in names and lk.b in names]
    nodes = {names[d.id]: _resources(d.is_switch, options) for d in devices}
    pairs = []
    dot_lines = []
    for device in devices:
        attrs = {"function": FUNCTIONS[DeviceKind(device.kind)], **nodes[names[device.id]]}
        dot_lines.append(node_line(names[device.id], attrs))
    for link in links:
        a_if = interface_name(design.devices[link.a], link.a_port or 0)
        b_if = interface_name(design.devices[link.b], link.b_port or 0)
        pairs.append([{"node": names[link.a], "interface": a_if},
                      {"node": names[link.b], "interface": b_if}])
        dot_lines.append(edge_line(names[link.a], a_if, names[link.b], b_if, {}))
    doc = {"format": "JSON", "title": design.name, "ztp": None,
           "content": {"nodes": nodes, "links": pairs}}
    stem = file_stem(design)
    bundle = Bundle()
    bundle.add_text(f"{stem}.air.json", json.dumps(doc, indent=2) + "\n")
    bundle.add_text(f"{stem}.air.dot", graph_text(design.name, {}, dot_lines))
    dropped = len(design.devices) - len(devices)
    if dropped or len(links) < len(design.links):
        bundle.notes.append(f"management network left out ({dropped} switches, "
                            f"{len(design.links) - len(links)} links): Air adds its own "
                            "out-of-band network")
    if design.fabric.technology is Technology.INFINIBAND:
        bundle.notes.append("Air emulates Ethernet network operating systems: the InfiniBand "
                            "switches run as Cumulus VX")
    return bundle


FORMAT = ExportFormat(
    name="air",
    summary="NVIDIA Air topology JSON and its DOT form (.json, .dot, or both in a folder/.zip)",
    suffixes=(".json", ".dot"),
    export=export,
    options=tuple(Option(f"{who}-{key}", f"{key} of {who}s", value)
                  for who, base in (("switch", SWITCH_DEFAULTS), ("server", SERVER_DEFAULTS))
                  for key, value in base.items()),
    multi_file=True,
)
