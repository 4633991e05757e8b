"""What an importer reads from a file, before it becomes a design: nodes with whatever
attributes the file had, links with their interface names, and the checks every importer
shares (unique ids, known ends, one cable per interface)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabricstudio.interop.registry import InteropError

#: Most devices and links an import accepts (a 32k-GPU rail fabric has ~300k links).
MAX_NODES = 200_000
MAX_LINKS = 1_000_000


@dataclass
class ImportedNode:
    """A device as the file describes it."""

    id: str
    attrs: dict[str, Any] = field(default_factory=dict)
    #: Words that say what the device is (a role, a function, a containerlab kind), most
    #: reliable first; the importer's name for where each came from.
    hints: list[tuple[str, str]] = field(default_factory=list)
    x: float | None = None
    y: float | None = None


@dataclass
class ImportedLink:
    """A cable as the file describes it; ports are 0-based when the file gives them."""

    a: str
    b: str
    id: str | None = None
    a_interface: str | None = None
    b_interface: str | None = None
    a_port: int | None = None
    b_port: int | None = None
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass
class ImportedTopology:
    """Nodes (in file order), links and design-level attributes read from a file."""

    source: str
    name: str = ""
    nodes: dict[str, ImportedNode] = field(default_factory=dict)
    links: list[ImportedLink] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add_node(self, node: ImportedNode) -> None:
        """Add a node; InteropError when its id is already used or there are too many."""
        if not node.id or not isinstance(node.id, str):
            raise InteropError(f"{self.source}: a node has no name")
        if node.id in self.nodes:
            raise InteropError(f"{self.source}: node {node.id!r} is defined twice")
        if len(self.nodes) >= MAX_NODES:
            raise InteropError(f"{self.source}: more than {MAX_NODES:,} nodes")
        self.nodes[node.id] = node

    def add_link(self, link: ImportedLink) -> None:
        """Add a link; InteropError when there are too many."""
        if len(self.links) >= MAX_LINKS:
            raise InteropError(f"{self.source}: more than {MAX_LINKS:,} links")
        self.links.append(link)

    def sort_links(self) -> None:
        """Put links in the order their ``order`` attributes give (FabricStudio's exports
        carry one); links without come last in file order."""
        def key(item: tuple[int, ImportedLink]) -> tuple[int, float, int]:
            index, link = item
            order = link.attrs.get("order")
            try:
                return (0, float(order), index) if order is not None else (1, 0.0, index)
            except (TypeError, ValueError):
                return (1, 0.0, index)
        self.links = [link for _, link in sorted(enumerate(self.links), key=key)]

    def check(self) -> None:
        """InteropError naming the first dangling end, self-loop or interface used twice."""
        if not self.nodes:
            raise InteropError(f"{self.source}: no devices found")
        used: dict[tuple[str, str], str] = {}
        for number, link in enumerate(self.links, start=1):
            what = f"link {link.id or number}"
            for end in (link.a, link.b):
                if end not in self.nodes:
                    raise InteropError(f"{self.source}: {what}: end {end!r} is not a node")
            if link.a == link.b:
                raise InteropError(f"{self.source}: {what} connects {link.a!r} to itself")
            for end, iface, port in ((link.a, link.a_interface, link.a_port),
                                     (link.b, link.b_interface, link.b_port)):
                key = iface if iface else (None if port is None else f"port {port}")
                if key is None:
                    continue
                owner = used.get((end, key))
                if owner is not None:
                    raise InteropError(f"{self.source}: duplicate interface: {end} {key} is "
                                       f"used by {owner} and {what}")
                used[(end, key)] = what
