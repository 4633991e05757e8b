"""Route lengths known before any engine is built: the links a transfer crosses.

Both engines route over minimal paths (:mod:`fabricstudio.sim.engine.routing`): hosts never
forward, and every minimal path between two switches has the same length whatever ECMP,
D-mod-K or adaptive routing picks.  So the links a transfer between two addresses crosses are
its source NIC's cable, the switch-to-switch distance between the two NICs' attachment switches
and the destination NIC's cable - counted here from the design alone, per NIC (an address's
GPU sends through its own NIC: on a rail-optimised fabric GPU 7 of one server and GPU 0 of the
next meet only above their rail leaves, not at a leaf they share).

The cell engine's dominant cost is one cell crossing one link (a cell-hop), so the work
estimate (:func:`fabricstudio.sim.run.estimate_work`) multiplies cells by these lengths.
"""

from __future__ import annotations

from collections import deque

from fabricstudio.model import Design
from fabricstudio.model.devices import GpuServer, StorageServer
from fabricstudio.sim.engine.addressing import resolve_address
from fabricstudio.sim.engine.config import EngineError

#: Pairs a mean is taken over at most (evenly spaced through the workload's pairs).
SAMPLED_PAIRS = 256


class RouteLengths:
    """Links on the route between two addresses (0: same server, over NVLink)."""

    def __init__(self, design: Design) -> None:
        self.design = design
        hosts = {d.id for d in design.devices.values()
                 if isinstance(d, (GpuServer, StorageServer))}
        #: (host, NIC port) -> the switch its cable reaches.
        self._attach: dict[tuple[str, int], str] = {}
        self._switches: dict[str, set[str]] = {}
        for link in design.links.values():
            a, b = link.a, link.b
            for host, other in ((a, b), (b, a)):
                port = link.port_at(host)
                if host in hosts and other not in hosts and port is not None:
                    self._attach.setdefault((host, port), other)
            if a not in hosts and b not in hosts:
                self._switches.setdefault(a, set()).add(b)
                self._switches.setdefault(b, set()).add(a)
        self._distances: dict[str, dict[str, int]] = {}

    def links(self, src: str, dst: str) -> int | None:
        """Links crossed from ``src`` to ``dst`` (server, server/gpuN or server/nicN
        addresses); 0 on one server; None when either end has no cable or no path."""
        try:
            (sdev, snic, _), (ddev, dnic, _) = (resolve_address(self.design, src),
                                                resolve_address(self.design, dst))
        except EngineError:
            return None
        if sdev == ddev:
            return 0
        first, last = self._attach.get((sdev, snic)), self._attach.get((ddev, dnic))
        if first is None or last is None:
            return None
        between = self._from(first).get(last)
        return None if between is None else between + 2

    def mean(self, pairs: list[tuple[str, str]]) -> float:
        """Mean links crossed over the pairs that leave their server (an even sample of at
        most :data:`SAMPLED_PAIRS`); 0 when none does."""
        counts = []
        fabric = [(a, b) for a, b in pairs if a.partition("/")[0] != b.partition("/")[0]]
        for a, b in fabric[::max(1, len(fabric) // SAMPLED_PAIRS)]:
            n = self.links(a, b)
            if n is not None:
                counts.append(n)
        return sum(counts) / len(counts) if counts else 0.0

    def _from(self, switch: str) -> dict[str, int]:
        """Breadth-first distances from ``switch`` over switch-to-switch cables (cached)."""
        known = self._distances.get(switch)
        if known is not None:
            return known
        dist = {switch: 0}
        queue = deque([switch])
        while queue:
            here = queue.popleft()
            for there in self._switches.get(here, ()):
                if there not in dist:
                    dist[there] = dist[here] + 1
                    queue.append(there)
        self._distances[switch] = dist
        return dist
