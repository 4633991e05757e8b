"""What the live view needs from a simulation: the :class:`SimulationSource` protocol.

The live view drives any object with ``advance(until_s)``, ``now``, ``until_s``, ``finished``,
``progress``, ``stream``, ``result()`` and ``flow_ends()``.  :func:`engine_source` builds one
from the project's SimPy engine through the one simulation boundary
(:func:`fabricstudio.sim.request.scenario_for`); tests and benchmarks pass their own factories.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from fabricstudio.formats.story import FABRICS
from fabricstudio.model import Design, Technology
from fabricstudio.sim.activity import GpuTimeline
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.sim.moments import Caption, RunFacts
from fabricstudio.sim.recorded import Narrator
from fabricstudio.sim.request import RunRequest, scenario_for
from fabricstudio.sim.result import Result
from fabricstudio.sim.run import Simulation, build_simulation
from fabricstudio.sim.scenario import Scenario


@runtime_checkable
class SimulationSource(Protocol):
    """A resumable simulation producing frames into ``stream``."""

    stream: MetricStream
    #: The horizon (seconds): the run stops there at the latest.
    until_s: float
    #: Expected length of the run (seconds; paces the worker's slices, at most ``until_s``).
    expected_s: float

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

    def result(self) -> Result:
        """The summary of the run so far."""

    def flow_ends(self) -> dict[int, tuple[str, str]]:
        """Flow id -> (src, dst) of the run's flows (names the CSV's flow rows)."""

    @property
    def timeline(self) -> GpuTimeline | None:
        """Per-frame GPU states (None when the source does not know its GPUs' work)."""

    def captions(self) -> list[Caption]:
        """The run's captions so far (refreshed now and then while it runs)."""

    def facts(self) -> RunFacts | None:
        """What the finished run's figures say (compared across fabrics)."""


#: Builds a simulation of a (frozen) design for a request.
SourceFactory = Callable[[Design, RunRequest], SimulationSource]

#: The four fabrics of the comparison: (label, technology, dcqcn).
COMPARE_VARIANTS: tuple[tuple[str, Technology, bool], ...] = (
    ("InfiniBand", Technology.INFINIBAND, False),
    ("RoCE + DCQCN", Technology.ROCE, True),
    ("RoCE PFC only", Technology.ROCE, False),
    ("Lossy Ethernet", Technology.ETHERNET, False),
)
#: A story's fabric names (formats.story.FABRICS) -> their comparison variant.
FABRIC_VARIANTS: dict[str, tuple[str, Technology, bool]] = dict(
    zip(FABRICS, COMPARE_VARIANTS, strict=True))


def engine_source(design: Design, request: RunRequest) -> SimulationSource:
    """A SimulationSource backed by the project's SimPy engine (ScenarioError, one readable
    line, when the request cannot run on ``design``)."""
    return scenario_source(design, scenario_for(design, request))


def scenario_source(design: Design, scenario: Scenario) -> SimulationSource:
    """A SimulationSource for an already validated Scenario."""
    return EngineSource(build_simulation(design, scenario))


class EngineSource:
    """Adapts :class:`fabricstudio.sim.run.Simulation` to :class:`SimulationSource`; its
    :class:`~fabricstudio.sim.recorded.Narrator` follows the GPUs and finds the captions."""

    def __init__(self, simulation: Simulation) -> None:
        self._simulation = simulation
        self._narrator = Narrator(simulation)
        self.stream = simulation.stream
        #: The horizon; without one, the latest stop (the frame budget's, sim.budget): the run
        #: ends earlier when its traffic completes, deadlocks or stalls.
        self.until_s = float(simulation.stop_s)
        #: Expected length of the run (paces the worker's slices when there is no horizon).
        self.expected_s = float(simulation.estimate_s)

    @property
    def now(self) -> float:
        return float(self._simulation.now)

    @property
    def finished(self) -> bool:
        return self._simulation.finished

    @property
    def progress(self) -> float:
        return self._simulation.progress

    def advance(self, until_s: float) -> None:
        self._simulation.advance(until_s)
        self._narrator.update()

    def result(self) -> Result:
        # a run with failures is priced against its no-failure twin (run here, in the worker)
        self._simulation.run_twin()
        return self._simulation.result()

    def flow_ends(self) -> dict[int, tuple[str, str]]:
        return self._simulation.flow_ends()

    @property
    def timeline(self) -> GpuTimeline | None:
        return self._narrator.timeline

    def captions(self) -> list[Caption]:
        return list(self._narrator.captions)

    def facts(self) -> RunFacts | None:
        return self._narrator.facts()
