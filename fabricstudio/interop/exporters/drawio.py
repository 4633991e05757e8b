"""draw.io (diagrams.net) file: one page per network, each device a cell at its canvas
position with a shape by kind (mxgraph.networks stencils), each cable an edge styled by
speed (the canvas's colour-blind-safe speed palette, wider for faster links)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from fabricstudio.interop.bundle import Bundle
from fabricstudio.interop.naming import KIND_COLOURS, file_stem, xml_safe
from fabricstudio.interop.options import Options
from fabricstudio.interop.positions import positioned
from fabricstudio.interop.registry import ExportFormat
from fabricstudio.model import Design, Device, DeviceKind, Plane

#: Shape and size per kind.
SHAPES = {
    DeviceKind.GPU_SERVER: ("mxgraph.networks.supercomputer", 50, 50),
    DeviceKind.STORAGE_SERVER: ("mxgraph.networks.storage", 50, 50),
    DeviceKind.LEAF: ("mxgraph.networks.switch", 80, 24),
    DeviceKind.SPINE: ("mxgraph.networks.switch", 90, 28),
    DeviceKind.CORE: ("mxgraph.networks.switch", 100, 32),
    DeviceKind.MGMT_SWITCH: ("mxgraph.networks.switch", 70, 20),
}
#: (upper bound Gb/s, colour, width): the canvas's speed palette.
SPEED_STYLES = ((1.0, "#94A3B8", 1), (25.0, "#56B4E9", 1), (100.0, "#10B981", 1.5),
                (200.0, "#3B82F6", 2), (400.0, "#8B5CF6", 2), (800.0, "#F59E0B", 3),
                (float("inf"), "#EF4444", 3))
PAGE_NAMES = {Plane.COMPUTE: "Compute network", Plane.STORAGE: "Storage network",
              Plane.MANAGEMENT: "Management network"}
MARGIN = 40
_text = xml_safe


def device_style(device: Device) -> str:
    """The draw.io style of a device's cell."""
    kind = DeviceKind(device.kind)
    shape = SHAPES[kind][0]
    return (f"shape={shape};html=1;outlineConnect=0;verticalLabelPosition=bottom;"
            f"verticalAlign=top;labelPosition=center;align=center;fontSize=10;"
            f"fillColor=#{KIND_COLOURS[kind]};strokeColor=#ffffff;strokeWidth=1;")


def link_style(speed_gbps: float) -> str:
    """The draw.io style of a cable of ``speed_gbps``."""
    colour, width = next((c, w) for limit, c, w in SPEED_STYLES if speed_gbps <= limit)
    dashed = "dashed=1;" if speed_gbps <= 1.0 else ""
    return (f"endArrow=none;html=1;rounded=0;strokeColor={colour};strokeWidth={width:g};"
            f"{dashed}")


def _page(design: Design, plane: Plane, root_file: ET.Element) -> int:
    devices = [d for d in design.devices.values() if plane in d.planes]
    links = [lk for lk in design.links.values() if lk.plane is plane]
    if not devices:
        return 0
    min_x = min(d.x - SHAPES[DeviceKind(d.kind)][1] / 2 for d in devices)
    min_y = min(d.y - SHAPES[DeviceKind(d.kind)][2] / 2 for d in devices)
    dx, dy = MARGIN - min_x, MARGIN - min_y
    width = max(d.x + dx for d in devices) + 2 * MARGIN
    height = max(d.y + dy for d in devices) + 2 * MARGIN
    diagram = ET.SubElement(root_file, "diagram", {"id": f"page-{plane.value}",
                                                   "name": PAGE_NAMES[plane]})
    model = ET.SubElement(diagram, "mxGraphModel", dx="0", dy="0", grid="1", gridSize="10",
                          guides="1", tooltips="1", connect="1", arrows="1", fold="1",
                          page="1", pageScale="1", pageWidth=str(int(width)),
                          pageHeight=str(int(height)), math="0", shadow="0")
    root = ET.SubElement(model, "root")
    ET.SubElement(root, "mxCell", {"id": "0"})
    ET.SubElement(root, "mxCell", {"id": "1", "parent": "0"})
    for device in devices:
        _, w, h = SHAPES[DeviceKind(device.kind)]
        cell = ET.SubElement(root, "mxCell", {
            "id": _text(f"dev-{device.id}"), "value": _text(device.label),
            "style": device_style(device), "vertex": "1", "parent": "1"})
        ET.SubElement(cell, "mxGeometry", {
            "x": f"{device.x + dx - w / 2:g}", "y": f"{device.y + dy - h / 2:g}",
            "width": str(w), "height": str(h), "as": "geometry"})
    for link in links:
        cell = ET.SubElement(root, "mxCell", {
            "id": _text(f"link-{link.id}"), "value": "", "style": link_style(link.speed_gbps),
            "edge": "1", "parent": "1", "source": _text(f"dev-{link.a}"),
            "target": _text(f"dev-{link.b}")})
        ET.SubElement(cell, "mxGeometry", {"relative": "1", "as": "geometry"})
    return len(devices)


def export(design: Design, options: Options) -> Bundle:
    """One .drawio file with a page per network."""
    design = positioned(design)
    root = ET.Element("mxfile", host="FabricStudio", type="device", compressed="false")
    pages = [p for p in Plane if _page(design, p, root)]
    bundle = Bundle()
    ET.indent(root, space=" ")
    text = ET.tostring(root, encoding="unicode")
    bundle.add_text(f"{file_stem(design)}.drawio",
                    '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n")
    if not pages:
        bundle.notes.append("the design has no devices: the file has no pages")
    return bundle


FORMAT = ExportFormat(
    name="drawio",
    summary="draw.io / diagrams.net file: a page per network, shapes by kind, link styles by "
            "speed, positions kept",
    suffixes=(".drawio", ".xml"),
    export=export,
)
