"""Graphviz DOT: every device and link attribute, positions as ``pos`` (points, y up, pinned)
and ``x``/``y``, drawing attributes (shape and fill by kind, colour and width by speed);
cables written with their interfaces (``"leaf1":"swp3" -- "server2":"eth1"``) and switches
with ``role`` leaf / spine / super_spine, so the same file is the reference topology of
NVIDIA's UFM cable validation tool for Ethernet fabrics."""

from __future__ import annotations

from fabricstudio.interop.attributes import design_attributes, device_attributes, link_attributes
from fabricstudio.interop.bundle import Bundle
from fabricstudio.interop.dotlang import edge_line, graph_text, node_line
from fabricstudio.interop.exporters.drawio import SPEED_STYLES
from fabricstudio.interop.naming import CVT_ROLES, KIND_COLOURS, file_stem
from fabricstudio.interop.options import Options
from fabricstudio.interop.registry import ExportFormat
from fabricstudio.model import Design, DeviceKind, Technology


def export(design: Design, options: Options) -> Bundle:
    """One .dot file."""
    ethernet = design.fabric.technology is not Technology.INFINIBAND
    lines = []
    for device in design.devices.values():
        attrs = device_attributes(device)
        kind = DeviceKind(device.kind)
        if kind in CVT_ROLES:
            attrs["role"] = CVT_ROLES[kind]
        if kind.is_switch and ethernet:
            attrs["os"] = "cumulus"
        attrs["pos"] = f"{device.x:g},{-device.y + 0.0:g}!"
        attrs.update(shape="box" if kind.is_switch else "ellipse", style="filled",
                     fillcolor=f"#{KIND_COLOURS[kind]}", fontcolor="white")
        lines.append(node_line(device.id, attrs))
    for order, link in enumerate(design.links.values()):
        attrs = link_attributes(design, link, order)
        colour, width = next((c, w) for limit, c, w in SPEED_STYLES if link.speed_gbps <= limit)
        attrs.update(color=colour, penwidth=width)
        lines.append(edge_line(link.a, attrs.pop("a_interface", None), link.b,
                               attrs.pop("b_interface", None), attrs))
    bundle = Bundle()
    bundle.add_text(f"{file_stem(design)}.dot",
                    graph_text(design.name, design_attributes(design), lines))
    if not ethernet:
        bundle.notes.append("the UFM cable validation tool reads DOT for Ethernet fabrics; "
                            "InfiniBand fabrics are validated from its topo file")
    return bundle


FORMAT = ExportFormat(
    name="dot",
    summary="Graphviz DOT: all attributes, positions, interfaces on every cable "
            "(a cable-validation reference topology)",
    suffixes=(".dot", ".gv"),
    export=export,
)
