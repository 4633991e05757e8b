"""Build the runtime network (nodes, directed-link ports, endpoints) from a frozen design."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabricstudio.model import Design, Technology
from fabricstudio.model.devices import GpuServer, StorageServer
from fabricstudio.model.units import format_kb as _kb
from fabricstudio.sim.engine.config import EngineError
from fabricstudio.sim.engine.nodes import EthernetSwitch, Host, IbSwitch, RoceSwitch, Switch
from fabricstudio.sim.engine.ports import NicPort, Port
from fabricstudio.sim.engine.routing import Endpoint
from fabricstudio.sim.engine.topology import directed_links, endpoint_ports
from fabricstudio.sim.metrics import DirectedLink

if TYPE_CHECKING:
    from fabricstudio.sim.engine.core import Engine

SERVER_TYPES = (GpuServer, StorageServer)
MAX_WARNINGS_PER_KIND = 8


class Network:
    """Nodes, ports (directed links, two per cable) and NIC endpoints of one run."""

    def __init__(self, engine: Engine, design: Design) -> None:
        self.engine = engine
        self.design = design
        self.hosts: dict[str, Host] = {}
        self.switches: dict[str, Switch] = {}
        self.ports: list[Port] = []
        self.directed: list[DirectedLink] = []
        self.endpoints: list[Endpoint] = []
        self.endpoint_of: dict[tuple[str, int], Endpoint] = {}
        self.warnings: list[str] = []
        self._build_nodes()
        self._build_ports()
        self._build_endpoints()
        self._configure_flow_control()

    # ------------------------------------------------------------------ nodes
    def _build_nodes(self) -> None:
        engine = self.engine
        tech = engine.technology
        flavour = {Technology.ROCE: RoceSwitch, Technology.INFINIBAND: IbSwitch,
                   Technology.ETHERNET: EthernetSwitch}[tech]
        default_latency = engine.fabric.switch_latency_ns()
        for device in self.design.devices.values():
            if isinstance(device, SERVER_TYPES):
                self.hosts[device.id] = Host(engine, device)
            else:
                latency = device.latency_ns if device.latency_ns is not None else default_latency
                self.switches[device.id] = flavour(engine, device, latency * 1e-9,
                                                   len(self.switches))
        if not self.hosts:
            raise EngineError("the design has no servers to send traffic")

    def node(self, device_id: str) -> Host | Switch:
        """Runtime node of a device."""
        return self.hosts.get(device_id) or self.switches[device_id]

    # ------------------------------------------------------------------ ports
    def _build_ports(self) -> None:
        engine = self.engine
        prop_per_m = engine.fabric.propagation_ns_per_m * 1e-9
        nic_latency = engine.fabric.nic_latency_ns * 1e-9
        for spec in directed_links(self.design):
            src, dst, speed = spec.src, spec.dst, spec.speed_gbps
            cls = NicPort if src in self.hosts else Port
            index = len(self.ports)
            port = cls(index, spec.link_id, src, spec.src_port, dst, spec.dst_port, speed,
                       spec.length_m * prop_per_m, engine.clock, engine)
            owner, peer = self.node(src), self.node(dst)
            port.owner, port.peer = owner, peer
            if isinstance(owner, Switch):
                port.on_dequeue = owner.on_dequeue
            port.peer_receive = (peer.receive,)
            if isinstance(peer, Host):
                port.to_host = True
                port.arrive_delay = nic_latency
            else:
                port.arrive_delay = port.prop + peer.latency
            owner.out[port.src_port] = port
            self.ports.append(port)
            self.directed.append(DirectedLink(index, spec.link_id, src, port.src_port, dst,
                                              port.dst_port, speed))

    def _build_endpoints(self) -> None:
        def reverse(up: Port) -> Port | None:
            down = self.node(up.dst).out.get(up.dst_port)
            return down if down is not None and down.dst == up.src else None

        for host in self.hosts.values():
            for number, up, down in endpoint_ports(host.out, reverse):
                assert isinstance(up, NicPort)  # a host's egress ports are NIC ports
                ep = Endpoint(len(self.endpoints), host.id, number, up, down)
                self.endpoints.append(ep)
                self.endpoint_of[(host.id, number)] = ep

    # ------------------------------------------------------------------ flow control
    def _configure_flow_control(self) -> None:
        engine = self.engine
        tech = engine.technology
        fabric = engine.fabric
        host_speeds = [ep.up.speed_gbps for ep in self.endpoints]
        ref_speed = min(host_speeds) if host_speeds else 100.0
        for port in self.ports:
            if isinstance(port.owner, Switch) and (engine.ecn_enabled or engine.ib_cc):
                port.kmin, port.kmax = fabric.ecn.thresholds(port.speed_gbps)
                port.pmax = fabric.ecn.pmax
            if tech is Technology.INFINIBAND:
                port.credit_based = True
                port.credits = port.credit_max = fabric.infiniband.vl_buffer_bytes
            elif tech is Technology.ROCE and isinstance(port.peer, Switch):
                port.headroom = self._headroom(port)
                port.alpha = fabric.pfc.alpha * max(1.0, port.speed_gbps / ref_speed)
        if tech is not Technology.INFINIBAND:
            tiny = [sw.id for sw in self.switches.values() if sw.buffer < 2 * engine.cell_bytes]
            if tiny:
                self.warnings.append(
                    f"{', '.join(tiny[:MAX_WARNINGS_PER_KIND])}: packet buffer below two cells "
                    f"of {engine.cell_bytes} B: almost every cell will be dropped")
        if tech is Technology.ROCE:
            for switch in self.switches.values():
                assert isinstance(switch, RoceSwitch)  # a RoCE fabric builds RoCE switches
                ingress = [p for p in self.ports if p.peer is switch]
                switch.finish_wiring(ingress)
                self._check_buffer(switch, ingress)
                self._check_ecn_before_pfc(switch, ingress)
            self._check_headroom()
        if tech is Technology.INFINIBAND:
            self._check_credits()

    def _headroom(self, port: Port) -> int:
        """PFC headroom of the ingress fed by ``port``: configured, or the formula."""
        pfc = self.engine.fabric.pfc
        if pfc.headroom_bytes is not None:
            return pfc.headroom_bytes
        return int(port.rate * (2 * port.prop + pfc.response_time_ns * 1e-9)
                   + 2 * self.engine.mtu + self.engine.cell_bytes)

    def _check_headroom(self) -> None:
        if not self.engine.fabric.pfc.enabled:
            return
        short: list[str] = []
        for port in self.ports:
            if not isinstance(port.peer, Switch):
                continue
            need = port.rate * 2 * port.prop
            if port.headroom < need + self.engine.mtu:
                short.append(f"headroom {_kb(port.headroom)} on {port.dst} port {port.dst_port} "
                             f"is below C x 2 t_prop + MTU = {_kb(need + self.engine.mtu)}: "
                             "lossless not guaranteed")
        self._add_warnings(short)

    def _check_buffer(self, switch: RoceSwitch, ingress: list[Port]) -> None:
        if not switch.pfc:
            return
        need = switch.total_hdrm + switch.total_rsrv
        if need >= switch.buffer:
            self.warnings.append(
                f"{switch.id}: buffer {_kb(switch.buffer)} does not cover the headroom and "
                f"reserve of its {len(ingress)} ports ({_kb(need)}): PFC pauses at once")

    def _check_ecn_before_pfc(self, switch: RoceSwitch, ingress: list[Port]) -> None:
        """DCQCN needs ECN to act before PFC (sim-anchors 4.4): in a 2:1 incast each ingress
        holds half the hot queue, so Kmin must stay below twice the empty-buffer XOFF."""
        engine = self.engine
        if not (switch.pfc and engine.dcqcn_enabled and engine.ecn_enabled and ingress):
            return
        xoff = min(p.alpha for p in ingress) * (switch.buffer - switch.fixed)
        kmin = max((p.kmin for p in switch.out.values()), default=0.0)
        if kmin >= 2 * xoff:
            self.warnings.append(
                f"{switch.id}: ECN Kmin {_kb(kmin)} is above the queue a 2:1 incast builds "
                f"before PFC pauses (2 x XOFF = {_kb(2 * xoff)}): PFC acts before ECN, DCQCN "
                "cannot keep the fabric pause-free")

    def _check_credits(self) -> None:
        engine = self.engine
        ib = engine.fabric.infiniband
        slow = []
        for port in self.ports:
            loop = port.rate * (2 * port.prop + ib.credit_processing_ns * 1e-9)
            if ib.vl_buffer_bytes < loop + engine.cell_bytes:
                slow.append(f"VL buffer {_kb(ib.vl_buffer_bytes)} behind {port.src} -> "
                            f"{port.dst} is below the credit loop C x (2 t_prop + t_credit) + "
                            f"1 cell = {_kb(loop + engine.cell_bytes)}: the link cannot reach "
                            "line rate")
        self._add_warnings(slow)

    def _add_warnings(self, items: list[str]) -> None:
        self.warnings.extend(items[:MAX_WARNINGS_PER_KIND])
        if len(items) > MAX_WARNINGS_PER_KIND:
            self.warnings.append(f"... and {len(items) - MAX_WARNINGS_PER_KIND} more like it")
