"""Whether a phase of ring passes fits the array solver (:mod:`.ring_arrays`): one predicate,
asked of the engine when the phase starts and of the design before any engine is built.

The solver computes cells with numpy only where nothing can compete with them (see
:mod:`.ring_arrays` for why each condition matters).  Those conditions are facts about the
run - technology and settings, every stream's NIC, the ports of its route and the switches
it crosses - gathered into a :class:`Plan`; :func:`decline` answers for a plan.  The engine
builds the plan from its live ports and flows (:func:`engine_plan`); :func:`arrays_precheck`
builds the same plan from the design and the scenario alone, routing each stream with the
engines' own :class:`~fabricstudio.sim.engine.routing.Router` over the flow engine's light
network (same link and NIC numbering, same ECMP hash and D-mod-K choice) and taking the
switch figures from the cell network's own formulas.  Both answers come from the same
:func:`decline`; ``tests/sim/test_ring_fit.py`` checks that the two plans are equal.

What only the run can tell (two events on one instant, where the per-cell engine's event
order decides; state left by earlier traffic) is checked by the solver itself.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fabricstudio.model import Design, Technology, freeze
from fabricstudio.sim.engine.ports import UNSPLIT

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.sim.scenario import Scenario
    from fabricstudio.sim.workloads.base import Workload

#: Why a run that is not a lone collective run to its end never uses the arrays.
NOT_SEALED = "not sealed: other traffic or a horizon may come"
#: The pre-check's answer where the plan fits.
FITS = ("a lone ring collective: its cells are solved as arrays, exactly as cell by cell "
        "(unless two of its events fall on one instant in an order only the run can tell)")


@dataclass(frozen=True)
class Hop:
    """One port on a stream's route."""

    link: int  #: directed link (port) index
    to_host: bool
    fine_bytes: int  #: cells above this are cut finer while PFC is active there
    kmin: float  #: ECN Kmin of the egress (inf: never marks)
    switch: int | None  #: index of the RoCE switch sending on it (None: a NIC or no RoCE)
    credit_max: int = 0  #: InfiniBand credits of the link (bytes; 0: not credit-based)
    prop: float = 0.0  #: propagation delay (s)
    rate: float = 0.0  #: line rate (bytes/s)


@dataclass(frozen=True)
class Stream:
    """One fabric hop of a ring pass: a stream of units."""

    nic: int  #: the sending NIC's port index
    hops: tuple[Hop, ...] | None  #: None: adaptive routing (no fixed path)
    unit_bytes: int
    unit_pkts: int
    cell_pkts: int
    below_line: bool  #: a DCQCN queue pair already below line rate
    wire_bytes: int = 0  #: a unit's bytes on the wire (with the packets' overhead)


@dataclass(frozen=True)
class SwitchFigures:
    """What decides whether a switch could ever PAUSE a ring ingress."""

    pfc: bool
    buffer: int
    fixed: int  #: headroom + reserve set aside from the shared pool
    reserve: int
    alpha: float  #: smallest alpha of its ingress ports


@dataclass(frozen=True)
class Plan:
    """The facts :func:`decline` reads."""

    window: int
    roce_pfc: bool  #: RoCE with PFC on
    control_in_band: bool
    failures: bool
    rings_only: bool  #: every pass of the phase is a ring crossing the fabric
    ecn: bool
    mtu: int
    streams: tuple[Stream, ...]
    switches: Mapping[int, SwitchFigures]  #: every switch sending on a stream's route
    credits: bool = False  #: InfiniBand (credit-based links)
    ib_cc: bool = False  #: InfiniBand congestion control (FECN/BECN) on
    credit_delay: float = 0.0  #: a receiver's credit processing time (s)


def decline(plan: Plan) -> str | None:
    """Why the phase cannot be solved as arrays (None: it can, as far as the plan tells)."""
    if plan.window != 2:
        return "the arrays model a window of two units"
    if not (plan.roce_pfc or plan.credits) or plan.control_in_band or plan.failures:
        return "only RoCE with PFC or InfiniBand, no in-band control frames, no failures"
    if plan.ib_cc:
        return "InfiniBand congestion control paces the flows"
    if not plan.rings_only:
        return "a tree or a ring inside one server in the phase"
    nics: set[int] = set()
    for stream in plan.streams:
        if stream.hops is None:
            return "flows with their own pacing or adaptive routing"
        if stream.below_line:
            return "a DCQCN queue pair below line rate"
        if stream.unit_pkts > stream.cell_pkts:
            return "units of more than one cell"
        if stream.nic in nics:
            return "two streams share a NIC"
        nics.add(stream.nic)
    if plan.credits:
        return _routes(plan) or _credits_suffice(plan)
    return _routes(plan) or _never_pauses(plan)


def _routes(plan: Plan) -> str | None:
    """Every link a ring crosses: each of its users at the same depth (hop) of its route
    (a shared link serves its cells first come, first served - see :mod:`.ring_arrays`),
    cells PFC never cuts finer, a RoCE switch that ECN never makes mark, routes that end at
    a NIC."""
    depth: dict[int, int] = {}
    queued: dict[int, int] = {}  # link -> bytes its queue can hold (every user's window)
    for stream in plan.streams:
        for j, hop in enumerate(stream.hops or ()):
            if depth.setdefault(hop.link, j) != j:
                return "a link shared at different depths of the routes"
            queued[hop.link] = queued.get(hop.link, 0) + plan.window * stream.unit_bytes
    for stream in plan.streams:
        hops = stream.hops or ()
        size = stream.unit_bytes
        for j, hop in enumerate(hops):
            if size > hop.fine_bytes:
                return "PFC could cut the cells finer"
            if j and not plan.credits:
                if hop.switch is None:
                    return "a switch could PAUSE"
                # at its dequeue a cell leaves at most the others' windows behind it
                behind = queued[hop.link] - size + (stream.unit_pkts - 1) * plan.mtu
                if plan.ecn and behind > hop.kmin:
                    return "ECN could mark"
        if not hops or not hops[-1].to_host or any(h.to_host for h in hops[:-1]):
            return "a path that does not end at a NIC"
    return None


def _never_pauses(plan: Plan) -> str | None:
    """No switch can PAUSE a ring ingress, nor send one of its cells to the headroom: each
    ingress holds at most the window's cells of each stream entering through it, so its
    charge beyond the reserve stays below ``alpha x (buffer - headroom and reserve set
    aside - everything the rings can hold in the shared pool)``, the XOFF threshold at its
    lowest (RoceSwitch.admit)."""
    loads: dict[int, dict[int, int]] = {}  # switch -> ingress link -> bytes it can hold
    for stream in plan.streams:
        hops = stream.hops or ()
        for j in range(1, len(hops)):
            owner = hops[j].switch
            if owner is not None:
                into = loads.setdefault(owner, {})
                link = hops[j - 1].link
                into[link] = into.get(link, 0) + plan.window * stream.unit_bytes
    for index, ingress in loads.items():
        switch = plan.switches[index]
        if not switch.pfc:
            return "a switch could PAUSE"
        beyond = [max(0, held - switch.reserve) for held in ingress.values()]
        lowest = switch.alpha * (switch.buffer - switch.fixed - sum(beyond))
        if max(beyond) >= lowest:
            return "a switch could PAUSE"
    return None


def _credits_suffice(plan: Plan) -> str | None:
    """InfiniBand: no link ever has half its credits out, so a sender never waits for
    credits nor cuts finer cells (``Port.kick``, ``NicPort.kick``).  A link's credits are out
    for a cell from its transmission until the receiver returns them - one propagation and
    the credit processing time after the cell leaves the next buffer (starts on the next
    link, or is delivered).  Per stream crossing the link that is at most the window's
    cells not yet delivered plus the cells it started downstream within that return time
    (one per serialisation on the next link)."""
    out: dict[int, int] = {}
    limit: dict[int, int] = {}
    for stream in plan.streams:
        hops = stream.hops or ()
        for j, hop in enumerate(hops):
            nxt = hops[j + 1] if j + 1 < len(hops) else hop
            gap = stream.wire_bytes / nxt.rate
            back = math.floor((hop.prop + plan.credit_delay) / gap) + 1
            out[hop.link] = out.get(hop.link, 0) + (plan.window + back) * stream.unit_bytes
            limit[hop.link] = hop.credit_max
    for link, held in out.items():
        if 2 * held > limit[link]:
            return "a link could run short of credits"
    return None


# ---------------------------------------------------------------------------- the run
def sole_collective(scenario: Scenario, workloads: Sequence[Workload]) -> bool:
    """The scenario's only traffic is one collective, run to its end (no horizon, explicit
    flows, failures or focus region): what ``sim.run`` seals the cell engine for."""
    from fabricstudio.sim.workloads.collectives import Collective

    return (scenario.focus is None and not scenario.failures and scenario.until_s is None
            and len(workloads) == 1 and type(workloads[0]) is Collective)


def engine_plan(engine: Any, runs: Sequence[Any], flows: Sequence[Any]) -> Plan:
    """The plan of a started phase on the cell engine (``flows``: its streams in the runs'
    order)."""
    from fabricstudio.sim.engine.dcqcn import DcqcnRp
    from fabricstudio.sim.engine.nodes import RoceSwitch
    from fabricstudio.sim.workloads.pipeline import WINDOW_UNITS, RingRun

    switches: dict[int, SwitchFigures] = {}
    streams = []
    for flow in flows:
        path = flow.path
        hops = None
        if path is not None:
            hops = []
            for port in path:
                owner = port.owner if isinstance(port.owner, RoceSwitch) else None
                if owner is not None and owner.index not in switches:
                    ingress = [p for p in engine.ports if p.peer is owner]
                    switches[owner.index] = SwitchFigures(
                        owner.pfc, owner.buffer, owner.fixed, owner.reserve,
                        min((p.alpha for p in ingress), default=0.0))
                hops.append(Hop(port.index, port.to_host, port.fine_bytes, port.kmin,
                                None if owner is None else owner.index,
                                port.credit_max if port.credit_based else 0, port.prop,
                                port.rate))
        rp = getattr(flow, "rp", None)
        streams.append(Stream(flow.nic.index, None if hops is None else tuple(hops),
                              flow.span_bytes(0, flow.unit_pkts), flow.unit_pkts,
                              flow.cell_pkts,
                              isinstance(rp, DcqcnRp) and rp.rc < rp.line,
                              flow.span_bytes(0, flow.unit_pkts)
                              + flow.unit_pkts * flow.overhead))
    fabric = engine.fabric
    ib = engine.technology is Technology.INFINIBAND
    return Plan(WINDOW_UNITS, engine.technology is Technology.ROCE and fabric.pfc.enabled,
                engine.control is not None, engine.failures is not None,
                all(isinstance(run, RingRun) and run.flow_ids for run in runs),
                engine.ecn_enabled, engine.mtu, tuple(streams), switches, ib,
                bool(engine.ib_cc), fabric.infiniband.credit_processing_ns * 1e-9 if ib
                else 0.0)


# ---------------------------------------------------------------------------- before a run
def arrays_precheck(design: Design, scenario: Scenario,
                    workloads: Sequence[Workload] | None = None) -> tuple[bool, str]:
    """Will the cell engine solve this run's collective as arrays?  (applies, reason).

    Nothing is built but the flow engine's light network (for the routes): cheap enough for
    a work estimate (0.2 s at 4,096 GPUs).  ``workloads`` are the scenario's, if already
    built (``sim.run`` has them).  "applies" is the engine's own answer (same plan, same
    :func:`decline`) except where two events of the run fall on one instant; the reason then
    says so.
    """
    plans = design_plans(design, scenario, workloads)
    if isinstance(plans, str):
        return False, plans
    for plan in plans:
        why = decline(plan)
        if why is not None:
            return False, why
    return True, FITS


def design_plans(design: Design, scenario: Scenario,
                 workloads: Sequence[Workload] | None = None) -> list[Plan] | str:
    """The plan of every phase of the scenario's collective that crosses the fabric, as the
    engine will see it when the phase starts; a string says why no phase is offered."""
    from fabricstudio.sim.workloads.collectives import Collective

    frozen = freeze(design)
    if workloads is None:
        from fabricstudio.sim.workloads import WorkloadContext, build_workloads

        ctx = WorkloadContext(engine=None, design=frozen, rng=random.Random(scenario.seed))
        workloads = build_workloads(ctx, scenario)
    if not sole_collective(scenario, workloads):
        return NOT_SEALED
    collective = workloads[0]
    assert isinstance(collective, Collective)
    if collective.name == "all_to_all":
        return "an all-to-all sends direct flows, cell by cell"
    phases = [phase for phase in collective._phases if any(_crosses(run) for run in phase)]
    if not phases:
        return "no pass crosses the fabric"
    network, settings = _network(frozen, scenario)
    return [_design_plan(network, settings, phase, collective.slice_bytes) for phase in phases]


def _crosses(run: Any) -> bool:
    from fabricstudio.sim.workloads.pipeline import RingSpec

    return bool(run.fabric_hops) if isinstance(run, RingSpec) else len(run.nodes) > 1


@dataclass(frozen=True)
class _Settings:
    """What the cell engine would derive from the scenario's settings."""

    fabric: Any
    technology: Technology
    mtu: int
    cell_bytes: int
    ecn: bool  #: ECN marking on (RoCE)
    kmin_set: bool  #: switch egress ports get the ECN thresholds (ECN or IB CC)
    control_in_band: bool
    failures: bool
    mode: str


def _network(design: Design, scenario: Scenario) -> tuple[Any, _Settings]:
    from fabricstudio.sim.engine.core import Engine
    from fabricstudio.sim.engine.routing import resolve_mode
    from fabricstudio.sim.flow.network import FlowNetwork
    from fabricstudio.sim.run import engine_config

    config = engine_config(design, scenario, 1.0)  # (the horizon plays no part)
    fabric = Engine._effective_fabric(config, design.fabric)
    tech = fabric.technology
    ib = tech is Technology.INFINIBAND
    settings = _Settings(fabric, tech, fabric.mtu_bytes, int(config.cell_bytes),
                         tech is Technology.ROCE and fabric.ecn.enabled,
                         (tech is Technology.ROCE and fabric.ecn.enabled)
                         or (ib and fabric.infiniband.congestion_control),
                         bool(config.control_in_band), bool(scenario.failures),
                         resolve_mode(config.routing, ib))
    return FlowNetwork(design, fabric, settings.mode, config.seed), settings


def _design_plan(network: Any, settings: _Settings, phase: Sequence[Any],
                 slice_bytes: int) -> Plan:
    """The plan of one phase, from the design: routes as the engine picks them, port and
    switch figures as the cell network sets them."""
    from fabricstudio.sim.engine.addressing import resolve_address
    from fabricstudio.sim.engine.config import EngineError
    from fabricstudio.sim.engine.network import (
        fine_cell_bytes,
        ingress_alpha,
        pfc_headroom,
        reference_speed,
        vl_credits,
    )
    from fabricstudio.sim.engine.routing import connection_sport
    from fabricstudio.sim.workloads.pipeline import WINDOW_UNITS, RingSpec, ring_units

    fabric = settings.fabric
    pfc = fabric.pfc
    roce = settings.technology is Technology.ROCE
    ib = settings.technology is Technology.INFINIBAND
    mtu = settings.mtu
    links = network.links
    ref = reference_speed([network.directed[ep.up.index].speed_gbps
                           for ep in network.endpoints])
    figures: dict[int, SwitchFigures] = {}
    fine: dict[int, int] = {}
    into: dict[str, list[Any]] = {}
    for link in links:
        into.setdefault(link.dst, []).append(link)

    def switch_figures(node: Any) -> None:
        """As ``Network._configure_flow_control`` and ``RoceSwitch.finish_wiring`` set them:
        every port into the switch is an ingress with its headroom and alpha."""
        ingress = into.get(node.id, [])
        buffer = network.design.devices[node.id].buffer_bytes
        alphas = [ingress_alpha(pfc, network.directed[link.index].speed_gbps, ref)
                  for link in ingress]
        fixed = sum(pfc_headroom(pfc, float(network.rate[link.index]),
                                 float(network.prop[link.index]), mtu) for link in ingress)
        fixed += pfc.reserve_bytes * len(ingress)
        figures[node.index] = SwitchFigures(pfc.enabled, buffer, fixed, pfc.reserve_bytes,
                                            min(alphas, default=0.0))
        if pfc.enabled:
            for link, alpha in zip(ingress, alphas, strict=True):
                fine[link.index] = fine_cell_bytes(alpha, buffer, fixed, mtu)

    streams = []
    rings_only = True
    for run in phase:
        if not isinstance(run, RingSpec) or not run.fabric_hops:
            rings_only = False
            continue
        unit = ring_units(run, slice_bytes)[0]
        for p in run.fabric_hops:
            src, dst = run.hops[p]
            try:
                (sdev, snic, _), (ddev, dnic, _) = (resolve_address(network.design, src),
                                                    resolve_address(network.design, dst))
            except EngineError:
                rings_only = False
                continue
            sep, dep = network.endpoint_of.get((sdev, snic)), network.endpoint_of.get((ddev,
                                                                                      dnic))
            if sep is None or dep is None:
                rings_only = False
                continue
            path = network.router.path(sep, dep, connection_sport(sep.index, dep.index,
                                                                  run.qp), settings.mode)
            hops = None
            if settings.mode != "adaptive":
                hops = []
                for link in path:
                    node = network.switches.get(link.src) if roce else None
                    into_switch = network.switches.get(link.dst) if roce else None
                    for sw in (node, into_switch):  # its ingress figures give fine_bytes
                        if sw is not None and sw.index not in figures:
                            switch_figures(sw)
                    credit = 0
                    if ib:  # (as Network._vl_credits)
                        into_node = network.switches.get(link.dst)
                        share = None if into_node is None else (
                            network.design.devices[link.dst].buffer_bytes
                            // max(1, len(into.get(link.dst, []))))
                        credit = vl_credits(fabric.infiniband.vl_buffer_bytes, share)
                    hops.append(Hop(link.index, link.to_host, fine.get(link.index, UNSPLIT),
                                    _kmin(settings, network, link),
                                    None if node is None else node.index, credit,
                                    float(network.prop[link.index]),
                                    float(network.rate[link.index])))
            pkts = -(-unit // mtu)
            streams.append(Stream(sep.up.index, None if hops is None else tuple(hops), unit,
                                  pkts, max(1, settings.cell_bytes // mtu), False,
                                  unit + pkts * fabric.wire_overhead_bytes()))
    return Plan(WINDOW_UNITS, roce and pfc.enabled, settings.control_in_band,
                settings.failures, rings_only, settings.ecn, mtu, tuple(streams), figures, ib,
                ib and fabric.infiniband.congestion_control,
                fabric.infiniband.credit_processing_ns * 1e-9 if ib else 0.0)


def _kmin(settings: _Settings, network: Any, link: Any) -> float:
    """ECN Kmin of a port as the cell network sets it (inf: never marks)."""
    if link.src not in network.switches:
        return math.inf
    speed = network.directed[link.index].speed_gbps
    if settings.kmin_set:
        return float(settings.fabric.ecn.thresholds(speed)[0])
    if settings.technology is Technology.ETHERNET and settings.fabric.tcp.transport == "dctcp":
        return float(settings.fabric.tcp.dctcp_k_bytes_at_100g * speed / 100)
    return math.inf
