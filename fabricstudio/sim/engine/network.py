"""Build the runtime network (nodes, directed-link ports, endpoints) from a frozen design."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabricstudio.model import Design, Technology
from fabricstudio.model.devices import GpuServer, StorageServer
from fabricstudio.model.fabric import PfcSettings
from fabricstudio.model.units import format_kb as _kb
from fabricstudio.sim.engine.config import EngineError
from fabricstudio.sim.engine.nodes import EthernetSwitch, Host, IbSwitch, RoceSwitch, Switch
from fabricstudio.sim.engine.ports import FINE_SHARE, NicPort, PfcWatchdog, Port
from fabricstudio.sim.engine.routing import Endpoint
from fabricstudio.sim.engine.topology import directed_links, endpoint_ports
from fabricstudio.sim.metrics import DirectedLink

if TYPE_CHECKING:
    from fabricstudio.sim.engine.core import Engine

SERVER_TYPES = (GpuServer, StorageServer)
#: A host NIC of the cell engine: a NicPort out, a Port back in.
CellEndpoint = Endpoint[NicPort, Port]
MAX_WARNINGS_PER_KIND = 8


def reference_speed(nic_speeds: list[float]) -> float:
    """The speed PFC's alpha is scaled from: the slowest host NIC (100G without NICs)."""
    return min(nic_speeds) if nic_speeds else 100.0


def ingress_alpha(pfc: PfcSettings, speed_gbps: float, ref_speed: float) -> float:
    """Dynamic-threshold alpha of a switch ingress: faster links get a larger share."""
    return pfc.alpha * max(1.0, speed_gbps / ref_speed)


def pfc_headroom(pfc: PfcSettings, rate: float, prop: float, mtu: int) -> int:
    """PFC headroom of the ingress fed at ``rate`` (bytes/s) over ``prop`` seconds of cable:
    configured, or C(2 t_prop + t_resp) + 2 MTU."""
    if pfc.headroom_bytes is not None:
        return pfc.headroom_bytes
    return int(rate * (2 * prop + pfc.response_time_ns * 1e-9) + 2 * mtu)


def fine_cell_bytes(alpha: float, buffer: int, fixed: int, mtu: int) -> int:
    """Largest cell sent into an ingress while PFC is active on it: a sixteenth
    (:data:`FINE_SHARE`) of its XOFF threshold on an empty buffer, at least one MTU."""
    return max(int(alpha * max(buffer - fixed, 0) // FINE_SHARE), mtu)


def vl_credits(vl_buffer: int, share: int | None) -> int:
    """InfiniBand credits a receiver advertises: its VL buffer, at a switch never more than
    ``share``, its buffer over its connected input ports (None: a host adapter)."""
    return vl_buffer if share is None else min(vl_buffer, share)


class Network:
    """Nodes, ports (directed links, two per cable) and NIC endpoints of one run."""

    def __init__(self, engine: Engine, design: Design) -> None:
        self.engine = engine
        self.design = design
        self.hosts: dict[str, Host] = {}
        self.switches: dict[str, Switch] = {}
        self.ports: list[Port] = []
        self.directed: list[DirectedLink] = []
        self.endpoints: list[CellEndpoint] = []
        self.endpoint_of: dict[tuple[str, int], CellEndpoint] = {}
        self.warnings: list[str] = []
        self._buffer_share: dict[str, int] = {}
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
        for spec in directed_links(self.design):  # a -> b, then b -> a for every cable
            src, dst, speed = spec.src, spec.dst, spec.speed_gbps
            cls = NicPort if src in self.hosts else Port
            index = len(self.ports)
            port = cls(index, spec.link_id, src, spec.src_port, dst, spec.dst_port, speed,
                       spec.length_m * prop_per_m, engine.clock, engine)
            owner, peer = self.node(src), self.node(dst)
            port.owner, port.peer = owner, peer
            if isinstance(owner, Switch):
                port.on_dequeue = owner.on_dequeue
                port.fwd = owner.latency
            port.peer_receive = (peer.receive,)
            if isinstance(peer, Host):
                port.to_host = True
                port.arrive_delay = nic_latency  # after the tail
            else:
                port.arrive_delay = port.prop  # the head reaches the next switch
            owner.out[port.src_port] = port
            self.ports.append(port)
            self.directed.append(DirectedLink(index, spec.link_id, src, port.src_port, dst,
                                              port.dst_port, speed))
            if index % 2:  # the second direction of the cable
                there, back = self.ports[index - 1], port
                there.reverse, back.reverse = back, there

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
        ref_speed = reference_speed([ep.up.speed_gbps for ep in self.endpoints])
        pfc = fabric.pfc
        watchdog = (PfcWatchdog(engine, pfc.watchdog_detect_ms * 1e-3,
                                pfc.watchdog_restore_ms * 1e-3, pfc.watchdog_action)
                    if tech is Technology.ROCE and pfc.enabled and pfc.watchdog else None)
        dctcp = tech is Technology.ETHERNET and fabric.tcp.transport == "dctcp"
        for port in self.ports:
            if isinstance(port.owner, Switch) and (engine.ecn_enabled or engine.ib_cc):
                port.kmin, port.kmax = fabric.ecn.thresholds(port.speed_gbps)
                port.pmax = fabric.ecn.pmax
            elif isinstance(port.owner, Switch) and dctcp:  # DCTCP: mark above K (a step)
                port.kmin = port.kmax = fabric.tcp.dctcp_k_bytes_at_100g * port.speed_gbps / 100
                port.pmax = 1.0
            if tech is Technology.INFINIBAND:
                port.credit_based = True
                port.credits = port.credit_max = self._vl_credits(port)
            elif tech is Technology.ROCE:
                port.pfc_delay = port.prop + pfc.response_time_ns * 1e-9
                port.pause_quanta = pfc.pause_quanta
                port.refresh_s = pfc.refresh_quanta * port.quantum
                if isinstance(port.peer, Switch):
                    port.headroom = pfc_headroom(pfc, port.rate, port.prop, engine.mtu)
                    port.alpha = ingress_alpha(pfc, port.speed_gbps, ref_speed)
                if isinstance(port.owner, Switch):
                    port.watchdog = watchdog
        if tech is not Technology.INFINIBAND:
            tiny = [sw.id for sw in self.switches.values() if sw.buffer < 2 * engine.cell_bytes]
            if tiny:
                self.warnings.append(
                    f"{', '.join(tiny[:MAX_WARNINGS_PER_KIND])}: packet buffer below two cells "
                    f"of {engine.cell_bytes} B: almost every cell will be dropped")
        if tech is Technology.ROCE:
            for switch in self.switches.values():
                assert isinstance(switch, RoceSwitch)  # a RoCE fabric builds RoCE switches
                ingress = self._ingress_ports(switch)
                switch.finish_wiring(ingress)
                self._fine_cells(switch, ingress)
                self._check_buffer(switch, ingress)
                self._check_ecn_before_pfc(switch, ingress)
            self._check_headroom()
        if tech is Technology.INFINIBAND:
            self._check_credits()

    def _ingress_ports(self, switch: Switch) -> list[Port]:
        return [p for p in self.ports if p.peer is switch]

    def _vl_credits(self, port: Port) -> int:
        """Credits the receiver of ``port`` advertises for the one data VL: the configured VL
        buffer, but never more than the switch's buffer shared out over its connected input
        ports (a switch cannot promise more buffer than it has)."""
        vl = self.engine.fabric.infiniband.vl_buffer_bytes
        switch = port.peer
        if not isinstance(switch, Switch):
            return vl  # a host channel adapter's receive buffer
        share = self._buffer_share.get(switch.id)
        if share is None:
            share = switch.buffer // max(1, len(self._ingress_ports(switch)))
            self._buffer_share[switch.id] = share
        return vl_credits(vl, share)

    def _fine_cells(self, switch: RoceSwitch, ingress: list[Port]) -> None:
        """While PFC is active on a link its transmitter sends cells of at most a sixteenth
        of the receiving ingress's pause threshold (on an empty buffer): a PAUSE then stops
        the sender within a small part of what the threshold holds, as it would at packet
        granularity; big buffers keep whole cells."""
        if not switch.pfc:
            return
        for port in ingress:
            port.fine_bytes = fine_cell_bytes(port.alpha, switch.buffer, switch.fixed,
                                              self.engine.mtu)
            port.pfc_recent = 2 * port.refresh_s

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
        slow, tiny = [], []
        for port in self.ports:
            credits = port.credit_max
            where = (f"behind {port.src} -> {port.dst}" if credits == ib.vl_buffer_bytes else
                     f"of {port.dst} ({_kb(port.peer.buffer)} over "
                     f"{len(self._ingress_ports(port.peer))} input ports) behind {port.src}")
            if credits < engine.cell_bytes:
                tiny.append(f"buffer share {_kb(credits)} {where} is below one cell of "
                            f"{engine.cell_bytes} B: a cell is sent with the full credit and "
                            "the switch may hold more than its buffer; use smaller cells")
                continue
            loop = port.rate * (2 * port.prop + ib.credit_processing_ns * 1e-9)
            if credits < loop + engine.cell_bytes:
                slow.append(f"VL buffer {_kb(credits)} {where} is below the credit loop "
                            f"C x (2 t_prop + t_credit) + 1 cell = "
                            f"{_kb(loop + engine.cell_bytes)}: the link cannot reach line rate")
        self._add_warnings(tiny)
        self._add_warnings(slow)

    def _add_warnings(self, items: list[str]) -> None:
        self.warnings.extend(items[:MAX_WARNINGS_PER_KIND])
        if len(items) > MAX_WARNINGS_PER_KIND:
            self.warnings.append(f"... and {len(items) - MAX_WARNINGS_PER_KIND} more like it")
