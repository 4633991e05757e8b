"""The directed links and NIC endpoints of a design, in the order every engine uses.

Both the cell-level engine (:mod:`fabricstudio.sim.engine.network`) and the flow-level engine
(:mod:`fabricstudio.sim.flow`) build their runtime links from :func:`directed_links`, so their
link indices, :class:`~fabricstudio.sim.metrics.DirectedLink` lists (what the live view and
the metrics CSV index by) and NIC endpoint numbers are the same, and the shared
:class:`~fabricstudio.sim.engine.routing.Router` picks the same paths in both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from fabricstudio.model import Design

L = TypeVar("L")


@dataclass(frozen=True, slots=True)
class DirectedSpec:
    """One direction of a cable: ``src`` port ``src_port`` -> ``dst`` port ``dst_port``
    (-1 for an unnumbered port) at ``speed_gbps`` (the slower of the cable and both ports)."""

    link_id: str
    src: str
    src_port: int
    dst: str
    dst_port: int
    speed_gbps: float
    length_m: float


def directed_links(design: Design) -> list[DirectedSpec]:
    """Two entries per cable (a -> b, then b -> a), cables in design order."""
    specs = []
    devices = design.devices
    for link in design.links.values():
        for src, dst in ((link.a, link.b), (link.b, link.a)):
            src_port, dst_port = link.port_at(src), link.port_at(dst)
            speed = link.speed_gbps
            if src_port is not None:
                speed = min(speed, devices[src].speed_of_port(src_port))
            if dst_port is not None:
                speed = min(speed, devices[dst].speed_of_port(dst_port))
            specs.append(DirectedSpec(link.id, src, -1 if src_port is None else src_port, dst,
                                      -1 if dst_port is None else dst_port, speed,
                                      link.length_m))
    return specs


def endpoint_ports(host_out: Mapping[int, L],
                   reverse: Callable[[L], L | None]) -> list[tuple[int, L, L]]:
    """The NIC endpoints of one host: ``(port number, up port, down port)`` in port order.

    ``host_out`` maps the host's port numbers to its outgoing link objects; ``reverse(up)``
    returns the link coming back on the same cable (or None when there is none).
    """
    found = []
    for number in sorted(host_out):
        up = host_out[number]
        down = reverse(up)
        if down is not None:
            found.append((number, up, down))
    return found
