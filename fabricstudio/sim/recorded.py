"""A recorded run: everything the replay, the presenter and the recorder show of one run.

:class:`RecordedRun` bundles the frozen design, the metric stream, the Result, the GPU
timeline, the captions and the facts of one run.  :class:`Narrator` keeps the timeline and the
captions of a live :class:`~fabricstudio.sim.run.Simulation` up to date while it advances
(the GUI's engine process and the headless recorder use it); :func:`record_run` runs a
scenario headless and returns the whole record.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fabricstudio.formats.story import StoryStep
from fabricstudio.model import Design
from fabricstudio.sim.activity import GpuTimeline, track_simulation
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.sim.moments import Caption, RunFacts, find_captions, run_facts
from fabricstudio.sim.result import Result
from fabricstudio.sim.run import Simulation, build_simulation
from fabricstudio.sim.scenario import Scenario

#: While a run goes on, its captions are looked for again at most this often (wall seconds):
#: finding them reads the whole recording so far.
CAPTION_INTERVAL_S = 3.0


@dataclass
class RecordedRun:
    """One run as recorded (see the module docstring); ``label`` names its fabric."""

    label: str
    design: Design
    stream: MetricStream
    result: Result | None = None
    timeline: GpuTimeline | None = None
    captions: list[Caption] = field(default_factory=list)
    facts: RunFacts | None = None
    #: When the run was recorded (epoch seconds) if it was read back from the run cache
    #: (sim.run_cache); None for a run computed now.
    cached_at: float | None = None

    @property
    def end_s(self) -> float:
        """Simulated time of the last recorded frame (0 when nothing was recorded)."""
        return float(self.stream.times[-1]) if len(self.stream) else 0.0


def story_moment(step: StoryStep, runs: Sequence[RecordedRun]) -> float | None:
    """The moment a story step shows its runs at: its ``time_s``, else its event's: 0 for
    ``start``, the end of the longest run for ``end``, else the earliest time any run has
    the event (:data:`~fabricstudio.sim.metrics.MOMENTS`).  None when the step names neither
    or no run has the event (the caller keeps the time it is at)."""
    if step.time_s is not None:
        return step.time_s
    if step.event is None:
        return None
    if step.event == "start":
        return 0.0
    if step.event == "end":
        return max(r.end_s for r in runs)
    found = [t for r in runs if (t := r.stream.moment_time(step.event)) is not None]
    return min(found) if found else None


class Narrator:
    """Follows a running Simulation: GPU states after every advance, captions now and then,
    facts at the end."""

    def __init__(self, simulation: Simulation) -> None:
        self.simulation = simulation
        self._tracker = track_simulation(simulation)
        self.captions: list[Caption] = []
        self._captions_at = -1.0  # simulated time the captions were found at
        self._captions_wall = 0.0

    @property
    def timeline(self) -> GpuTimeline:
        """The GPU states of the frames recorded so far."""
        return self._tracker.timeline

    def update(self) -> bool:
        """Classify new frames; look for captions again when they may be stale (at most every
        CAPTION_INTERVAL_S wall seconds, and always once the run is finished).  True when the
        captions were refreshed."""
        self._tracker.update()
        sim = self.simulation
        now = time.perf_counter()
        due = sim.finished or now - self._captions_wall >= CAPTION_INTERVAL_S
        if due and sim.now != self._captions_at:
            self.captions = find_captions(sim)
            self._captions_at = sim.now
            self._captions_wall = now
            return True
        return False

    def facts(self, result: Result | None = None) -> RunFacts:
        """The run's facts (compare fabrics with these)."""
        return run_facts(self.simulation, result)


def record_run(design: Design, scenario: Scenario, label: str = "",
               progress: Callable[[float], None] | None = None) -> RecordedRun:
    """Run ``scenario`` on ``design`` headless and return the whole record."""
    simulation = build_simulation(design, scenario)
    narrator = Narrator(simulation)
    while not simulation.finished:
        simulation.advance(simulation.now + simulation.slice_s)
        narrator.update()
        if progress is not None:
            progress(simulation.progress)
    narrator.update()
    simulation.stream.close(simulation.flow_ends())
    result = simulation.result()
    return RecordedRun(label or scenario.name, simulation.design, simulation.stream, result,
                       narrator.timeline, narrator.captions, narrator.facts(result))
