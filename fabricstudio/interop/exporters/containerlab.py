"""containerlab topology (``*.clab.yml``): one node per device with its containerlab kind and
image, positions as ``graph-posX`` / ``graph-posY`` labels, one link per cable with
``endpoints: ["a:e1-1", "b:eth1"]``.  Switches default to Nokia SR Linux (a freely pullable
Ethernet NOS), servers to ``linux``; ``--subset`` exports one pod, scalable unit or rail so the
lab fits one host."""

from __future__ import annotations

import re

import yaml

from fabricstudio.interop.bundle import Bundle
from fabricstudio.interop.clab import (
    DEFAULT_SERVER_KIND,
    DEFAULT_SWITCH_KIND,
    IMAGES,
    interface_pattern,
)
from fabricstudio.interop.naming import file_stem, one_line, unique_names
from fabricstudio.interop.options import Options
from fabricstudio.interop.positions import positioned
from fabricstudio.interop.registry import ExportFormat, InteropError, Option
from fabricstudio.interop.safety import SAFE_DUMPER
from fabricstudio.model import Design, Device, DeviceKind

#: Nodes beyond which the notes warn that one host will struggle (each is a container).
LARGE_LAB = 200


def _clab_kind(device: Device, options: Options) -> str:
    kind = DeviceKind(device.kind)
    if kind.is_switch:
        return options.get(f"kind.{kind.value}") or options.get("switch-kind", DEFAULT_SWITCH_KIND)
    return options.get(f"kind.{kind.value}") or options.get("server-kind", DEFAULT_SERVER_KIND)


def export(design: Design, options: Options) -> Bundle:
    """One .clab.yml file."""
    design = positioned(design)
    names = unique_names(list(design.devices))
    images = {**IMAGES, **options.prefixed("image.")}
    patterns = options.prefixed("interface.")
    types = options.prefixed("type.")
    nodes = {}
    kinds = {}
    for device in design.devices.values():
        clab_kind = _clab_kind(device, options)
        kinds[device.id] = clab_kind
        if clab_kind not in images:
            raise InteropError(f"containerlab kind {clab_kind!r} has no default image: give "
                               f"-O image.{clab_kind}=IMAGE")
        kind = DeviceKind(device.kind)
        labels = {
            "graph-posX": str(round(device.x)),
            "graph-posY": str(round(device.y)),
            "graph-icon": "switch" if kind.is_switch else "host",
            "graph-level": str(4 - kind.tier),
            "fabricstudio.kind": kind.value,
        }
        if names[device.id] != device.id:
            labels["fabricstudio.id"] = device.id
        node = {"kind": clab_kind, "image": images[clab_kind], "labels": labels}
        if types.get(clab_kind):
            node["type"] = types[clab_kind]
        nodes[names[device.id]] = node
    links = []
    for link in design.links.values():
        ends = []
        for end, port in ((link.a, link.a_port), (link.b, link.b_port)):
            pattern = interface_pattern(kinds[end], patterns)
            ends.append(f"{names[end]}:{pattern.format(n=(port or 0) + 1)}")
        links.append({"endpoints": ends})
    doc = {"name": names_of_lab(design), "topology": {"nodes": nodes, "links": links}}
    bundle = Bundle()
    text = (f"# {one_line(design.name)}: exported by FabricStudio ({len(nodes)} nodes, "
            f"{len(links)} links)\n")
    text += yaml.dump(doc, Dumper=SAFE_DUMPER, sort_keys=False, default_flow_style=None,
                      width=100)
    bundle.add_text(f"{file_stem(design)}.clab.yml", text)
    if len(nodes) > LARGE_LAB:
        bundle.notes.append(f"{len(nodes)} containers will not run on one host; export a "
                            "part with --subset pod:N, su:N or rail:N")
    bundle.notes.append("containerlab links carry no speed or length: those stay in "
                        "FabricStudio")
    return bundle


def names_of_lab(design: Design) -> str:
    """The lab name: the design's name made safe for container names."""
    return re.sub(r"[^a-z0-9]+", "-", design.name.lower()).strip("-")[:60] or "fabric"


FORMAT = ExportFormat(
    name="containerlab",
    summary="containerlab topology YAML (kinds, images, interface names per kind; "
            "--subset pod:N / su:N / rail:N for one host)",
    suffixes=(".clab.yml", ".clab.yaml", ".yml", ".yaml"),
    export=export,
    options=(
        Option("switch-kind", "containerlab kind of switches", DEFAULT_SWITCH_KIND),
        Option("server-kind", "containerlab kind of servers", DEFAULT_SERVER_KIND),
        Option("kind.", "kind per device kind, e.g. kind.spine=arista_ceos"),
        Option("image.", "image per containerlab kind, e.g. image.arista_ceos=ceos:4.32.0F"),
        Option("interface.", "interface pattern per containerlab kind ({n} = port number from "
                             "1), e.g. interface.sonic-vs=Ethernet{n}"),
        Option("type.", "node type (chassis) per containerlab kind, e.g. "
                        "type.nokia_srlinux=ixr-d3l"),
    ),
)
