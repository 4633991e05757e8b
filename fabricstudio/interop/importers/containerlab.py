"""containerlab topology import (``*.clab.yml``, loaded with ``yaml.safe_load`` only): nodes
with their containerlab kinds as hints (``linux`` = server, a network OS = switch), positions
from ``graph-posX`` / ``graph-posY`` labels, interfaces from the link endpoints.  Links to
``host``, ``mgmt-net`` or ``macvlan`` are not cables between devices and are skipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fabricstudio.interop.clab import SERVER_KINDS
from fabricstudio.interop.imported import ImportedLink, ImportedNode, ImportedTopology
from fabricstudio.interop.importers._common import coordinate, head, read_file
from fabricstudio.interop.options import Options
from fabricstudio.interop.registry import ImportFormat, InteropError
from fabricstudio.interop.safety import decode, load_yaml

SPECIAL_NODES = ("host", "mgmt-net", "macvlan", "bridge")


def read(path: Path, options: Options) -> ImportedTopology:
    """The topology of a containerlab file."""
    doc = load_yaml(decode(read_file(path), path), path)
    source = str(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("topology"), dict):
        raise InteropError(f"{source}: not a containerlab topology (no 'topology' mapping)")
    topology = doc["topology"]
    defaults = _mapping(topology.get("defaults"), "topology.defaults", source)
    nodes = _mapping(topology.get("nodes"), "topology.nodes", source)
    topo = ImportedTopology(source=source, name=str(doc.get("name") or ""))
    skipped = 0
    for name, spec in nodes.items():
        spec = _mapping(spec, f"node {name}", source)
        labels = _mapping(spec.get("labels"), f"node {name} labels", source)
        clab_kind = str(spec.get("kind") or defaults.get("kind") or "")
        attrs: dict[str, Any] = {"clab_kind": clab_kind}
        if labels.get("fabricstudio.kind"):
            attrs["kind"] = str(labels["fabricstudio.kind"])
        ident = str(labels.get("fabricstudio.id") or name)
        hints = [("its containerlab kind", "server" if clab_kind in SERVER_KINDS
                  else clab_kind or "")]
        if labels.get("graph-icon"):
            hints.append(("its graph-icon", str(labels["graph-icon"])))
        topo.add_node(ImportedNode(id=ident, attrs=attrs, hints=hints,
                                   x=coordinate(labels.get("graph-posX")),
                                   y=coordinate(labels.get("graph-posY"))))
        if ident != name:
            topo.attrs.setdefault("_aliases", {})[str(name)] = ident
    aliases = topo.attrs.pop("_aliases", {})
    links = topology.get("links") or []
    if not isinstance(links, list):
        raise InteropError(f"{source}: topology.links must be a list")
    for number, link in enumerate(links, start=1):
        ends = _endpoints(link, number, source)
        if any(node in SPECIAL_NODES and node not in topo.nodes for node, _ in ends):
            skipped += 1
            continue
        (a, a_if), (b, b_if) = [(aliases.get(n, n), i) for n, i in ends]
        topo.add_link(ImportedLink(a=a, b=b, a_interface=a_if, b_interface=b_if))
    if skipped:
        topo.notes.append(f"{skipped} link(s) to host / mgmt-net / macvlan skipped")
    return topo


def _mapping(value: Any, what: str, source: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InteropError(f"{source}: {what} must be a mapping")
    return value


def _endpoints(link: Any, number: int, source: str) -> list[tuple[str, str]]:
    """[(node, interface), (node, interface)] of a brief or extended link."""
    if not isinstance(link, dict) or not isinstance(link.get("endpoints"), list):
        raise InteropError(f"{source}: link {number}: needs 'endpoints' with two ends")
    ends = []
    for end in link["endpoints"]:
        if isinstance(end, str):
            node, sep, iface = end.partition(":")
        elif isinstance(end, dict):
            node, iface, sep = str(end.get("node", "")), str(end.get("interface", "")), ":"
        else:
            node, iface, sep = "", "", ""
        if not node or not sep or not iface:
            raise InteropError(f"{source}: link {number}: endpoint {end!r} is not NODE:INTERFACE")
        ends.append((node.strip(), iface.strip()))
    if len(ends) != 2:
        raise InteropError(f"{source}: link {number}: has {len(ends)} endpoints, not 2")
    return ends


def sniff(path: Path) -> bool:
    """A .clab.yml file, or YAML with a topology: section."""
    name = path.name.lower()
    if name.endswith((".clab.yml", ".clab.yaml")):
        return True
    return name.endswith((".yml", ".yaml")) and "topology:" in head(path)


FORMAT = ImportFormat(
    name="containerlab",
    summary="containerlab topology YAML (kinds, graph-pos labels, link endpoints)",
    suffixes=(".clab.yml", ".clab.yaml", ".yml", ".yaml"),
    read=read,
    sniff=sniff,
)
