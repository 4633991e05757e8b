"""What the live view needs from a simulation: the :class:`SimulationSource` protocol.

The live view drives any object with ``advance(until_s)``, ``now``, ``until_s``, ``stream`` and
``result()``.  :func:`engine_source` builds one from the project's SimPy engine
(``fabricstudio.sim.run.build_simulation``); tests and benchmarks pass their own factories.
:class:`RunRequest` is the scenario as the scenario panel edits it.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from fabricstudio.model import Design, DeviceKind, Technology
from fabricstudio.sim.metrics import MetricStream

#: Workloads the scenario panel offers: engine workload type -> label.
WORKLOADS: dict[str, str] = {
    "all_reduce": "Ring all-reduce",
    "all_gather": "All-gather",
    "reduce_scatter": "Reduce-scatter",
    "all_to_all": "All-to-all (MoE)",
    "incast": "Incast N:1",
    "permutation": "Random permutation",
    "storage_write": "Storage checkpoint burst",
    "storage_read": "Storage read burst",
    "training": "Training step",
}
ROUTINGS = ("default", "ecmp", "static", "adaptive")


class SimulationUnavailable(RuntimeError):
    """The simulation engine is not part of this build, or refused the scenario."""


@runtime_checkable
class SimulationSource(Protocol):
    """A resumable simulation producing frames into ``stream``."""

    stream: MetricStream
    until_s: float

    @property
    def now(self) -> float:
        """Simulated time reached so far (seconds)."""

    @property
    def finished(self) -> bool:
        """True when there is nothing left to run."""

    @property
    def progress(self) -> float:
        """Fraction of the run done (0..1)."""

    def advance(self, until_s: float) -> None:
        """Run the simulation up to ``until_s`` (resumable)."""

    def result(self) -> Any:
        """The summary of the run so far (a pydantic model or a dict)."""


@dataclass(frozen=True)
class RunRequest:
    """A scenario as edited in the scenario panel."""

    technology: Technology = Technology.ROCE
    dcqcn: bool = True
    workload: str = "all_reduce"
    size_bytes: int = 8 * 2**20
    compute_s: float = 0.002
    ranks: tuple[str, ...] = ()
    routing: str = "default"
    cell_bytes: int = 16 * 1024
    seed: int = 1
    until_s: float | None = None  # None: until the traffic completes
    #: A loaded scenario file's text (fabricstudio-scenario JSON): when set, its workloads,
    #: flows and fabric overrides are what runs, with this request's technology, DCQCN,
    #: routing, cell size, seed and horizon; None: the single workload of the fields above.
    scenario_text: str | None = None
    #: What the loaded scenario runs, e.g. ``training step + incast 7:1``.
    scenario_label: str = ""

    def with_changes(self, **changes: Any) -> "RunRequest":
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @property
    def label(self) -> str:
        """Short description, e.g. ``RoCE + DCQCN, Ring all-reduce``."""
        tech = self.technology.label
        if self.technology is Technology.ROCE:
            tech += " + DCQCN" if self.dcqcn else " (PFC only)"
        return f"{tech}, {self.workload_label}"

    @property
    def workload_label(self) -> str:
        """What runs, without the fabric, e.g. ``Ring all-reduce`` or ``training step +
        incast 7:1`` (a loaded scenario)."""
        if self.scenario_text is not None:
            return self.scenario_label
        return WORKLOADS.get(self.workload, self.workload)

    def to_scenario_data(self, design: Design) -> dict[str, Any]:
        """The scenario as plain data in the engine's Scenario schema (fabricstudio.sim.scenario).

        Raises ValueError when the design cannot carry the workload (e.g. too few servers).
        """
        data = {"name": self.label, "technology": self.technology.value,
                "dcqcn": self.dcqcn, "routing": self.routing, "cell_bytes": self.cell_bytes,
                "seed": self.seed}
        if self.scenario_text is not None:
            loaded = json.loads(self.scenario_text)
            loaded.pop("format", None)
            loaded.pop("version", None)
            loaded.pop("until_s", None)
            data = {**loaded, **data, "name": loaded.get("name") or self.label}
        else:
            data["workloads"] = [self._workload_data(design)]
        if self.until_s is not None:
            data["until_s"] = self.until_s
        return data

    def _workload_data(self, design: Design) -> dict[str, Any]:
        ranks: Any = list(self.ranks) if self.ranks else "all"
        kind = self.workload
        if kind in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all"):
            return {"type": kind, "ranks": ranks, "size_bytes": self.size_bytes}
        if kind == "training":
            return {"type": kind, "ranks": ranks, "gradient_bytes": self.size_bytes,
                    "compute_s": self.compute_s}
        if kind == "permutation":
            return {"type": kind, "hosts": ranks, "bytes": self.size_bytes}
        if kind in ("storage_read", "storage_write"):
            return {"type": kind, "clients": ranks, "bytes": self.size_bytes}
        if kind == "incast":
            hosts = sorted({r.split("/")[0] for r in self.ranks}) if self.ranks else [
                d.id for d in design.devices.values() if d.kind == DeviceKind.GPU_SERVER]
            if len(hosts) < 2:
                raise ValueError("incast needs at least two GPU servers")
            return {"type": kind, "senders": hosts[1:], "receiver": hosts[0],
                    "bytes": self.size_bytes}
        raise ValueError(f"unknown workload {kind!r}")


_WORKLOAD_NOUNS = {"all_reduce": "all-reduce", "all_gather": "all-gather",
                   "reduce_scatter": "reduce-scatter", "all_to_all": "all-to-all",
                   "permutation": "permutation", "storage_read": "storage read",
                   "storage_write": "checkpoint write"}


def describe_workloads(scenario: Any) -> str:
    """What an engine Scenario runs, e.g. ``2 training steps + incast 7:1``."""
    parts = []
    for spec in scenario.workloads:
        if spec.type == "training":
            steps = spec.iterations
            parts.append("training step" if steps == 1 else f"{steps} training steps")
        elif spec.type == "incast":
            parts.append(f"incast {len(spec.senders)}:1")
        else:
            parts.append(_WORKLOAD_NOUNS.get(spec.type, spec.type))
    if scenario.flows:
        parts.append(f"{len(scenario.flows)} flow" + ("s" if len(scenario.flows) > 1 else ""))
    return " + ".join(parts)


#: Builds a simulation of a (frozen) design for a request.
SourceFactory = Callable[[Design, RunRequest], SimulationSource]

#: The four fabrics of the comparison: (label, technology, dcqcn).
COMPARE_VARIANTS: tuple[tuple[str, Technology, bool], ...] = (
    ("InfiniBand", Technology.INFINIBAND, False),
    ("RoCE + DCQCN", Technology.ROCE, True),
    ("RoCE PFC only", Technology.ROCE, False),
    ("Lossy Ethernet", Technology.ETHERNET, False),
)


def _engine_modules() -> tuple[Any, Any]:
    try:
        run = importlib.import_module("fabricstudio.sim.run")
        scenario = importlib.import_module("fabricstudio.sim.scenario")
    except ImportError as exc:
        raise SimulationUnavailable(
            "the simulation engine (fabricstudio.sim.run) is not available in this build"
        ) from exc
    return run, scenario


def load_scenario(data: dict[str, Any]) -> Any:
    """Validate scenario data with the engine's Scenario model (clear message when bad)."""
    _, scenario_module = _engine_modules()
    try:
        return scenario_module.scenario_from_dict(
            {"format": scenario_module.FORMAT_NAME, "version": 1, **data}, "scenario")
    except ValueError as exc:
        raise SimulationUnavailable(str(exc)) from None


def engine_source(design: Design, request: RunRequest) -> SimulationSource:
    """A SimulationSource backed by the project's SimPy engine."""
    run_module, _ = _engine_modules()
    try:
        data = request.to_scenario_data(design)
    except ValueError as exc:
        raise SimulationUnavailable(str(exc)) from None
    return scenario_source(design, load_scenario(data), run_module)


def scenario_source(design: Design, scenario: Any, run_module: Any = None) -> SimulationSource:
    """A SimulationSource for an already validated engine Scenario."""
    run_module = run_module or _engine_modules()[0]
    try:
        simulation = run_module.build_simulation(design, scenario)
    except ValueError as exc:  # ScenarioError: one readable sentence
        raise SimulationUnavailable(str(exc)) from None
    return _EngineSource(simulation, scenario)


class _EngineSource:
    """Adapts ``fabricstudio.sim.run.Simulation`` to :class:`SimulationSource`."""

    def __init__(self, simulation: Any, scenario: Any) -> None:
        self._simulation = simulation
        self.stream = simulation.stream
        #: The horizon, or inf when the run goes on until its traffic completes.
        self.until_s = float(simulation.stop_s)
        #: Expected length of the run (paces the worker's slices when there is no horizon).
        self.expected_s = float(simulation.estimate_s)

    @property
    def now(self) -> float:
        return float(self._simulation.now)

    @property
    def finished(self) -> bool:
        return bool(self._simulation.finished)

    @property
    def progress(self) -> float:
        return float(self._simulation.progress)

    def advance(self, until_s: float) -> None:
        self._simulation.advance(until_s)

    def result(self) -> Any:
        return self._simulation.result()


def result_data(result: Any) -> dict[str, Any]:
    """A result as plain data (pydantic models are dumped, dicts pass through)."""
    if result is None:
        return {}
    if hasattr(result, "to_dict"):
        return result.to_dict()
    if hasattr(result, "model_dump"):
        return result.model_dump(mode="json")
    return dict(result)
