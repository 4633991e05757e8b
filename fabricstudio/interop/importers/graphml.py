"""GraphML import: FabricStudio's own GraphML round-trips exactly; other GraphML (yEd,
Gephi, networkx) is read as nodes and edges with whatever ``<data>`` attributes they carry.

The document is parsed once by the guarded parser (no DTD) and read here from the tree:
``<key>`` declarations (name, type, default), the first ``<graph>``'s ``<data>``, nodes and
edges.  Nested graphs, hyperedges and ports are not part of a fabric and are ignored."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from fabricstudio.interop.imported import ImportedLink, ImportedNode, ImportedTopology
from fabricstudio.interop.importers._common import (
    coordinate,
    head,
    port_number,
    read_file,
    role_hints,
)
from fabricstudio.interop.options import Options
from fabricstudio.interop.registry import ImportFormat, InteropError
from fabricstudio.interop.safety import parse_xml

_TYPES = {"int": int, "long": int, "float": float, "double": float, "string": str}


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(element: ET.Element, name: str) -> list[ET.Element]:
    return [child for child in element if _local(child.tag) == name]


class _Keys:
    """The ``<key>`` declarations: id -> (attribute name, converter, default) per domain."""

    def __init__(self, root: ET.Element, source: str) -> None:
        self.source = source
        self.keys: dict[tuple[str, str], tuple[str, Any]] = {}
        self.defaults: dict[str, dict[str, Any]] = {"node": {}, "edge": {}, "graph": {}}
        for key in _children(root, "key"):
            ident = key.get("id", "")
            name = key.get("attr.name") or ident
            kind = key.get("attr.type", "string")
            convert = _TYPES.get(kind, _boolean if kind == "boolean" else str)
            domain = key.get("for", "all")
            for where in ("node", "edge", "graph") if domain == "all" else (domain,):
                self.keys[(where, ident)] = (name, convert)
                default = _children(key, "default")
                if default and default[0].text is not None:
                    self.defaults.setdefault(where, {})[name] = self._convert(
                        convert, default[0].text, name)

    def _convert(self, convert: Any, text: str, name: str) -> Any:
        try:
            return convert(text.strip() if convert is not str else text)
        except ValueError:
            raise InteropError(f"{self.source}: attribute {name}: {text!r} is not a "
                               f"{convert.__name__}") from None

    def data(self, element: ET.Element, where: str) -> dict[str, Any]:
        """The attributes of a node, edge or graph (defaults first)."""
        out = dict(self.defaults.get(where, {}))
        for item in _children(element, "data"):
            key = (where, item.get("key", ""))
            if key not in self.keys:
                continue
            name, convert = self.keys[key]
            text = item.text if item.text is not None else ""
            out[name] = self._convert(convert, text, name) if text or convert is str else None
        return out


def _boolean(text: str) -> bool:
    if text.lower() in ("true", "1"):
        return True
    if text.lower() in ("false", "0"):
        return False
    raise ValueError(text)


def read(path: Path, options: Options) -> ImportedTopology:
    """The topology of a GraphML file."""
    source = str(path)
    root = parse_xml(read_file(path), path)
    if _local(root.tag) != "graphml":
        raise InteropError(f"{source}: not GraphML (the document is <{_local(root.tag)}>)")
    graphs = _children(root, "graph")
    if not graphs:
        raise InteropError(f"{source}: GraphML without a <graph>")
    keys = _Keys(root, source)
    graph = graphs[0]
    attrs = keys.data(graph, "graph")
    topo = ImportedTopology(source=source, name=str(attrs.get("name") or graph.get("id") or ""))
    topo.attrs.update(attrs)
    for element in _children(graph, "node"):
        ident = element.get("id")
        if not ident:
            raise InteropError(f"{source}: a <node> has no id")
        data = keys.data(element, "node")
        data.setdefault("label", _yfiles_label(element))
        if data["label"] is None:
            del data["label"]
        topo.add_node(ImportedNode(id=ident, attrs=data, hints=role_hints(data),
                                   x=coordinate(data.get("x")), y=coordinate(data.get("y"))))
    for number, element in enumerate(_children(graph, "edge"), start=1):
        a, b = element.get("source"), element.get("target")
        if not a or not b:
            raise InteropError(f"{source}: edge {element.get('id') or number} needs a source "
                               "and a target")
        data = keys.data(element, "edge")
        if {data.get("a"), data.get("b")} == {a, b}:
            a, b = str(data["a"]), str(data["b"])
        ident = data.get("id", element.get("id"))
        topo.add_link(ImportedLink(
            a=a, b=b, id=str(ident) if ident not in (None, "") else None,
            a_interface=_text(data.get("a_interface") or element.get("sourceport")),
            b_interface=_text(data.get("b_interface") or element.get("targetport")),
            a_port=port_number(data.get("a_port")), b_port=port_number(data.get("b_port")),
            attrs=data))
    return topo


def _yfiles_label(element: ET.Element) -> str | None:
    """The text of a yEd ``y:NodeLabel`` inside a node's data, if any."""
    for item in element.iter():
        if _local(item.tag) == "NodeLabel" and item.text and item.text.strip():
            return item.text.strip()
    return None


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


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
