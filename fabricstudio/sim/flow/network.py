"""The flow engine's view of a design: directed links as arrays, NIC endpoints, routes.

Links come from :func:`fabricstudio.sim.engine.topology.directed_links` (the cell engine's
order, so link indices and :class:`~fabricstudio.sim.metrics.DirectedLink` lists match) and
routes from the cell engine's :class:`~fabricstudio.sim.engine.routing.Router` (ECMP hash,
D-mod-K, adaptive candidates): the same flow takes the same path in both engines.  The light
node and link objects here only carry what the router reads.
"""

from __future__ import annotations

import numpy as np

from fabricstudio.model import Design, DeviceKind, FabricSettings
from fabricstudio.model.devices import GpuServer, StorageServer
from fabricstudio.model.units import gbps_to_bytes_per_s
from fabricstudio.sim.engine.config import EngineError
from fabricstudio.sim.engine.routing import Endpoint, Router, mix64
from fabricstudio.sim.engine.topology import directed_links, endpoint_ports
from fabricstudio.sim.metrics import DirectedLink


class LinkRef:
    """One directed link, as the router sees a port."""

    __slots__ = ("index", "src", "dst", "src_port", "dst_port", "prop", "to_host")

    def __init__(self, index: int, src: str, dst: str, src_port: int, dst_port: int,
                 prop: float, to_host: bool) -> None:
        self.index, self.src, self.dst = index, src, dst
        self.src_port, self.dst_port = src_port, dst_port
        self.prop = prop
        self.to_host = to_host


class NodeRef:
    """A switch or host: its outgoing links by local port number."""

    __slots__ = ("id", "index", "tier", "latency", "out")

    def __init__(self, device_id: str, index: int, tier: int, latency: float) -> None:
        self.id, self.index, self.tier, self.latency = device_id, index, tier, latency
        self.out: dict[int, LinkRef] = {}


#: A host NIC of the flow engine: directed links both ways.
FlowEndpoint = Endpoint[LinkRef, LinkRef]


class FlowNetwork:
    """Links, endpoints and router of one flow-level run."""

    def __init__(self, design: Design, fabric: FabricSettings, routing_mode: str,
                 seed: int) -> None:
        self.design = design
        prop_per_m = fabric.propagation_ns_per_m * 1e-9
        efficiency = fabric.mtu_bytes / (fabric.mtu_bytes + fabric.wire_overhead_bytes())
        default_latency = fabric.switch_latency_ns() * 1e-9
        self.nic_latency = fabric.nic_latency_ns * 1e-9
        self.hosts: dict[str, NodeRef] = {}
        self.switches: dict[str, NodeRef] = {}
        for device in design.devices.values():
            if isinstance(device, (GpuServer, StorageServer)):
                self.hosts[device.id] = NodeRef(device.id, len(self.hosts), 0, 0.0)
            else:
                latency = (device.latency_ns * 1e-9 if device.latency_ns is not None
                           else default_latency)
                self.switches[device.id] = NodeRef(device.id, len(self.switches),
                                                   max(1, DeviceKind(device.kind).tier),
                                                   latency)
        if not self.hosts:
            raise EngineError("the design has no servers to send traffic")
        self.links: list[LinkRef] = []
        self.directed: list[DirectedLink] = []
        speeds = []
        props = []
        for spec in directed_links(design):
            index = len(self.links)
            prop = spec.length_m * prop_per_m
            link = LinkRef(index, spec.src, spec.dst, spec.src_port, spec.dst_port, prop,
                           spec.dst in self.hosts)
            self.node(spec.src).out[spec.src_port] = link
            self.links.append(link)
            self.directed.append(DirectedLink(index, spec.link_id, spec.src, spec.src_port,
                                              spec.dst, spec.dst_port, spec.speed_gbps))
            speeds.append(spec.speed_gbps)
            props.append(prop)
        #: Line rate (wire bytes/s) and goodput capacity (payload bytes/s) per directed link.
        self.rate = np.array([gbps_to_bytes_per_s(s) for s in speeds], dtype=np.float64)
        self.capacity = self.rate * efficiency
        self.prop = np.asarray(props, dtype=np.float64)
        self.endpoints: list[FlowEndpoint] = []
        self.endpoint_of: dict[tuple[str, int], FlowEndpoint] = {}

        def reverse(up: LinkRef) -> LinkRef | None:
            down = self.node(up.dst).out.get(up.dst_port)
            return down if down is not None and down.dst == up.src else None

        for host in self.hosts.values():
            for number, up, down in endpoint_ports(host.out, reverse):
                ep = Endpoint(len(self.endpoints), host.id, number, up, down)
                self.endpoints.append(ep)
                self.endpoint_of[(host.id, number)] = ep
        self.router: Router[LinkRef] = Router(self.switches, self.endpoints, routing_mode, seed)

    def node(self, device_id: str) -> NodeRef:
        """Runtime node of a device."""
        return self.hosts.get(device_id) or self.switches[device_id]

    # ------------------------------------------------------------------ routes
    def route(self, src: FlowEndpoint, dst: FlowEndpoint,
              qp: int) -> tuple[np.ndarray, np.ndarray, float]:
        """(link indices, weights, one-way base delay) of a connection.  ECMP and static
        routing load one path (weights 1); adaptive routing spreads the traffic evenly over
        the minimal next hops at every switch (what per-cell least-queued choice approaches)
        and its delay is that of the first minimal path, as in the cell engine."""
        mode = self.router.mode
        sport = 49152 + (mix64((src.index << 24) ^ dst.index) + qp) % 16384
        path = self.router.path(src, dst, sport, mode)
        delay = self._path_delay(path)
        if mode != "adaptive":
            return (np.fromiter((p.index for p in path), np.int64, len(path)),
                    np.ones(len(path)), delay)
        links, weights = self._spread(src, dst)
        return links, weights, delay

    def _spread(self, src: FlowEndpoint, dst: FlowEndpoint) -> tuple[np.ndarray, np.ndarray]:
        weights: dict[int, float] = {src.up.index: 1.0}
        frontier = {src.attach: 1.0}
        while frontier:
            nxt: dict[str, float] = {}
            for here, share in frontier.items():
                switch = self.switches[here]
                cands = (dst.down,) if here == dst.attach else self.router.toward(switch,
                                                                                   dst.attach)
                part = share / len(cands)
                for port in cands:
                    weights[port.index] = weights.get(port.index, 0.0) + part
                    if port.dst != dst.host:
                        nxt[port.dst] = nxt.get(port.dst, 0.0) + part
            frontier = nxt
        links = np.fromiter(weights.keys(), np.int64, len(weights))
        return links, np.fromiter(weights.values(), np.float64, len(weights))

    def _path_delay(self, path: tuple[LinkRef, ...]) -> float:
        """One-way base delay of a path (propagation, switch and NIC latency), as the cell
        engine's ``_path_delay``."""
        delay = 2 * self.nic_latency
        for link in path:
            delay += link.prop
            if not link.to_host:
                delay += self.switches[link.dst].latency
        return delay
