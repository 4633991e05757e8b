"""GraphML import: FabricStudio's own GraphML round-trips exactly; other GraphML (yEd,
Gephi, networkx) is read as nodes and edges with whatever attributes they carry."""

from __future__ import annotations

from pathlib import Path

import networkx as nx

from fabricstudio.interop.imported import ImportedLink, ImportedNode, ImportedTopology
from fabricstudio.interop.importers._common import coordinate, head, read_file, role_hints
from fabricstudio.interop.options import Options
from fabricstudio.interop.registry import ImportFormat, InteropError
from fabricstudio.interop.safety import decode, parse_xml


def read(path: Path, options: Options) -> ImportedTopology:
    """The topology of a GraphML file."""
    data = read_file(path)
    parse_xml(data, path)  # refuses DTDs, entities and deep nesting before networkx sees it
    try:
        graph = nx.parse_graphml(decode(data, path), force_multigraph=True)
    except (nx.NetworkXError, ValueError, KeyError, TypeError) as exc:
        raise InteropError(f"{path}: not a GraphML graph this tool can read: {exc}") from None
    topo = ImportedTopology(source=str(path), name=str(graph.graph.get("name", "")))
    topo.attrs.update(graph.graph)
    for ident, attrs in graph.nodes(data=True):
        node = ImportedNode(id=str(ident), attrs=dict(attrs), hints=role_hints(attrs),
                            x=coordinate(attrs.get("x")), y=coordinate(attrs.get("y")))
        topo.add_node(node)
    for u, v, key, attrs in graph.edges(keys=True, data=True):
        a, b = str(u), str(v)
        if {attrs.get("a"), attrs.get("b")} == {a, b}:
            a, b = str(attrs["a"]), str(attrs["b"])
        ident = attrs.get("id", key)
        topo.add_link(ImportedLink(
            a=a, b=b, id=str(ident) if ident is not None else None,
            a_interface=_text(attrs.get("a_interface")),
            b_interface=_text(attrs.get("b_interface")),
            a_port=_port(attrs.get("a_port")), b_port=_port(attrs.get("b_port")),
            attrs=dict(attrs)))
    return topo


def _text(value) -> str | None:
    return str(value) if value not in (None, "") else None


def _port(value) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        port = int(value)
    except (TypeError, ValueError):
        return None
    return port if 0 <= port <= 4096 else None


def sniff(path: Path) -> bool:
    """A .graphml file, or XML whose text mentions graphml."""
    if path.suffix.lower() == ".graphml":
        return True
    return path.suffix.lower() == ".xml" and "graphml" in head(path).lower()


FORMAT = ImportFormat(
    name="graphml",
    summary="GraphML graph (FabricStudio's own exports round-trip; others are inferred)",
    suffixes=(".graphml", ".xml"),
    read=read,
    sniff=sniff,
)
