"""GraphML (networkx's writer): every device and link field as a node or edge attribute,
canvas coordinates as ``x``/``y``, parallel cables as separate edges keyed by link id, and the
fabric settings as JSON text on the graph, so the file reads back into the same design."""

from __future__ import annotations

import io
from typing import Any

import networkx as nx

from fabricstudio.interop.attributes import design_attributes, device_attributes, link_attributes
from fabricstudio.interop.bundle import Bundle
from fabricstudio.interop.naming import file_stem, xml_safe
from fabricstudio.interop.options import Options
from fabricstudio.interop.registry import ExportFormat
from fabricstudio.model import Design


def design_multigraph(design: Design) -> nx.MultiGraph:
    """The design as a networkx MultiGraph with flat attributes (GraphML-ready: text holds
    only characters XML can carry)."""
    graph = nx.MultiGraph(**_clean(design_attributes(design)))
    for device in design.devices.values():
        graph.add_node(xml_safe(device.id), **_clean(device_attributes(device)))
    for order, link in enumerate(design.links.values()):
        graph.add_edge(xml_safe(link.a), xml_safe(link.b), key=xml_safe(link.id),
                       **_clean(link_attributes(design, link, order)))
    return graph


def _clean(attrs: dict[str, Any]) -> dict[str, Any]:
    return {k: xml_safe(v) if isinstance(v, str) else v for k, v in attrs.items()}


def export(design: Design, options: Options) -> Bundle:
    """One .graphml file."""
    buffer = io.BytesIO()
    nx.write_graphml(design_multigraph(design), buffer, encoding="utf-8", prettyprint=True)
    bundle = Bundle()
    bundle.files[f"{file_stem(design)}.graphml"] = buffer.getvalue()
    return bundle


FORMAT = ExportFormat(
    name="graphml",
    summary="GraphML graph (networkx): every device and link attribute, positions kept",
    suffixes=(".graphml",),
    export=export,
)
