"""Failures in the cell engine: dead links lose their cells, the fabric reroutes later.

The hooks touch the engine's own code in one place (``Engine.add_flow`` tells
:attr:`Engine.failures` about each new flow); everything else happens here, on the engine's
clock, from the failure list of the scenario:

* **Down.** Both directions of each cable of the failure stop: the port's class is switched
  to :class:`DownPort` / :class:`DownNicPort` (same slots, no cost to healthy ports), whose
  transmitter never starts a cell and whose queue drops what a switch still routes into it.
  The cells queued on it and the cells on the wire (their arrival events on SimPy's heap)
  are lost, on every fabric: a cut cable carries nothing, PFC and credits cannot help.  The
  switch that held a lost cell frees its buffer as if it had sent it (PFC ingress accounting
  and InfiniBand credits stay exact), and the flow's own loss recovery takes over
  (go-back-N with NAK or timeout for RDMA, duplicate ACKs and RTO for TCP).
* **Reroute.** After the convergence delay of the technology (:func:`convergence_delay`)
  the engine's router is replaced by a :class:`FailoverRouter` that sees only live ports
  (ECMP rehashes over the remaining next hops, D-mod-K over the remaining ones), and every
  unfinished flow takes its new path.  Cells of a rerouted flow already past the point where
  the paths differ finish on their old path (switches do not recall packets); a flow that
  has no path left keeps the old one and loses its cells until the element is repaired.
* **Repair.** The ports work again at ``repair_s`` (credits lost on the wire are returned,
  as the link's initialisation does); routes use them again after the same delay.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from fabricstudio.model import Technology
from fabricstudio.model.failures import FailoverSettings, Failure, failed_elements
from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.config import EngineError
from fabricstudio.sim.engine.flows import Flow
from fabricstudio.sim.engine.ports import Cell, NicPort, Port
from fabricstudio.sim.engine.routing import Endpoint, H, Router, RouterNode

#: A directed link as an engine's failure bookkeeping holds it (a Port, or a link index).
P = TypeVar("P")


class DownPort(Port):
    """A switch egress on a dead cable: sends nothing; cells routed into it are lost."""

    __slots__ = ()

    def enqueue(self, cell: Cell) -> None:
        """The switch routed a cell into a dead port: it is lost."""
        injector = self.engine.failures
        assert injector is not None  # only the injector makes a port a DownPort
        injector.lose_queued(self, cell)

    def kick(self) -> None:
        """Nothing leaves a dead port."""


class DownNicPort(NicPort):
    """A host NIC on a dead cable: its flows wait (their timers still run)."""

    __slots__ = ()

    def kick(self) -> None:
        """Nothing leaves a dead NIC."""


_DOWN = {Port: DownPort, NicPort: DownNicPort}
#: A rerouted flow: (flow, old path, new path).
_Move = tuple[Flow, tuple[Port, ...], tuple[Port, ...]]
_UP = {DownPort: Port, DownNicPort: NicPort}


class _SwitchView(Generic[H]):
    """What the router reads of a switch, with the dead ports left out."""

    __slots__ = ("id", "index", "tier", "out")

    def __init__(self, switch: RouterNode[H], dead: set[int]) -> None:
        self.id = switch.id
        self.index = switch.index
        self.tier = switch.tier
        self.out = {n: p for n, p in switch.out.items() if p.index not in dead}


class FailoverRouter(Router[H]):
    """The engine's router over the live ports only.  Where no live path exists it answers
    with the healthy router's path (traffic is then lost at the dead element, as a switch
    without a route drops it).  Both engines use it (``H`` is their directed-link type)."""

    def __init__(self, healthy: Router[H], dead: set[int]) -> None:
        views = {sid: _SwitchView(sw, dead) for sid, sw in healthy.switches.items()}
        super().__init__(views, healthy.endpoints, healthy.mode, healthy.seed)
        self.healthy = healthy
        self.dead = dead

    def candidates(self, switch: RouterNode[H], dst_ep: int) -> tuple[H, ...]:
        """Live minimal next hops of ``switch`` toward endpoint ``dst_ep`` (the healthy ones
        when none is left)."""
        view = self.switches.get(switch.id, switch)
        return super().candidates(view, dst_ep) or self.healthy.candidates(
            self.healthy.switches[switch.id], dst_ep)

    def toward(self, switch: RouterNode[H], attach: str) -> tuple[H, ...]:
        """Live minimal next hops of ``switch`` toward switch ``attach`` (the healthy ones
        when none is left)."""
        view = self.switches.get(switch.id, switch)
        return super().toward(view, attach) or self.healthy.toward(
            self.healthy.switches[switch.id], attach)

    def path(self, src: Endpoint[H, H], dst: Endpoint[H, H], sport: int,
             mode: str) -> tuple[H, ...]:
        """A live path, or the healthy one when the failures left none (a NIC's own dead
        cable, which no route avoids, counts as none left too)."""
        try:
            found = super().path(src, dst, sport, mode)
        except EngineError:
            self.unroutable += 1
            return self.healthy.path(src, dst, sport, mode)
        if any(port.index in self.dead for port in found):
            self.unroutable += 1
        return found


class _OldRoute(Flow):
    """Stands in for a rerouted flow on the cells it had beyond the fork: they finish on the
    path their switches had chosen.  Everything but ``path`` is the flow's own: every other
    attribute, methods included, is read from and written to the flow itself (so its methods
    run on the flow and see its new path).  A Flow to the engine's cells; never initialised
    as one."""

    __slots__ = ("_flow",)

    def __init__(self, flow: Flow, path: tuple[Port, ...]) -> None:
        object.__setattr__(self, "_flow", flow)
        object.__setattr__(self, "path", path)

    def __getattribute__(self, name: str) -> Any:
        if name == "path":
            return object.__getattribute__(self, name)
        return getattr(object.__getattribute__(self, "_flow"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_flow"), name, value)


def schedule_failures(engine: Any, failures: Sequence[Failure],
                      parts_of: Mapping[str, list[P]],
                      fail: Callable[[Call], object], repair: Callable[[Call], object]) -> None:
    """Schedule each failure, and its repair when it has one, on ``engine``'s clock (either
    engine): ``fail`` at its time and ``repair`` at the repair's, each called with the clock
    event carrying ``(failure, parts)``: the engine's directed links of the cables it takes
    down (``parts_of`` maps a cable id to them)."""
    now = engine.env.now
    for failure in failures:
        down = failed_elements(engine.design, [failure])
        parts = [p for cable in down.down_links(engine.design) for p in parts_of[cable]]
        engine.clock.call(failure.at_s - now, fail, (failure, parts))
        if failure.repair_s is not None:
            engine.clock.call(failure.repair_s - now, repair, (failure, parts))


def convergence_delay(technology: Technology, routing: str, settings: FailoverSettings,
                      repair: bool = False) -> float:
    """Seconds from a failure (or repair) until routes avoid (or use again) the element.

    Adaptive routing: at once.  InfiniBand static routes: the subnet manager's re-sweep, or at
    once for a failure with SHIELD (fast link fault recovery; a repair still waits for the
    sweep).  Ethernet/RoCE: the routing convergence time."""
    if routing == "adaptive":
        return 0.0
    if technology is Technology.INFINIBAND and routing == "static":
        return settings.sm_resweep_s if repair or not settings.ib_shield else 0.0
    return settings.routing_convergence_s


class FailureInjector:
    """Schedules a scenario's failures on an engine and keeps what they cost."""

    def __init__(self, engine: Any, failures: Sequence[Failure],
                 settings: FailoverSettings | None = None) -> None:
        self.engine = engine
        self.settings = settings or FailoverSettings()
        self.flows: list[Any] = []
        self._prune_at = 4096
        self.healthy: Router[Port] = engine.router
        #: Ports the routes avoid (down, and converged on).
        self.excluded: set[int] = set()
        self._down_count: dict[int, int] = {}
        self._lost_credit: dict[int, int] = {}
        #: (time, "fail" | "repair" | "reroute", what) in time order as they happen.
        self.log: list[tuple[float, str, str]] = []
        self.cells_lost = self.bytes_lost = self.packets_lost = 0
        self.reroutes = self.flows_rerouted = self.unroutable = 0
        engine.failures = self
        ports_of: dict[str, list[Port]] = {}
        for port in engine.ports:
            ports_of.setdefault(port.link_id, []).append(port)
        schedule_failures(engine, failures, ports_of, self._fail, self._repair)

    # ------------------------------------------------------------------ flows
    def track(self, flow: Any) -> None:
        """A new flow (called by ``Engine.add_flow``)."""
        self.flows.append(flow)
        if len(self.flows) > self._prune_at:
            self.flows = [f for f in self.flows if f.rec.finish_s is None]
            self._prune_at = 2 * len(self.flows) + 4096

    def is_down(self, port: Port) -> bool:
        """True while ``port`` is down."""
        return self._down_count.get(port.index, 0) > 0

    # ------------------------------------------------------------------ down and up
    def _fail(self, event: Call) -> None:
        failure, ports = event.arg
        newly = []
        for port in ports:
            count = self._down_count.get(port.index, 0)
            self._down_count[port.index] = count + 1
            if count == 0:
                newly.append(port)
        for port in newly:
            port.__class__ = _DOWN[type(port)]
        self._flush(newly)
        self.log.append((self.engine.env.now, "fail", failure.label))
        self._schedule_reroute(newly, repair=False, at_once=failure.at_s == 0)

    def _repair(self, event: Call) -> None:
        failure, ports = event.arg
        back = []
        for port in ports:
            count = self._down_count[port.index] - 1
            self._down_count[port.index] = count
            if count == 0:
                back.append(port)
        for port in back:
            port.__class__ = _UP[type(port)]
            if port.credit_based:  # link initialisation re-advertises the lost credits
                port.credits += self._lost_credit.pop(port.index, 0)
        for port in back:
            port.kick()
        self.log.append((self.engine.env.now, "repair", failure.label))
        self._schedule_reroute(back, repair=True)

    def _flush(self, ports: list[Port]) -> None:
        """Lose the cells queued on ``ports`` and those on their wires."""
        engine = self.engine
        for port in ports:
            queue = port.queue
            while queue:
                cell = queue.popleft()
                port.q_bytes -= cell.bytes
                self.lose_queued(port, cell)
        dead = {id(p.peer_receive) for p in ports}
        lost = (self._lost_on_wire,)
        for event in engine.clock.scheduled():
            if id(getattr(event, "callbacks", None)) in dead and isinstance(event.arg, Cell):
                event.callbacks = lost

    def lose_queued(self, port: Port, cell: Cell) -> None:
        """A cell waiting in (or routed into) a dead egress is lost; its switch frees it."""
        release = getattr(port.owner, "release", None)
        if release is not None:  # a switch that frees buffer without sending (RoCE)
            release(cell)
        else:
            _on_dequeue(port, cell)
        self._lose(port, cell)

    def _lost_on_wire(self, event: Call) -> None:
        cell = event.arg
        port = cell.via
        if port.credit_based:
            self._lost_credit[port.index] = self._lost_credit.get(port.index, 0) + cell.bytes
        self._lose(port, cell)

    def _lose(self, port: Port, cell: Cell) -> None:
        self.cells_lost += 1
        self.bytes_lost += cell.bytes
        self.packets_lost += cell.npkts
        port.drops += cell.npkts
        self.engine.drop(cell)

    # ------------------------------------------------------------------ rerouting
    def _schedule_reroute(self, ports: list[Port], repair: bool, at_once: bool = False) -> None:
        """Routing learns of ``ports`` (down, or back with ``repair``) after the delay, or
        ``at_once`` (an element down from time 0 failed before the run: routes avoid it)."""
        if not ports:
            return
        engine = self.engine
        delay = 0.0 if at_once else convergence_delay(engine.technology, engine.routing,
                                                      self.settings, repair)
        change = (ports, repair)
        if delay > 0:
            engine.clock.call(delay, self._reroute, change)
        else:
            self._converge(change)

    def _reroute(self, event: Call) -> None:
        self._converge(event.arg)

    def _converge(self, change: tuple[list[Port], bool]) -> None:
        ports, repair = change
        if repair:
            self.excluded -= {p.index for p in ports if not self.is_down(p)}
        else:
            self.excluded |= {p.index for p in ports if self.is_down(p)}
        engine = self.engine
        dead = set(self.excluded)
        router = FailoverRouter(self.healthy, dead) if dead else self.healthy
        keys = {id(route[0]): key for key, route in engine._routes.items()
                if route[0] is not None}
        engine.router = router
        engine._routes = {}
        live = [f for f in self.flows if f.rec.finish_s is None]
        self.flows = live
        moved: dict[int, _Move] = {}
        for flow in live:
            key = keys.get(id(flow.path))
            if key is None:
                continue  # adaptive routing: the switches choose per cell
            sep, dep = engine.net.endpoints[key[0]], engine.net.endpoints[key[1]]
            new = engine._route(sep, dep, key[2])[0]
            if new is not flow.path and new != flow.path:
                moved[id(flow)] = (flow, flow.path, new)
                flow.path = new
        self._keep_old_routes(moved)
        self.reroutes += 1
        self.flows_rerouted += len(moved)
        self.unroutable = max(self.unroutable, router.unroutable)
        self.log.append((engine.env.now, "reroute", f"{len(moved)} flows moved, "
                                                    f"{len(dead)} ports down"))

    def _keep_old_routes(self, moved: dict[int, _Move]) -> None:
        """Cells of moved flows between two switches of the old path that the new path does
        not continue from keep their old path (see :class:`_OldRoute`)."""
        if not moved:
            return
        proxies: dict[int, _OldRoute] = {}

        def fix(cell: Cell, port: Port) -> None:
            entry = moved.get(id(cell.flow))
            if entry is None or port.to_host:
                return
            flow, old, new = entry
            nxt = cell.hop + 1
            if nxt < len(new) and new[nxt].src == port.dst:
                return  # the new path goes on from where the cell is
            proxy = proxies.get(id(flow))
            if proxy is None:
                proxy = proxies[id(flow)] = _OldRoute(flow, old)
            cell.flow = proxy  # stands in for the flow

        for event in self.engine.clock.scheduled():
            cell = getattr(event, "arg", None)
            if isinstance(cell, Cell) and getattr(event, "callbacks", None) is \
                    cell.via.peer_receive:
                fix(cell, cell.via)
        for port in self.engine.ports:
            for cell in port.queue:
                fix(cell, port)

    # ------------------------------------------------------------------ report
    def report(self) -> dict[str, Any]:
        """What the failures did (the engine part of the Result's ``failures`` object)."""
        return {"events": [{"at_s": t, "event": kind, "what": what}
                           for t, kind, what in self.log],
                "cells_lost": self.cells_lost, "packets_lost": self.packets_lost,
                "bytes_lost": self.bytes_lost, "reroutes": self.reroutes,
                "flows_rerouted": self.flows_rerouted, "unroutable_routes": self.unroutable}


def _on_dequeue(port: Port, cell: Cell) -> None:
    """Free a lost cell's buffer through the switch's dequeue hook."""
    port.on_dequeue(cell, port, port.env.t)
