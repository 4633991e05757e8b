"""Build and run a simulation: design + scenario -> engine + workloads -> Result.

Headless::

    result = run_simulation(design, scenario, progress=lambda f: ...)

Live (the GUI drives it from a worker thread and reads ``sim.stream`` from the UI thread)::

    sim = build_simulation(design, scenario)      # refuses bad scenarios (ScenarioError)
    while not sim.finished:
        sim.advance(sim.now + slice_s)            # simulated seconds; resumable
        fraction = sim.progress
    result = sim.result()

``build_simulation`` takes a snapshot of the design (:func:`fabricstudio.model.freeze`, once: a
snapshot passed in is used as it is), so later edits do not reach the run.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import networkx as nx

from fabricstudio.model import Design, FabricSettings, Plane, Technology, freeze
from fabricstudio.model.bulk import pause_collector, resume_collector
from fabricstudio.model.failures import failure_problems
from fabricstudio.sim.budget import check_timers, sample_budget
from fabricstudio.sim.duration import HopTimes, estimate_duration, send_rate_bps
from fabricstudio.sim.engine import Engine, EngineConfig, EngineError
from fabricstudio.sim.flow import NOT_MODELLED, FlowEngine
from fabricstudio.sim.hops import RouteLengths
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.sim.result import EngineInfo, Result, throughput_gbps
from fabricstudio.sim.scenario import Scenario, ScenarioError, fabric_with_overrides
from fabricstudio.sim.work import (
    ETHERNET_CELL_HOP_FACTOR,
    LIMIT_S,
    WorkEstimate,
    choose_engine,
)
from fabricstudio.sim.workloads import Workload, WorkloadContext, build_workloads, server_of
from fabricstudio.sim.workloads.collectives import Collective
from fabricstudio.sim.workloads.ring_fit import arrays_precheck, sole_collective
from fabricstudio.sim.workloads.training import TrainingStep
from fabricstudio.topology.graph import design_graph

#: Refuse cell-engine runs estimated above this many cell-hops (~10 minutes).
MAX_CELL_HOPS = 1.2e8
#: At most this many flows are listed in a Result (the rest are counted in flows_omitted).
MAX_RESULT_FLOWS = 10_000
#: Slices per run when advancing headless (progress granularity).
SLICES = 200


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a run owns the process (headless runs and
    the GUI's child process; never in the GUI process, whose other threads need it).

    Cells, events and flow records form no reference cycles on the hot path; a paused
    collector does not rescan millions of live objects, and whatever is cyclic is collected
    once the run ends.  The pause goes through :func:`fabricstudio.model.bulk.pause_collector`,
    the one owner of the collector's on/off state."""
    pause_collector()
    try:
        yield
    finally:
        resume_collector()


class Simulation:
    """One run in progress: the engine, its workloads and the statistics window.

    Thread use: one thread calls :meth:`advance`; others may read :attr:`stream` (thread-safe),
    :attr:`now`, :attr:`progress`, :attr:`complete` and :attr:`finished` at any time (they only
    read counters).  Call :meth:`result` from the advancing thread or after it stopped.
    """

    def __init__(self, design: Design, scenario: Scenario, engine: Engine | FlowEngine,
                 config: EngineConfig, workloads: list[Workload], estimate_s: float,
                 frame_limit_s: float = math.inf,
                 engine_info: dict[str, Any] | None = None) -> None:
        self.design = design
        #: The configuration the engine runs with.
        self.engine_config = config
        self.scenario = scenario
        self.engine = engine
        self.workloads = workloads
        #: Rough expected duration of the traffic (s), used for slicing and open horizons.
        self.estimate_s = estimate_s
        #: Where the run stops: the scenario's horizon.  Without one either engine goes on
        #: until every workload completes, a deadlock is detected (cell level) or nothing is
        #: left that can move; its frames end where the frame budget runs out (sim.budget; a
        #: warning says so).
        self.stop_s = scenario.until_s if scenario.until_s is not None else math.inf
        #: Where frames end (the frame budget) on an open-horizon run.
        self.frame_limit_s = frame_limit_s
        if scenario.until_s is None:
            if isinstance(engine, Engine):
                engine.sampler.until_s = frame_limit_s
            else:
                engine.frames_until_s = frame_limit_s
        #: True when an open-horizon run ended because nothing could happen any more.
        self.stalled = False
        self._stall_from: float | None = None
        self._window_base: dict[int, int] | None = None
        self._planned = sum(w.planned_bytes for w in workloads) or 1
        #: Which engine runs and why: ``kind`` ("cell" or "flow"), ``requested``, ``reason``,
        #: ``estimate`` (the work estimate, a dict) and ``work`` (the WorkEstimate itself).
        self.engine_info: dict[str, Any] = engine_info or {
            "kind": "cell", "requested": "cell", "reason": "cell: chosen by the scenario",
            "estimate": None}
        #: Length of one slice (s).  A run without a horizon ends at the first slice boundary
        #: after its traffic completes, whatever steps the caller advances in, so the CLI
        #: (:meth:`run`) and the GUI (adaptive steps) end at the same time with the same frames.
        self.slice_s = max((scenario.until_s if scenario.until_s is not None
                            else estimate_s) / SLICES, 1e-9)
        self._last_mark = 0.0
        self._next_mark = self.slice_s
        #: RunFigures of the no-failure twin (sim.failure_report), once run.
        self.twin: dict[str, Any] | None = None

    # ------------------------------------------------------------------ state
    @property
    def engine_kind(self) -> str:
        """"cell" or "flow"."""
        return str(self.engine_info["kind"])

    @property
    def stream(self) -> MetricStream:
        """The engine's MetricStream (frames of per-link and per-flow metrics)."""
        return self.engine.stream

    @property
    def now(self) -> float:
        """Simulated time reached (seconds)."""
        return self.engine.now

    @property
    def complete(self) -> bool:
        """True once every workload has finished."""
        return all(w.done for w in self.workloads)

    @property
    def deadlock(self) -> dict[str, Any] | None:
        """The deadlock that ended the run (``totals.deadlock``), or None (never at flow
        level: no PFC or credits there)."""
        return self.engine.deadlock if isinstance(self.engine, Engine) else None

    @property
    def finished(self) -> bool:
        """True when there is nothing left to run: the horizon is reached, a deadlock ended
        the run, or (without a horizon) every workload completed or nothing can move any
        more.  With an explicit horizon the run otherwise goes on to ``until_s``."""
        if self.now >= self.stop_s or self.deadlock is not None or self.stalled:
            return True
        return self.scenario.until_s is None and self._ended()

    def _ended(self) -> bool:
        """All traffic done, and the run stands on a slice boundary."""
        return self.complete and self.now == self._last_mark

    @property
    def progress(self) -> float:
        """Fraction done, 0..1 (simulated time over the horizon, or delivered over planned
        bytes when the scenario runs until its traffic completes)."""
        if self.finished:
            return 1.0
        if self.scenario.until_s is not None:
            return min(1.0, self.now / self.scenario.until_s)
        done = sum(w.progress_bytes for w in self.workloads)
        return min(0.99, done / self._planned)

    # ---------------------------------------------------------------- running
    def advance(self, until_s: float) -> None:
        """Run the simulation up to ``until_s`` simulated seconds (clamped to the stop time).

        Stops early when the scenario has no horizon and every workload is done.
        """
        target = min(until_s, self.stop_s)
        if target >= self.stop_s * (1 - 1e-9):  # slices summed in floating point
            target = self.stop_s
        window = self.scenario.measure_from_s
        if self._window_base is None and target >= window:
            if self.now < window:
                self.engine.advance(window)
            self._snapshot_window()
        if target <= self.now:
            return
        if self.scenario.until_s is None:
            self._advance_until_complete(target)
        else:
            self.engine.advance(target)

    def _advance_until_complete(self, target: float) -> None:
        engine = self.engine
        if not isinstance(engine, Engine):  # flow level: no loss, no pauses, no timers
            while self.now < target and not self._ended() and not self.stalled:
                self._advance_slice(target)
                # traffic left that nothing can move: flows without a path (failures)
                self.stalled = not self.complete and engine.stalled()
            return
        # once nothing can move, the deadlock watch still gets its stretch to name the cycle
        grace = 1.5 * (engine.deadlock_stretch or 0.0)
        while (self.now < target and not self._ended() and engine.deadlock is None
               and not self.stalled):
            moved = engine.offered + engine.delivered
            self._advance_slice(target)
            if engine.offered + engine.delivered != moved or not engine.stalled():
                self._stall_from = None
            elif self._stall_from is None:
                self._stall_from = self.now
            elif self.now - self._stall_from >= grace:
                self.stalled = True

    def _advance_slice(self, target: float) -> None:
        mark = self._next_mark
        self.engine.advance(min(target, mark))
        if self.now >= mark:
            self._last_mark, self._next_mark = mark, mark + self.slice_s

    def _snapshot_window(self) -> None:
        self._window_base = {rec.id: rec.delivered_bytes for rec in self.engine.flows}

    def run(self, progress: Callable[[float], None] | None = None) -> Result:
        """Run to the end headless, reporting the progress fraction after each slice (a
        scenario with failures then runs its no-failure twin: each takes half the bar)."""
        share = 0.5 if self.scenario.failures else 1.0
        with cyclic_gc_paused():
            while not self.finished:
                self.advance(self.now + self.slice_s)
                if progress is not None:
                    progress(share * self.progress)
        self.stream.close(self.flow_ends())
        if self.scenario.failures:
            self.run_twin(None if progress is None else lambda f: progress(0.5 + 0.5 * f))
        return self.result()

    def run_twin(self, progress: Callable[[float], None] | None = None) -> None:
        """Run the scenario without its failures (the failure cost's baseline)."""
        from fabricstudio.sim.failure_report import run_twin

        if self.scenario.failures and self.twin is None:
            self.twin = run_twin(self, progress)

    def flow_ends(self) -> dict[int, tuple[str, str]]:
        """Flow id -> (src, dst) of every flow so far."""
        return {rec.id: (rec.src, rec.dst) for rec in self.engine.flows}

    # ---------------------------------------------------------------- results
    def result(self, timing: bool = True) -> Result:
        """Summary of the run so far (call after :meth:`run` or when ``finished``)."""
        engine = self.engine
        end = engine.now
        window = self.scenario.measure_from_s
        base = self._window_base or {}
        flows = [self._flow_entry(rec, base, window, end)
                 for rec in engine.flows.kept()[:MAX_RESULT_FLOWS]]
        collective, training = _headline(self.workloads)
        completion = (max(w.finish_s for w in self.workloads if w.finish_s is not None)
                      if self.complete else None)
        stats = engine.stats()
        info = {key: stats.get(key) for key in EngineInfo.model_fields}
        info.update({"kind": self.engine_kind, "requested": self.engine_info["requested"],
                     "reason": self.engine_info["reason"],
                     "estimate": self.engine_info["estimate"],
                     "not_modelled": list(NOT_MODELLED) if self.engine_kind == "flow" else [],
                     "rate_updates": stats.get("rate_updates")})
        return Result.model_validate({
            "run": self._run_info(),
            "completion_time_s": completion,
            "end_s": end,
            "collective": collective,
            "training": training,
            "totals": engine.totals(),
            "engine": info,
            "warnings": self._warnings(),
            "workloads": [w.report() for w in self.workloads],
            "links": engine.link_stats(measure_from_s=window),
            "flows": flows,
            "flows_omitted": len(engine.flows) - len(flows),
            "hotspots": (engine.hotspots() if isinstance(engine, FlowEngine) else None),
            "flow_summary": engine.flows.summary.as_dict(),
            "llm_training": _llm_headline(self.workloads),
            "focus": self._focus_summary(timing),
            "failures": self._failure_report(),
        })

    def _focus_summary(self, timing: bool) -> dict[str, Any] | None:
        """The cell-level region of a focused run (None otherwise)."""
        return None

    def _failure_report(self) -> dict[str, Any] | None:
        if not self.scenario.failures:
            return None
        from fabricstudio.sim.failure_report import failure_report

        return failure_report(self, self.twin)

    @staticmethod
    def _flow_entry(rec: Any, base: dict[int, int], window: float,
                    end: float) -> dict[str, Any]:
        start = max(rec.start_s, window)
        stop = rec.finish_s if rec.finish_s is not None else end
        if stop > start:
            rate = throughput_gbps(rec.delivered_bytes - base.get(rec.id, 0), stop - start)
        elif rec.finish_s is not None:  # finished before the window opened: its lifetime
            rate = throughput_gbps(rec.size_bytes, rec.finish_s - rec.start_s)
        else:
            rate = None
        return {"id": rec.id, "src": rec.src, "dst": rec.dst, "bytes": rec.size_bytes,
                "delivered_bytes": rec.delivered_bytes, "start_s": rec.start_s,
                "finish_s": rec.finish_s, "throughput_gbps": rate, "tag": rec.tag}

    def _run_info(self) -> dict[str, Any]:
        cfg = self.engine_config
        fabric = cfg.fabric or self.design.fabric
        technology = cfg.technology or fabric.technology
        dcqcn = cfg.dcqcn if cfg.dcqcn is not None else fabric.dcqcn.enabled
        return {"design": self.design.name, "scenario": self.scenario.name,
                "technology": technology.value, "dcqcn": dcqcn, "routing": cfg.routing,
                "cell_bytes": cfg.cell_bytes if self.engine_kind == "cell" else None,
                "seed": cfg.seed,
                "until_s": self.scenario.until_s, "measure_from_s": self.scenario.measure_from_s,
                "sample_period_s": self.stream.sample_period_s, "engine": self.engine_kind,
                "transport": (self.engine.fabric.tcp.transport
                              if isinstance(self.engine, Engine)
                              and self.engine.technology is Technology.ETHERNET else None)}

    def _warnings(self) -> list[str]:
        warnings = list(self.engine.config_warnings)
        engine = self.engine
        if isinstance(engine, FlowEngine):
            warnings.append("flow-level run: " + ", ".join(NOT_MODELLED) + " are not modelled; "
                            "overloaded links are listed as hotspots")
            hot = engine.hotspots(top=0)["count"]
            if hot:
                warnings.append(f"{hot} link(s) were offered more than their capacity "
                                "(hotspots): a cell-level run would queue, pause or drop there")
            if engine.frames_truncated:
                warnings.append("metric frames list at most the first 2,000 active flows")
        totals = self.engine.totals()
        if totals.get("lossless_violations"):
            warnings.append(
                f"lossless fabric dropped {totals['drops']} packet(s): the PFC headroom or "
                "buffer is too small for the link delay (configuration error)")
        if self.now < self.scenario.measure_from_s:
            warnings.append(f"the run ended at {self.now:.6g} s, before the statistics window "
                            f"opened (measure_from_s {self.scenario.measure_from_s:g} s): link "
                            "statistics are empty and flow throughputs cover their lifetimes")
        if self.now > self.frame_limit_s and self.scenario.until_s is None:
            warnings.append(f"frames end at {self.frame_limit_s:.6g} s (the sample budget); "
                            f"the run went on to {self.now:.6g} s: totals and link statistics "
                            "cover the whole run")
        deadlock = self.deadlock
        if deadlock is not None:
            warnings.append(deadlock_sentence(deadlock))
        if not self.complete:
            left = [w.tag for w in self.workloads if not w.done]
            what = ("a deadlock" if deadlock is not None else
                    "the horizon" if self.scenario.until_s is not None else
                    "a stall: nothing left could move" if self.stalled else "the stop")
            warnings.append(f"{len(left)} workload(s) unfinished at {self.now:.6g} s "
                            f"({what}): {', '.join(left[:5])}")
        return warnings


def deadlock_sentence(deadlock: dict[str, Any]) -> str:
    """One line naming a detected deadlock's cycle (for warnings, the CLI and the GUI)."""
    path = " > ".join(deadlock["path"])
    return (f"deadlock at {deadlock['at_s']:.6g} s: a cycle of paused/credit-starved links "
            f"has not moved since {deadlock['since_s']:.6g} s: {path} "
            f"(links {', '.join(deadlock['cycle'])})")


def _llm_headline(workloads: list[Workload]) -> dict[str, Any] | None:
    """The first LLM training workload's summary."""
    from fabricstudio.sim.llm.workload import LlmTraining

    for w in workloads:
        if isinstance(w, LlmTraining):
            return w.summary()
    return None


def _headline(workloads: list[Workload]) -> tuple[dict[str, Any] | None,
                                                  dict[str, Any] | None]:
    """The first collective's (or training all-reduce's) summary and the training summary."""
    collective = training = None
    for w in workloads:
        if collective is None and isinstance(w, Collective):
            collective = w.summary()
        if isinstance(w, TrainingStep):
            training = training or w.summary()
            if collective is None:
                collective = w.allreduce.summary()
    return collective, training


# -------------------------------------------------------------------- building
def engine_config(design: Design, scenario: Scenario, horizon_s: float,
                  sample_period_s: float | None = None) -> EngineConfig:
    """The EngineConfig a scenario asks for on ``design`` (``sample_period_s`` overrides the
    scenario's, e.g. the period chosen by :func:`~fabricstudio.sim.budget.sample_budget`)."""
    overrides = dict(scenario.fabric)
    if scenario.transport is not None:
        overrides["tcp"] = {**overrides.get("tcp", {}), "transport": scenario.transport}
    try:
        fabric = fabric_with_overrides(design.fabric, overrides) if overrides else None
    except ValueError as exc:
        raise ScenarioError(str(exc)) from None
    return EngineConfig(technology=scenario.technology, dcqcn=scenario.dcqcn,
                        routing=scenario.routing, cell_bytes=scenario.cell_bytes,
                        seed=scenario.seed,
                        sample_period_s=sample_period_s or scenario.sample_period_s,
                        fabric=fabric, horizon_s=horizon_s,
                        deadlock_detect_s=scenario.deadlock_after_s,
                        control_in_band=scenario.control_frames_in_band)


def _effective_fabric(design: Design, scenario: Scenario) -> FabricSettings:
    """The design's fabric settings with the scenario's overrides."""
    try:
        return (fabric_with_overrides(design.fabric, scenario.fabric) if scenario.fabric
                else design.fabric)
    except ValueError as exc:
        raise ScenarioError(str(exc)) from None


def build_simulation(design: Design, scenario: Scenario,
                     max_cell_hops: float | None = MAX_CELL_HOPS) -> Simulation:
    """Check ``scenario`` against ``design``, pick the engine and set up the run (nothing
    simulated yet).

    Raises ScenarioError (one readable message) for unknown devices, missing paths,
    non-positive sizes and runs too big for the chosen engine (``max_cell_hops`` and the
    predicted wall time of :mod:`fabricstudio.sim.work`; ``max_cell_hops=None`` = no limit).
    """
    frozen = freeze(design)
    problems = failure_problems(frozen, scenario.failures)
    if problems:
        raise ScenarioError("; ".join(problems[:5]))
    ctx = WorkloadContext(engine=None, design=frozen, rng=random.Random(scenario.seed))
    workloads = build_workloads(ctx, scenario)
    graph = _fabric_graph(frozen)
    _check_paths(graph, workloads)
    estimate = estimate_duration(workloads,
                                 HopTimes(frozen, graph, _effective_fabric(frozen, scenario)))
    horizon = scenario.until_s if scenario.until_s is not None else estimate
    samples = sample_budget(frozen, scenario, horizon)
    work = estimate_work(frozen, RouteLengths(frozen), workloads, scenario, horizon,
                         samples.period_s)
    if scenario.engine != "flow" and sole_collective(scenario, workloads):
        # will the cell engine solve the ring as arrays (at their cost, not cell by cell)?
        work.ring_arrays, work.arrays_reason = arrays_precheck(frozen, scenario, workloads)
    kind, reason = choose_engine(scenario.engine, work)
    region = None
    if scenario.focus is not None:
        from fabricstudio.sim.focus import resolve_region

        region = resolve_region(frozen, scenario.focus)
        kind, reason = "flow", (f"focused run: the whole fabric at flow level, "
                                f"{region.description} at cell level")
    if max_cell_hops is not None and kind == "cell":
        check_work(work, kind, scenario, max_cell_hops)
    if kind == "flow":  # utilisation only: 4 bytes per link sample
        samples = sample_budget(frozen, scenario, horizon, bytes_per_sample=4)
    config = engine_config(frozen, scenario, horizon, samples.period_s)
    if max_cell_hops is not None and kind == "cell":  # flow level has no per-flow timers
        check_run_timers(frozen, config, workloads, horizon)
    try:
        engine = FlowEngine(frozen, config) if kind == "flow" else Engine(frozen, config)
    except EngineError as exc:
        raise ScenarioError(f"the design cannot be simulated: {exc}") from None
    if isinstance(engine, FlowEngine):
        # the routes are known now: workloads may count their rate updates from them
        work.rate_updates = sum(w.rate_updates_on(engine) for w in workloads)
        if region is None:
            kind, reason = choose_engine(scenario.engine, work)
        if max_cell_hops is not None:
            check_work(work, "flow", scenario, max_cell_hops)
    if isinstance(engine, Engine) and max_cell_hops is not None and work.ring_arrays:
        engine.arrays_required = _arrays_required(work, max_cell_hops)
    ctx.engine = engine
    info = {"kind": kind, "requested": scenario.engine, "reason": reason,
            "estimate": work.as_dict(), "work": work}
    if scenario.failures:
        from fabricstudio.sim.engine.failures import FailureInjector
        from fabricstudio.sim.flow.failures import FlowFailureInjector

        injector = FlowFailureInjector if kind == "flow" else FailureInjector
        injector(engine, scenario.failures, scenario.failover)
    engine.stream.engine_reason = reason
    if isinstance(engine, Engine):
        # a lone collective run to its end is all the traffic there will be: its rings may
        # be solved as arrays (sim.workloads.ring_arrays), with the same results as cell by
        # cell (a horizon could stop a ring half-way, where only frames are kept exactly);
        # sim.workloads.ring_fit.arrays_precheck tells beforehand
        engine.sole_traffic = sole_collective(scenario, workloads)
    sim: Simulation
    if region is not None:
        from fabricstudio.sim.focus import FocusedSimulation

        assert isinstance(engine, FlowEngine)
        engine.watch({link.index for link in engine.links
                      if link.src in region.devices or link.dst in region.devices})
        sim = FocusedSimulation(frozen, scenario, engine, config, workloads, estimate,
                                samples.frame_limit_s, info, region=region,
                                max_cell_hops=max_cell_hops)
    else:
        sim = Simulation(frozen, scenario, engine, config, workloads, estimate,
                         samples.frame_limit_s, info)
    try:
        for workload in workloads:
            workload.start()
    except EngineError as exc:
        raise ScenarioError(str(exc)) from None
    return sim


def run_simulation(design: Design, scenario: Scenario,
                   progress: Callable[[float], None] | None = None,
                   max_cell_hops: float | None = MAX_CELL_HOPS) -> Result:
    """Build and run headless; returns the Result."""
    return build_simulation(design, scenario, max_cell_hops).run(progress)


# -------------------------------------------------------------- pre-run checks
def _fabric_graph(design: Design) -> nx.Graph:
    return nx.Graph(design_graph(design, planes=(Plane.COMPUTE, Plane.STORAGE)))


def _check_paths(graph: nx.Graph, workloads: list[Workload]) -> None:
    component = {node: i for i, nodes in enumerate(nx.connected_components(graph))
                 for node in nodes}
    for workload in workloads:
        for src, dst in workload.hops:
            a, b = server_of(src), server_of(dst)
            if a == b:
                continue
            if a not in component or b not in component or component[a] != component[b]:
                raise ScenarioError(f"{workload.tag}: no path from {src} to {dst} in the "
                                    "compute/storage fabric")


def check_run_timers(design: Design, config: EngineConfig, workloads: list[Workload],
                     horizon_s: float) -> float:
    """Estimated timer firings of the run (sim.budget); ScenarioError above the budget."""
    fabric = config.fabric or design.fabric
    technology = config.technology or fabric.technology
    dcqcn = config.dcqcn if config.dcqcn is not None else fabric.dcqcn.enabled
    concurrent = sum(w.planned_concurrent or w.planned_flows for w in workloads)
    return check_timers(fabric, technology, dcqcn, concurrent, horizon_s)


def estimate_work(design: Design, routes: RouteLengths, workloads: list[Workload],
                  scenario: Scenario, horizon_s: float, period_s: float) -> WorkEstimate:
    """What the run will cost (counted from the workloads' plans, nothing built yet): cells
    times the links of their routes (:class:`~fabricstudio.sim.hops.RouteLengths`)."""
    transfers = fabric_transfers = 0
    fabric_bytes = cell_hops = hop_sum = 0.0
    updates = entries = 0
    technology = scenario.technology or design.fabric.technology
    per_packet = technology is Technology.ETHERNET  # TCP sends one MTU per cell
    mtu = int(scenario.fabric.get("mtu_bytes", design.fabric.mtu_bytes))
    for workload in workloads:
        transfers += workload.planned_flows
        fabric_transfers += workload.planned_fabric_flows
        senders = {src for src, _ in workload.hops}
        capacity = sum(send_rate_bps(design, s) for s in senders) * max(
            0.0, horizon_s - getattr(workload, "at_s", 0.0))
        moved = min(workload.network_bytes, capacity)
        hops = routes.mean(workload.route_pairs)
        fabric_bytes += moved
        cell = min(scenario.cell_bytes, workload.unit_bytes_hint or scenario.cell_bytes)
        if per_packet:
            cell = min(cell, mtu)
        cell_hops += moved / cell * hops
        hop_sum += hops * workload.planned_fabric_flows
        updates += workload.planned_rate_updates
        entries = max(entries, int(workload.planned_concurrent * max(hops, 1.0)))
    period = period_s
    return WorkEstimate(transfers=transfers, fabric_transfers=fabric_transfers,
                        fabric_bytes=fabric_bytes, cell_hops=cell_hops,
                        mean_hops=hop_sum / fabric_transfers if fabric_transfers else 0.0,
                        frames=int(horizon_s / period) + 1, links=2 * len(design.links),
                        rate_updates=updates, concurrent_entries=entries,
                        explicit_flows=len(scenario.flows),
                        array_steps=sum(w.planned_array_steps for w in workloads),
                        cell_hop_factor=ETHERNET_CELL_HOP_FACTOR if per_packet else 1.0)


def _arrays_required(work: WorkEstimate, max_cell_hops: float) -> str | None:
    """Why a run accepted for its ring arrays must not go on cell by cell if they decline
    once it starts (a tie of two events only the run sees), or None when it may."""
    per_cell = dataclasses.replace(work, ring_arrays=False)
    seconds = per_cell.cell_seconds
    if per_cell.cell_hops <= max_cell_hops and seconds <= LIMIT_S:
        return None
    return (f"cell by cell it would take ~{seconds:,.0f} s ({per_cell.cell_hops / 1e6:,.0f} "
            f"million cell-hops; limits {LIMIT_S:,.0f} s, {max_cell_hops / 1e6:,.0f} million): "
            "use the flow engine, or lift the limit (--no-limit)")


def check_work(work: WorkEstimate, engine: str, scenario: Scenario,
               max_cell_hops: float) -> None:
    """ScenarioError with the figures and a suggestion when the run is too big for
    ``engine``."""
    memory = work.memory_problem()
    if memory is not None:
        raise ScenarioError(memory)
    seconds = work.seconds(engine)
    # the cell-hop ceiling stands for the time of a run cell by cell: ring arrays are
    # bounded by their own predicted time
    too_many = work.cell_hops > max_cell_hops and not work.ring_arrays
    if engine == "cell" and (too_many or seconds > LIMIT_S):
        bigger = min(16 * 2**20, scenario.cell_bytes * 2 ** max(1, math.ceil(
            math.log2(max(work.cell_hops / max_cell_hops, seconds / LIMIT_S)))))
        horizon = "a shorter horizon (until_s)" if scenario.until_s else "a horizon (until_s)"
        raise ScenarioError(
            f"the run is too long for the cell engine: about {work.cell_hops / 1e6:,.0f} "
            f"million cell-hops and {work.transfers:,} transfers, ~{seconds:,.0f} s (limit "
            f"{max_cell_hops / 1e6:,.0f} million cell-hops, {LIMIT_S:,.0f} s); use the flow "
            f"engine (engine \"flow\" or \"auto\"), {horizon}, less traffic or bigger "
            f"cells (cell_bytes {bigger})")
    if engine == "flow" and seconds > LIMIT_S:
        raise ScenarioError(
            f"the run is too big even for the flow engine: {work.transfers:,} transfers "
            f"({work.fabric_transfers:,} over the fabric), ~{work.rate_updates:,} rate "
            f"updates, ~{seconds:,.0f} s predicted (limit {LIMIT_S:,.0f} s); use fewer ranks "
            "or a collective algorithm with fewer transfers")
