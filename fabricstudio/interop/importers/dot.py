"""DOT import: FabricStudio's own DOT round-trips; other DOT (NVIDIA Air, the UFM cable
validation tool, Graphviz drawings) is read with ``node:port`` ends as interfaces and
``role`` / ``function`` attributes as hints of what each device is."""

from __future__ import annotations

from pathlib import Path

from fabricstudio.interop.dotlang import parse_dot
from fabricstudio.interop.imported import ImportedLink, ImportedNode, ImportedTopology
from fabricstudio.interop.importers._common import (
    coordinate,
    head,
    port_number,
    read_file,
    role_hints,
)
from fabricstudio.interop.options import Options
from fabricstudio.interop.registry import ImportFormat
from fabricstudio.interop.safety import decode


def read(path: Path, options: Options) -> ImportedTopology:
    """The topology of a DOT file."""
    graph = parse_dot(decode(read_file(path), path), str(path))
    topo = ImportedTopology(source=str(path), name=graph.attrs.get("name") or graph.name)
    topo.attrs.update(graph.attrs)
    for ident, attrs in graph.nodes.items():
        x, y = coordinate(attrs.get("x")), coordinate(attrs.get("y"))
        if (x is None or y is None) and "pos" in attrs:
            x, y = _pos(attrs["pos"])
        topo.add_node(ImportedNode(id=ident, attrs=dict(attrs), hints=role_hints(attrs),
                                   x=x, y=y))
    for a, a_port, b, b_port, attrs in graph.edges:
        if {attrs.get("a"), attrs.get("b")} == {a, b} and attrs.get("a") == b:
            a, a_port, b, b_port = b, b_port, a, a_port
        topo.add_link(ImportedLink(
            a=a, b=b, id=attrs.get("id") or None,
            a_interface=a_port or attrs.get("tailport"),
            b_interface=b_port or attrs.get("headport"),
            a_port=port_number(attrs.get("a_port")), b_port=port_number(attrs.get("b_port")),
            attrs=dict(attrs)))
    return topo


def _pos(text: str) -> tuple[float | None, float | None]:
    parts = text.rstrip("!").split(",")
    if len(parts) < 2:
        return None, None
    x, y = coordinate(parts[0]), coordinate(parts[1])
    return x, (-y if y is not None else None)


def sniff(path: Path) -> bool:
    """A .dot / .gv file, or text starting with a graph statement."""
    if path.suffix.lower() in (".dot", ".gv"):
        return True
    start = head(path, 512).lstrip().lower()
    return start.startswith(("graph", "digraph", "strict"))


FORMAT = ImportFormat(
    name="dot",
    summary="Graphviz DOT (FabricStudio's own DOT, NVIDIA Air and cable-validation DOT)",
    suffixes=(".dot", ".gv"),
    read=read,
    sniff=sniff,
)
