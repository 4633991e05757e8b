"""The cell-level engine: build from a frozen design, add flows, advance in slices."""

from __future__ import annotations

import time
from collections.abc import Callable
from random import Random
from typing import TYPE_CHECKING, Any, cast

from simpy.core import StopSimulation

from fabricstudio.model import Design, FabricSettings, Technology, freeze
from fabricstudio.model.devices import GpuServer
from fabricstudio.model.units import transfer_time_s
from fabricstudio.sim.engine.addressing import on_one_server, resolve_address
from fabricstudio.sim.engine.clock import Call, Clock, environment
from fabricstudio.sim.engine.config import EngineConfig, EngineError, FlowRecord
from fabricstudio.sim.engine.control import ControlPlane
from fabricstudio.sim.engine.dcqcn import DcqcnRp
from fabricstudio.sim.engine.deadlock import DeadlockWatch
from fabricstudio.sim.engine.flowlog import FlowLog
from fabricstudio.sim.engine.flows import DcqcnFlow, Flow, IbCcFlow, IbCcState
from fabricstudio.sim.engine.network import CellEndpoint, Network
from fabricstudio.sim.engine.paced import PacedFlow
from fabricstudio.sim.engine.params import DcqcnParams, IbCcParams, TcpParams
from fabricstudio.sim.engine.ports import Cell, Port
from fabricstudio.sim.engine.routing import Router, connection_sport, resolve_mode
from fabricstudio.sim.engine.sampler import Sampler
from fabricstudio.sim.engine.stall import ReceiverStall
from fabricstudio.sim.engine.tcp import TcpFlow
from fabricstudio.sim.metrics import MetricStream

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.sim.engine.failures import FailureInjector

#: Latency of an NVLink transfer between GPUs of one server (SimAI: 25 ns).
NVLINK_LATENCY_S = 25e-9
#: Scheduled callbacks that never move data (see :meth:`Engine.stalled`).
_HOUSEKEEPING = frozenset({Sampler._tick, DeadlockWatch._check, Port._refresh})


class Engine:
    """Cell-level simulation of one design.  Time unit: seconds.

    >>> eng = Engine(design, EngineConfig(technology=Technology.ROCE))   # doctest: +SKIP
    >>> eng.add_flow("h1", "h2", 10_000_000); eng.advance(1e-3)           # doctest: +SKIP
    """

    def __init__(self, design: Design, config: EngineConfig | None = None) -> None:
        self.config = config or EngineConfig()
        fabric = self._effective_fabric(self.config, design.fabric)
        self.design = freeze(design).with_fabric(fabric)  # the snapshot shows what runs
        self.fabric = fabric
        self.technology: Technology = fabric.technology
        self.cell_bytes = int(self.config.cell_bytes)
        self.mtu = fabric.mtu_bytes
        self.wire_overhead = fabric.wire_overhead_bytes()
        roce = self.technology is Technology.ROCE
        self.ecn_enabled = roce and fabric.ecn.enabled
        self.dcqcn_enabled = roce and fabric.dcqcn.enabled
        self.ib_cc = (self.technology is Technology.INFINIBAND
                      and fabric.infiniband.congestion_control)
        self.dcqcn_params = DcqcnParams.from_fabric(fabric)
        self.tcp_params = TcpParams.from_fabric(fabric)
        self.ibcc_params = IbCcParams()
        self.rng = Random(self.config.seed)
        self.env = environment()
        self.clock = Clock(self.env)
        # totals
        self.offered = self.delivered = self.dropped = self.retransmitted = 0
        self.in_flight = self.duplicates = self.nvlink_bytes = 0
        self.drops = self.pfc_pauses = self.ecn_marks = self.cnps = 0
        self.lossless_violations = self.timeouts = self.watchdog_drops = 0
        self.pfc_frames = self.pfc_watchdog_triggers = 0
        self.fast_retransmits = self.tail_loss_probes = 0
        self.control_wire_bytes = 0
        #: None while no deadlock was found; then {"detected": True, "at_s", "since_s",
        #: "cycle": [link ids], "path": [devices]} and the run is over.
        self.deadlock: dict[str, Any] | None = None
        self._wall = 0.0
        self.flows = FlowLog()
        self._streams: dict[int, Flow] = {}
        self._routes: dict[tuple[int, int, int], tuple[tuple[Port, ...] | None, float]] = {}
        self._addresses: dict[str, tuple[str, int, int | None]] = {}
        self._rate_states: dict[tuple[int, int, int], DcqcnRp | IbCcState] = {}
        #: sends control frames in band (None: they arrive after fixed delays)
        self.control = ControlPlane(self) if self.config.control_in_band else None
        self.net = Network(self, self.design)
        self.ports = self.net.ports
        self.router: Router[Port] = Router(self.net.switches, self.net.endpoints,
                                           self._routing_mode(), self.config.seed)
        self.config_warnings = list(self.net.warnings)
        self._warn_settings()
        self.stream = MetricStream(tuple(self.net.directed), self.config.resolved_sample_period(),
                                   fabric)
        self.sampler = Sampler(self)
        #: How long a dependency cycle must stay frozen to be reported (None: no watch).
        self.deadlock_stretch = self._deadlock_stretch()
        if self.deadlock_stretch is not None:
            DeadlockWatch(self, self.deadlock_stretch)
        #: The failure injector of the run (sim.engine.failures), told of every new flow.
        self.failures: FailureInjector | None = None
        #: True when the caller guarantees that the traffic of one workload is all there
        #: will be (sim.run: a lone collective): its rings may then be solved as arrays
        #: (sim.workloads.ring_arrays) instead of cell by cell.
        self.sole_traffic = False
        #: Per ring phase offered to that solver: None when it took the rings, else why not.
        self.ring_arrays: list[str | None] = []
        #: Set by sim.run when the run was accepted only because its ring is solved as
        #: arrays: why it must stop (EngineError) rather than go on cell by cell if they
        #: decline once it starts.
        self.arrays_required: str | None = None

    # ------------------------------------------------------------------ setup helpers
    @staticmethod
    def _effective_fabric(config: EngineConfig, fabric: FabricSettings) -> FabricSettings:
        """The design's fabric settings with the run's overrides applied."""
        fabric = config.fabric or fabric
        if config.technology is not None:
            fabric = fabric.model_copy(update={"technology": config.technology})
        if config.dcqcn is not None:
            dcqcn = fabric.dcqcn.model_copy(update={"enabled": bool(config.dcqcn)})
            fabric = fabric.model_copy(update={"dcqcn": dcqcn})
        return fabric

    def _deadlock_stretch(self) -> float | None:
        """How long a cycle must stay frozen to be a deadlock (None: no check; a fabric
        without PFC or credits cannot deadlock).  With the switch PFC watchdog on, a cycle is
        reported only once it outlasts twice the watchdog's detection time."""
        stretch = self.config.deadlock_detect_s
        if stretch is None:
            return None
        pfc = self.fabric.pfc
        if self.technology is Technology.ROCE:
            if not pfc.enabled:
                return None
            if pfc.watchdog:
                stretch = max(stretch, 2e-3 * pfc.watchdog_detect_ms)
        elif self.technology is not Technology.INFINIBAND:
            return None
        return stretch

    def declare_deadlock(self, cycle: list[Port], since_s: float) -> None:
        """The deadlock watch found ``cycle`` (ports in dependency order) frozen since
        ``since_s``: record it; the run is over."""
        self.deadlock = {
            "detected": True,
            "at_s": self.env.now,
            "since_s": since_s,
            "cycle": [port.link_id for port in cycle],
            "path": [port.src for port in cycle] + [cycle[0].src],
        }

    def _routing_mode(self) -> str:
        return resolve_mode(self.config.routing, self.technology is Technology.INFINIBAND)

    def _warn_settings(self) -> None:
        if self.technology is Technology.ROCE and self.dcqcn_enabled and not self.ecn_enabled:
            self.config_warnings.append("DCQCN is on but ECN marking is off: no CNPs will be "
                                        "generated, DCQCN never reacts")
        if self.technology is Technology.ETHERNET and self.cell_bytes > self.mtu:
            self.config_warnings.append(
                f"lossy Ethernet runs TCP per packet: its cells carry one {self.mtu} B packet, "
                f"not {self.cell_bytes} B (drops, ACK clocking and loss recovery do not "
                "depend on the cell size)")
        if self.technology is Technology.ROCE and not self.fabric.pfc.enabled:
            self.config_warnings.append("PFC is off on RoCE: the fabric is lossy; senders "
                                        "recover lost cells by go-back-N")

    @property
    def now(self) -> float:
        """Current simulated time (seconds)."""
        return self.env.now

    @property
    def routing(self) -> str:
        """Routing mode in effect: "ecmp", "static" or "adaptive"."""
        return self.router.mode

    # ------------------------------------------------------------------ addressing
    def resolve(self, address: str) -> tuple[str, int, int | None]:
        """``server``, ``server/gpuN`` or ``server/nicN`` -> (device id, NIC port, GPU or None)."""
        known = self._addresses.get(address)
        if known is None:
            known = self._addresses[address] = self._resolve(address)
        return known

    def _resolve(self, address: str) -> tuple[str, int, int | None]:
        return resolve_address(self.design, address)

    def _endpoint(self, address: str, device: str, nic: int) -> CellEndpoint:
        ep = self.net.endpoint_of.get((device, nic))
        if ep is None:
            raise EngineError(f"{address!r}: NIC {nic} of {device} is not connected")
        return ep

    # ------------------------------------------------------------------ flows
    def add_flow(self, src: str, dst: str, size_bytes: float, start_s: float | None = None,
                 on_done: Callable[[FlowRecord], None] | None = None, tag: str = "",
                 qp: int = 0, stream: tuple[int, int, Callable[[int], None] | None] | None = None,
                 pace_bps: float | None = None) -> int:
        """Schedule a transfer of ``size_bytes`` from ``src`` to ``dst``; returns its id.

        Same-server GPU pairs use NVLink (fixed bandwidth, contention-free).  ``on_done`` is
        called with the flow's record at the simulated instant its last byte is delivered.
        ``qp`` picks the queue pair of the connection: flows between the same two NICs on the
        same queue pair share one UDP source port and so one ECMP path (like an NCCL
        connection reused by every step); a different ``qp`` gives the hash new entropy.

        ``stream = (unit_bytes, released_units, on_units)`` makes the flow an aggregated
        transfer of ``size / unit_bytes`` units sliced into cells here (one record for, e.g.,
        every step of a ring hop): only released units are sent (:meth:`release`) and
        ``on_units(n)`` reports the units that have arrived (see ``Flow.configure_units``).
        ``pace_bps`` (payload bits per second) paces the flow at that rate without congestion
        control (background load: ``PacedFlow``).
        """
        now = self.env.now
        rec = self.flows.request(src, dst, size_bytes, start_s, now, tag)
        start, size = rec.start_s, rec.size_bytes
        source, target = self.resolve(src), self.resolve(dst)
        (sdev, snic, _), (ddev, dnic, _) = source, target
        if sdev == ddev and stream is not None:
            raise EngineError(f"stream {src} -> {dst}: NVLink streams are not simulated "
                              "(collectives model their NVLink hops analytically)")
        if on_one_server(src, dst, source, target):
            self._add_nvlink(rec, start, on_done)
            return rec.id
        sep = self._endpoint(src, sdev, snic)
        dep = self._endpoint(dst, ddev, dnic)
        qp = int(qp)
        path, delay = self._route(sep, dep, qp)
        cls = self._flow_class()
        flow: Flow
        if pace_bps is not None:
            flow = PacedFlow(self, rec, sep.up, path, dep.index, delay, on_done,
                             rate=float(pace_bps) / 8)
        elif cls is DcqcnFlow:
            flow = DcqcnFlow(self, rec, sep.up, path, dep.index, delay, on_done,
                             rp=cast(DcqcnRp, self._rate_state(sep, dep, qp)))
        elif cls is IbCcFlow:
            flow = IbCcFlow(self, rec, sep.up, path, dep.index, delay, on_done,
                            cc=cast(IbCcState, self._rate_state(sep, dep, qp)))
        else:
            flow = cls(self, rec, sep.up, path, dep.index, delay, on_done)
        if stream is not None:
            unit_bytes, released, on_units = stream
            if unit_bytes <= 0 or size % unit_bytes:
                raise EngineError(f"stream {src} -> {dst}: {size} B is not a whole number of "
                                  f"{unit_bytes} B units")
            flow.configure_units(unit_bytes, released, on_units)
            self._streams[rec.id] = flow
        if self.control is not None:
            there = path if path is not None else self.router.path(sep, dep, 0, "adaptive")
            flow.back = tuple(port.reverse for port in reversed(there)
                              if port.reverse is not None)
        self.flows.append(rec)
        self.sampler.track(rec)
        if self.failures is not None:
            self.failures.track(flow)
        self.clock.call(start - now + self.fabric.nic_latency_ns * 1e-9, self._start, flow)
        return rec.id

    def stall_receiver(self, address: str, start_s: float, duration_s: float) -> None:
        """Make the NIC of ``address`` stop draining received data for ``duration_s`` from
        ``start_s`` (a stuck host: PFC pause storm on RoCE, withheld credits on InfiniBand,
        drops on lossy Ethernet).  See :mod:`fabricstudio.sim.engine.stall`."""
        device, nic, _ = self.resolve(address)
        if nic < 0:
            raise EngineError(f"{address!r}: {device} has no NIC")
        ep = self._endpoint(address, device, nic)
        now = self.env.now
        if not float(duration_s) > 0:
            raise EngineError(f"stall of {address}: duration {duration_s} s must be positive")
        if float(start_s) < now:
            raise EngineError(f"stall of {address}: start {start_s} s is before now ({now} s)")
        ReceiverStall(self, self.net.hosts[device], ep.down, float(start_s), float(duration_s))

    def _route(self, sep: CellEndpoint, dep: CellEndpoint, qp: int
               ) -> tuple[tuple[Port, ...] | None, float]:
        """(path or None for adaptive routing, one-way base delay) of a connection, cached."""
        key = (sep.index, dep.index, qp)
        route = self._routes.get(key)
        if route is None:
            sport = connection_sport(sep.index, dep.index, qp)
            mode = self.router.mode
            path = self.router.path(sep, dep, sport, mode)
            route = (None if mode == "adaptive" else path, self._path_delay(path))
            self._routes[key] = route
        return route

    def _rate_state(self, sep: CellEndpoint, dep: CellEndpoint, qp: int) -> DcqcnRp | IbCcState:
        """Congestion-control state of a queue pair (kept across the flows that use it)."""
        key = (sep.index, dep.index, qp)
        state = self._rate_states.get(key)
        if state is None:
            if self.dcqcn_enabled:
                state = DcqcnRp(self.clock, self.dcqcn_params, sep.up.rate)
            else:
                state = IbCcState(self.clock, self.ibcc_params)
            self._rate_states[key] = state
        return state

    def queue_pair(self, src: str, dst: str, qp: int = 0) -> DcqcnRp | IbCcState | None:
        """Congestion-control state (DCQCN or InfiniBand CC) of queue pair ``qp`` from
        ``src`` to ``dst``; None before a flow has used it (or without congestion control)."""
        (sdev, snic, _), (ddev, dnic, _) = self.resolve(src), self.resolve(dst)
        sep, dep = self._endpoint(src, sdev, snic), self._endpoint(dst, ddev, dnic)
        return self._rate_states.get((sep.index, dep.index, int(qp)))

    def _flow_class(self) -> type[Flow]:
        if self.technology is Technology.ETHERNET:
            return TcpFlow
        if self.dcqcn_enabled:
            return DcqcnFlow
        if self.ib_cc:
            return IbCcFlow
        return Flow

    def _path_delay(self, path: tuple[Port, ...]) -> float:
        """One-way base delay of a path (propagation, switch and NIC latency)."""
        delay = 2 * self.fabric.nic_latency_ns * 1e-9
        for port in path:
            delay += port.prop
            if not port.to_host:
                delay += port.peer.latency
        return delay

    def release(self, flow_id: int, units: int, not_before_s: float = 0.0) -> None:
        """Let stream ``flow_id`` send its first ``units`` units, none before ``not_before_s``
        (simulated seconds); no-op once the stream has finished."""
        flow = self._streams.get(flow_id)
        if flow is not None:
            flow.release(units, not_before_s)

    def flow_finished(self, rec: FlowRecord) -> None:
        """A flow delivered its last byte: the log folds it into its totals."""
        self.flows.finished(rec)
        self._streams.pop(rec.id, None)

    def _start(self, event: Call) -> None:
        flow = event.arg
        if flow.has_data():  # a stream may start with nothing released
            flow.nic.activate(flow)

    def _add_nvlink(self, rec: FlowRecord, start: float,
                    on_done: Callable[[FlowRecord], None] | None) -> None:
        device = self.design.devices[rec.src.partition("/")[0]]
        assert isinstance(device, GpuServer)  # GPU-to-GPU on one server
        duration = NVLINK_LATENCY_S + transfer_time_s(rec.size_bytes, device.nvlink_gbps)
        self.flows.append(rec)
        self.sampler.track(rec)
        self.sampler.track_fluid(rec, start + NVLINK_LATENCY_S, start + duration)

        def done(_event: Call) -> None:
            rec.delivered_bytes = rec.size_bytes
            rec.finish_s = self.env.now
            self.nvlink_bytes += rec.size_bytes
            self.flows.finished(rec)
            self.sampler.track(rec)
            if on_done is not None:
                on_done(rec)

        self.clock.call(start - self.env.now + duration, done)

    # ------------------------------------------------------------------ engine callbacks
    def offer(self, cell: Cell) -> None:
        """A NIC put ``cell`` on the wire."""
        self.offered += cell.bytes
        self.in_flight += cell.bytes

    def drop(self, cell: Cell) -> None:
        """``cell`` was lost inside the fabric."""
        self.dropped += cell.bytes
        self.in_flight -= cell.bytes
        self.drops += cell.npkts
        cell.flow.on_drop(cell)

    def trim(self, cell: Cell, keep: int, port: Port) -> None:
        """Only the first ``keep`` packets of ``cell`` fit: the rest are lost (counted on
        ``port``); the cell goes on with what is left (its tail arrives that much earlier)."""
        flow = cell.flow
        size = flow.span_bytes(cell.seq, keep)
        lost_bytes = cell.bytes - size
        lost = cell.npkts - keep
        wire = size + keep * self.wire_overhead
        cell.tail -= (cell.wire - wire) / cell.via.rate
        cell.bytes, cell.npkts, cell.wire = size, keep, wire
        self.dropped += lost_bytes
        self.in_flight -= lost_bytes
        self.drops += lost
        port.drops += lost
        flow.on_drop(cell)

    # ------------------------------------------------------------------ running
    def advance(self, until_s: float) -> None:
        """Run the simulation up to ``until_s`` seconds (resumable, call with increasing times)."""
        until = float(until_s)
        if until <= self.env.now or self.deadlock is not None:
            return
        started = time.perf_counter()
        try:
            env = self.env
            env.run(until=until)
            while self.deadlock is None and env.peek() <= until:  # events due exactly at
                env.step()  # ``until`` (e.g. its frame)
        except StopSimulation:  # the deadlock watch ended the run
            pass
        finally:
            self._wall += time.perf_counter() - started

    # ------------------------------------------------------------------ reports
    def link_stats(self, measure_from_s: float = 0.0) -> list[dict[str, Any]]:
        """Per directed link statistics over ``[measure_from_s, now]``."""
        return self.sampler.link_stats(measure_from_s)

    def totals(self) -> dict[str, Any]:
        """Fabric-wide byte and event counts (conservation:
        offered = delivered + dropped + in flight).  Read-only: safe to call between slices
        or from another thread while the engine runs (values may then be a slice apart)."""
        now = self.env.now
        return {
            "offered_bytes": self.offered,
            "delivered_bytes": self.delivered,
            "dropped_bytes": self.dropped,
            "retransmitted_bytes": self.retransmitted,
            "in_flight_bytes": self.in_flight,
            "duplicate_bytes": self.duplicates,
            "goodput_bytes": self.delivered - self.duplicates,
            "nvlink_bytes": self.nvlink_bytes,
            "drops": self.drops,
            "pfc_pauses": self.pfc_pauses,
            "paused_time_s": sum(p.paused_until(now) for p in self.ports),
            "ecn_marks": self.ecn_marks,
            "cnps": self.cnps,
            "credit_stall_time_s": sum(p.stalled_until(now) for p in self.ports),
            "lossless_violations": self.lossless_violations,
            "watchdog_drops": self.watchdog_drops,
            "timeouts": self.timeouts,
            "pfc_frames": self.pfc_frames,
            "pfc_watchdog_triggers": self.pfc_watchdog_triggers,
            "deadlock": dict(self.deadlock) if self.deadlock else {"detected": False},
            "fast_retransmits": self.fast_retransmits,
            "tail_loss_probes": self.tail_loss_probes,
            "control_wire_bytes": self.control_wire_bytes,
        }

    def stalled(self) -> bool:
        """True when nothing can move any more: only housekeeping is scheduled (metric
        frames, the deadlock watch, PFC refreshes that renew a standing PAUSE) - no cell,
        credit, timer or workload step.  (Reads the clock's event heap: call between slices.)"""
        for event in self.clock.scheduled():
            callbacks = getattr(event, "callbacks", None)
            if not callbacks:
                continue
            if len(callbacks) != 1 or getattr(callbacks[0], "__func__", None) not in \
                    _HOUSEKEEPING:
                return False
        return True

    def stats(self) -> dict[str, Any]:
        """Engine performance figures."""
        events = self.clock.events
        return {
            "events": events,
            "cell_bytes": self.cell_bytes,
            "wall_time_s": self._wall,
            "events_per_s": events / self._wall if self._wall > 0 else 0.0,
            "cell_hops": sum(p.tx_cells for p in self.ports),
        }
