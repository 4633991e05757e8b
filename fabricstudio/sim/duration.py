"""How long a run's traffic should take, estimated before anything is built.

The estimate sets a run's pace when it has no horizon: the sample period (about 1,000 frames
over it), the slices the GUI and the CLI advance in, and where the frame budget ends
(:mod:`fabricstudio.sim.budget`) - which is where a flow-level run without a horizon stops.
It must therefore not fall short of the run without contention, and should not be far
beyond it.  Each workload estimates itself (:meth:`Workload.estimate_s`): by default its bytes
spread over its senders at line rate; a collective phase by phase, each phase as long as the
longest of

* its busiest NIC's bytes at the NIC's goodput (a tree adds its fill and drain);
* its per-step latency: the dependent steps of its ring passes (a flat ring all-reduce on N
  ranks has 2(N-1)) each wait for units to cross hops - NIC, cables, switches and NVLink - and
  a pass runs at its slowest hop's pace, as :mod:`fabricstudio.sim.workloads.pipeline` models
  it.  A 256 MiB ring over 8,192 GPUs moves 4 KiB per step and channel: its 16,382 steps take
  ~29 ms, paced by the hops that cross the core, where its bytes at 400 Gb/s take ~11 ms.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from fabricstudio.model import Design, FabricSettings
from fabricstudio.model.devices import SERVER_TYPES
from fabricstudio.model.units import gbps_to_bytes_per_s
from fabricstudio.sim.workloads import Workload, server_of

#: Safety margin on the estimate (slices and frames run a little past the traffic's end).
MARGIN = 1.2
#: Fabric hops whose paths are looked up per ring pass or tree (evenly spread samples).
SAMPLED_HOPS = 16


def send_rate_bps(design: Design, address: str) -> float:
    """Line rate (bytes/s) of the NIC an address sends from."""
    device = design.devices[server_of(address)]
    assert isinstance(device, SERVER_TYPES)  # addresses were checked: they name servers
    speed = device.nic_speed_gbps if device.nics else device.storage_nic_speed_gbps
    return gbps_to_bytes_per_s(speed)


class HopTimes:
    """Seconds for one unit of data to cross a fabric hop between two servers: the unit at
    the sender NIC's goodput plus the path's one-way base delay (both NICs' latency, each
    cable's propagation, each switch's latency) on a shortest path, as the engines charge a
    ring step.  Paths are cached per server pair."""

    def __init__(self, design: Design, graph: nx.Graph, fabric: FabricSettings) -> None:
        self.design = design
        self.graph = graph
        self.fabric = fabric
        self.efficiency = fabric.mtu_bytes / (fabric.mtu_bytes + fabric.wire_overhead_bytes())
        self._delay: dict[tuple[str, str], float] = {}

    def delay(self, src: str, dst: str) -> float:
        """One-way base delay (s) from address ``src`` to ``dst`` across the fabric."""
        key = (server_of(src), server_of(dst))
        if key not in self._delay:
            self._delay[key] = self._path_delay(*key)
        return self._delay[key]

    def _path_delay(self, a: str, b: str) -> float:
        fabric = self.fabric
        delay = 2 * fabric.nic_latency_ns * 1e-9
        if a == b or a not in self.graph or b not in self.graph:
            return delay
        try:
            path = nx.shortest_path(self.graph, a, b)
        except nx.NetworkXNoPath:
            return delay
        switch_ns = fabric.switch_latency_ns()
        metres: float = sum(self.graph.edges[u, v].get("length_m", 0.0)
                     for u, v in zip(path, path[1:], strict=False))
        delay += metres * fabric.propagation_ns_per_m * 1e-9
        for node in path[1:-1]:
            latency = getattr(self.design.devices[node], "latency_ns", None)
            delay += float(switch_ns if latency is None else latency) * 1e-9
        return delay

    def send_rate(self, src: str) -> float:
        """Line rate (bytes/s) of the NIC ``src`` sends from."""
        return send_rate_bps(self.design, src)

    def unit_time(self, src: str, unit_bytes: float) -> float:
        """Seconds to put ``unit_bytes`` of payload on the wire at ``src``'s NIC."""
        return unit_bytes / (send_rate_bps(self.design, src) * self.efficiency)

    def slowest(self, hops: Sequence[tuple[str, str]], unit_bytes: float) -> float:
        """Longest time for one unit to cross any of the fabric hops ``hops`` (each server
        pair's path looked up once)."""
        nic = self.fabric.nic_latency_ns * 1e-9
        return max((self.unit_time(a, unit_bytes) + self.delay(a, b) - nic for a, b in hops),
                   default=0.0)

    def mean(self, hops: Sequence[tuple[str, str]], unit_bytes: float) -> float:
        """Mean time for one unit of a running transfer to cross the fabric hops ``hops``
        (sampled evenly): the unit at the NIC's goodput and the path's delay without the
        sender NIC's latency, which a transfer pays once when it starts (both engines)."""
        if not hops:
            return 0.0
        sample = hops[::max(1, len(hops) // SAMPLED_HOPS)]
        nic = self.fabric.nic_latency_ns * 1e-9
        return sum(self.unit_time(a, unit_bytes) + self.delay(a, b) - nic
                   for a, b in sample) / len(sample)


def estimate_duration(workloads: list[Workload], times: HopTimes) -> float:
    """Expected length of the traffic (s) without contention, never short of it: the
    latest end of any workload (its start plus :meth:`Workload.estimate_s`), with
    :data:`MARGIN`."""
    longest = max((getattr(w, "at_s", 0.0) + w.estimate_s(times) for w in workloads),
                  default=0.0)
    return MARGIN * max(longest, 1e-6)
